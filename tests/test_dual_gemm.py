"""The SiLU-gated dual GEMM (ptx/dual_gemm_nvfp4_wgmma.ptx, nvfp4rt.ops.dual_gemm).

CPU part:
* the consumer setup and unit loop are byte-for-byte the wgmma GEMM's at commit fc4e9f9 in its
  A_DECODER=0 form (one-piece-ahead B prefetch, one-sub-step-ahead A decode, WG_WAIT/A16_BUFS; its
  numpy replay and hazard model live in tests/test_gemm_wgmma.py), checked by a hash of the text and,
  where git has the commit, against the commit itself (tests/wgmma_main_loop.py); each wgmma depth's
  a16 buffers fit the a16 region;
* the producer's six TMA loads: boxes, slot offsets, coordinates, and a byte-level model showing
  that B1 rows 0..63 + B2 rows 0..63 in two 64-row 128B-swizzled boxes give the very slot bytes the
  GEMM's consumers read for a 128-row box (warpgroup 0 <- B1, warpgroup 1 <- B2);
* the epilogue: accumulator -> fp32 tile offsets (read out of the PTX) cover both 128 x 64 tiles
  once, element (m, n) of h1 and h2 come from the same (row, col) of the two warpgroups, stores are
  bank-conflict free, the copy-out reads 8 consecutive columns; the silu constants, replayed in
  float32 against the reference;
* the stream-K geometry (every unit once, distinct workspace slots), argument validation, and
  assembly without spills.

GPU part (``@pytest.mark.gpu``): the competition shapes and ragged ones, both distributions,
NaN-poisoned outputs, determinism, against nvfp4rt.reference.dual_gemm_silu_ref.
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from nvfp4rt.ops import dual_gemm as D

from conftest import requires_gpu
from wgmma_main_loop import consumer_regions, reference_regions

KERNEL = Path(__file__).resolve().parent.parent / "ptx" / "dual_gemm_nvfp4_wgmma.ptx"
PTX = KERNEL.read_text()
# sha256 of consumer setup + unit loop of gemm_nvfp4_wgmma.ptx @ fc4e9f9 without A_DECODER (wgmma_main_loop.py)
MAIN_LOOP_SHA256 = "32f97e5900be5a19489b92772f355b2d9cf213624ca3392fbcd9432d77290e34"


def test_consumer_main_loop_is_the_gemm_kernels():
    setup, loop = consumer_regions(PTX)
    assert hashlib.sha256((setup + loop).encode()).hexdigest() == MAIN_LOOP_SHA256


def test_main_loop_equals_the_reference_commit_when_git_has_it():
    ref = reference_regions()
    if ref is None:
        pytest.skip("git or the reference commit not available")
    setup, loop = consumer_regions(PTX)
    assert setup == ref[0] and loop == ref[1]
    assert hashlib.sha256((ref[0] + ref[1]).encode()).hexdigest() == MAIN_LOOP_SHA256


@pytest.mark.parametrize("depth", D.WGMMA_DEPTHS)
def test_each_wgmma_depth_renders_its_wait_and_fits_its_a16_buffers(depth):
    from nvfp4rt.ptxsource import render

    consts = D.kernel_constants(False, depth)
    text = render(PTX, "sm_90a", consts)
    waits = set(re.findall(r"wgmma\.wait_group\.sync\.aligned (\d+);", consumer_regions(text)[1]))
    assert waits == {str(depth)}
    assert f"setp.eq.u32 %p_wrap, %tmp, {consts['A16_BUFS']};" in text  # the a16 ring wraps at A16_BUFS
    # the a16 region (between the ring and the mbarriers) holds the buffers and the epilogue's fp32 tiles
    region = int(re.search(r"add\.u32 %sm_full, %sm_a16, (\d+);", text).group(1))
    assert region >= consts["A16_BUFS"] * 16384 and region >= 2 * 128 * 272
    assert depth <= 2 * consts["A16_BUFS"] - 5  # the GEMM header's hazard rule WG_WAIT <= 2 A16_BUFS - 5


def test_subnormal_operands_unless_an_alpha_would_overflow():
    assert D.operands_normal((1.0, 1.0), False) is False
    assert D.operands_normal((1.0, 1.0), True) is True
    assert D.operands_normal((1.0, 2.0**100), False) is True   # alpha2 * 2^28 > fp32 max
    assert D.operands_normal((-(2.0**100), 1.0), False) is True
    assert D.operands_normal((2.0**99, 1.0), False) is False   # 2^127 still fits
    with pytest.raises(ValueError, match="wgmma_depth"):
        D.kernel_constants(False, 2)


def test_kernel_file_is_ascii_with_a_header():
    KERNEL.read_bytes().decode("ascii")
    assert PTX.splitlines()[0] == "// nvfp4rt: targets=sm_90a constants=NORMAL_OPERANDS=0,WG_WAIT=1,A16_BUFS=3"
    for word in ("WHAT", "TILES", "PIPELINE", "LAUNCH CONTRACT", "STREAM-K"):
        assert f"// {word}" in PTX


# ============================================================== producer

def _producer_loads():
    text = PTX.split("PRODUCER:")[1]
    loads = re.findall(r"cp\.async\.bulk\.tensor\.3d\S*\s*\n\s*\[(%\w+)\], \[(%\w+), \{(%\w+), (%\w+), %batch\}\]",
                       text)
    offs = {}
    for dst, tm, kx, row in loads:
        if dst == "%slot_addr":
            off = 0
        else:
            before = text[:text.index(f"[{dst}], [{tm}, ")]
            off = int(re.findall(r"add\.u32 %addr, %slot_addr, (\d+);", before)[-1])
        offs[tm] = (off, kx, row)
    maps = {m.group(2): m.group(1) for m in re.finditer(r"mov\.u64 (%\w+), (tmap_\w+);", text)}
    return {name[5:]: offs[reg] for name, reg in maps.items()}, text


def test_producer_loads_six_boxes_into_the_slot_layout():
    loads, text = _producer_loads()
    assert set(loads) == {"a", "b1", "b2", "sfa", "sfb1", "sfb2"}
    assert {k: v[0] for k, v in loads.items()} == D._SLOT_OFFSETS
    for k in ("a", "b1", "b2"):
        assert loads[k][1] == "%x"
    for k in ("sfa", "sfb1", "sfb2"):
        assert loads[k][1] == "%y"
    assert loads["a"][2] == loads["sfa"][2] == "%m0"
    assert all(loads[k][2] == "%n0" for k in ("b1", "b2", "sfb1", "sfb2"))
    assert "shl.b32 %n0, %nt, 6;" in text and "shl.b32 %m0, %mt, 7;" in text
    assert "expect_tx.shared::cta.b64 %mbstate, [%bar], 36864;" in text
    # bytes per box (host map_spec boxes) add up to the expect_tx count, and sit in disjoint ranges
    sizes = {"a": 128 * 128, "b1": 64 * 128, "b2": 64 * 128, "sfa": 128 * 16, "sfb1": 64 * 16, "sfb2": 64 * 16}
    assert sum(sizes.values()) == D._STAGE_BYTES == 36864
    spans = sorted((D._SLOT_OFFSETS[k], D._SLOT_OFFSETS[k] + sizes[k]) for k in sizes)
    assert all(e <= s for (_, e), (s, _) in zip(spans, spans[1:])) and spans[-1][1] == 36864
    assert D._SLOT_OFFSETS["b2"] % 1024 == 0  # the 128B swizzle phase of a row is its slot row % 8


def _tma_swizzled_box(rows: np.ndarray, base: int, slot: np.ndarray):
    """TMA 128B swizzle: 16-byte chunk c of box row r lands at chunk c ^ (address bits 7..9)."""
    for r in range(rows.shape[0]):
        for byte in range(128):
            addr = base + r * 128 + byte
            addr ^= ((addr >> 7) & 7) << 4
            slot[addr] = rows[r, byte]


def test_two_half_boxes_give_the_gemm_consumers_b1_then_b2():
    rng = np.random.default_rng()
    b1 = rng.integers(0, 256, size=(64, 128), dtype=np.uint8)
    b2 = rng.integers(0, 256, size=(64, 128), dtype=np.uint8)
    slot = np.zeros(16384, dtype=np.uint8)
    _tma_swizzled_box(b1, D._SLOT_OFFSETS["b1"], slot)
    _tma_swizzled_box(b2, D._SLOT_OFFSETS["b2"], slot)
    # the GEMM consumer of B row rowB = 64 wg + 16 wi + g reads piece pp at rowB*128 + ((pp ^ g) << 4) + 4t
    both = np.concatenate([b1, b2])
    for wg in range(2):
        for wi in range(4):
            for g in range(8):
                row_b = 64 * wg + 16 * wi + g
                for pp in range(8):
                    for t in range(4):
                        off = row_b * 128 + ((pp ^ g) << 4) + 4 * t
                        assert bytes(slot[off:off + 4]) == bytes(both[row_b, 16 * pp + 4 * t:16 * pp + 4 * t + 4])
                        off += 1024  # row g + 8
                        assert bytes(slot[off:off + 4]) == bytes(both[row_b + 8, 16 * pp + 4 * t:16 * pp + 4 * t + 4])


# ============================================================== epilogue

def frag_coords(lane: int, warp: int, e: int):
    """wgmma m64nNk16 D fragment: row = 16 warp + lane/4 + 8((e/2)%2), col = 8(e/4) + 2(lane%4) + e%2."""
    return 16 * warp + lane // 4 + 8 * ((e // 2) % 2), 8 * (e // 4) + 2 * (lane % 4) + e % 2


def _epilogue_text():
    return PTX.split("STORE_TILE:")[1].split("NEXT_SEG:")[0]


def test_epilogue_tiles_pair_h1_and_h2_of_the_same_element():
    text = _epilogue_text()
    stores = re.findall(r"st\.shared\.f32 \[%addr\+(\d+)\], %acc(\d+);", text)
    assert [int(a) for _, a in stores] == list(range(64))
    offs = [int(o) for o, _ in stores]
    assert "mul.lo.u32 %addr, %wg, 34816;" in text and "mul.lo.u32 %tmp, %t, 544;" in text
    assert "and.b32 %tmp, %rowB, 63;" in text
    pitch, tile = 272, 34816
    seen = {}
    for ct in range(256):
        wg, wi, lane = ct // 128, (ct % 128) // 32, ct % 32
        g, t = lane // 4, lane % 4
        row_b = 64 * wg + 16 * wi + g
        base = wg * tile + t * 544 + (row_b & 63) * 4
        for e in range(64):
            addr = base + offs[e]
            which, rem = divmod(addr, tile)
            m_l, n_l = rem // pitch, (rem % pitch) // 4
            row, col = frag_coords(lane, wi, e)  # D row = B row of the warpgroup (n), col = A row (m)
            assert which == wg and (m_l, n_l) == (col, row), (ct, e)
            assert rem % 4 == 0 and n_l < 64 and addr not in seen
            seen[addr] = (ct, e)
    assert len(seen) == 2 * 128 * 64
    assert 2 * tile <= D._A16_BYTES
    for e in range(64):  # conflict-free: 32 lanes -> 32 banks
        banks = {((t * 544 + (16 * 0 + g) * 4 + offs[e]) // 4) % 32 for g in range(8) for t in range(4)}
        assert len(banks) == 32
    # copy-out: thread chunk i -> row i/8, columns 8(i%8)..+7: h1 at row*272 + 32 (i%8), h2 one tile later
    assert "mul.lo.u32 %tmp, %row, 272;" in text and "shl.b32 %tmp2, %col8, 5;" in text
    assert "[%addr+34816]" in text and "[%addr+34832]" in text
    assert "setp.lt.u32 %p_more, %i, 1024;" in text and "shl.b32 %n0, %nt, 6;" in text


def _silu_ptx_f32(h1, h2, alpha1, alpha2):
    """The epilogue's float32 sequence (ex2/rcp exact here; the hardware's approx differ by ~1e-7)."""
    f = np.float32
    with np.errstate(over="ignore"):
        x = (h1.astype(f) * f(alpha1)).astype(f)
        ex = (x * np.array(0xBFB8AA3B, dtype=np.uint32).view(np.float32)).astype(f)
        ex = np.exp2(ex).astype(f)
        ex = (ex + f(1.0)).astype(f)
        ex = (f(1.0) / ex).astype(f)
        s = (x * ex).astype(f)
        y = (h2.astype(f) * f(alpha2)).astype(f)
        return (s * y).astype(np.float16)


def test_epilogue_silu_sequence_matches_the_reference_formula():
    text = _epilogue_text()
    assert text.count("mul.f32 %ex, %h") == 8 and "0fBFB8AA3B" in text  # -log2(e)
    assert text.count("ex2.approx.ftz.f32") == 8 and text.count("rcp.approx.ftz.f32") == 8
    assert np.isclose(np.array(0xBFB8AA3B, dtype=np.uint32).view(np.float32), -np.log2(np.e), rtol=1e-7)
    from nvfp4rt.reference import check

    rng = np.random.default_rng()
    h1 = (rng.standard_normal(20000) * 30).astype(np.float64)
    h2 = (rng.standard_normal(20000) * 30).astype(np.float64)
    h1[:4] = [-1e4, 1e4, 0.0, -100.0]  # silu saturation at both ends
    got = _silu_ptx_f32(h1, h2, 1.0, 1.0)
    h1f, h2f = h1.astype(np.float32), h2.astype(np.float32)
    with np.errstate(over="ignore"):
        ref = (h1f / (np.float32(1) + np.exp(-h1f)) * h2f).astype(np.float16)
    res = check(got, ref)
    assert res.ok, res.report()


def test_epilogue_multiplies_alpha_before_silu_and_after_for_h2():
    text = _epilogue_text()
    first = text.index("mul.f32 %h0, %h0, %alpha;")
    assert first < text.index("mul.f32 %ex, %h0, 0fBFB8AA3B;")
    assert "mul.f32 %q0, %q0, %alpha2;" in text
    assert "ld.param.f32 %alpha, [alpha1];" in text and "ld.param.f32 %alpha2, [alpha2];" in text


# ============================================================== geometry

def _segments(geo, cta):
    u, end = cta * geo.units_per_cta, min((cta + 1) * geo.units_per_cta, geo.units)
    while u < end:
        tile = u // geo.k_stages
        seg_end = min((tile + 1) * geo.k_stages, end)
        yield tile, u, seg_end
        u = seg_end


@pytest.mark.parametrize("m,n,k,l,sms", [(256, 4096, 7168, 1, 132), (512, 4096, 7168, 1, 132),
                                         (256, 3072, 4096, 1, 132), (512, 3072, 7168, 1, 132),
                                         (1, 1, 64, 1, 132), (200, 100, 1088, 3, 7), (129, 65, 512, 2, 132)])
def test_every_unit_once_and_partials_in_distinct_slots(m, n, k, l, sms):
    geo = D.dual_geometry(m, n, k, l, sms)
    assert geo.grid <= sms
    done = np.zeros(geo.units, dtype=int)
    slots = {}
    for cta in range(geo.grid):
        for tile, u0, u1 in _segments(geo, cta):
            done[u0:u1] += 1
            contrib = D.tile_contributors(geo, tile)
            assert cta in contrib
            if len(contrib) > 1:
                s = D.workspace_slot(geo, cta, tile)
                assert s not in slots and 2 * cta <= s <= 2 * cta + 1
                slots[s] = tile
    assert (done == 1).all()
    assert geo.workspace_bytes >= 2 * geo.grid * 64 * 1024
    covered = set()
    for tile in range(geo.tiles):
        b, m0, n0 = geo.tile_coords(tile)
        covered.add((b, m0, n0))
        assert m0 < m and n0 < n and b < l
    assert len(covered) == geo.tiles == l * -(-m // 128) * -(-n // 64)


def test_competition_shapes_fill_an_h100():
    for m, n, k in [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)]:
        geo = D.dual_geometry(m, n, k, 1, 132)
        assert geo.grid >= 96
        assert geo.shared_mem <= 232448  # H100 opt-in


def test_shared_memory_formula_matches_the_header():
    assert "1024 + S*36864 + 69632 + 16*S + 16" in PTX
    assert D.shared_bytes(4) == 1024 + 4 * 36864 + 69632 + 64 + 16 == 218192
    assert "add.u32 %sm_full, %sm_a16, 69632;" in PTX


# ============================================================== validation

class _Fake:
    def __init__(self, shape, dtype, strides=None):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        if strides is None:
            acc, st = self.dtype.itemsize, []
            for d in reversed(self.shape):
                st.append(acc)
                acc *= d
            strides = tuple(reversed(st))
        self.strides = strides


def _raw(m, n, k, l=1):
    """Competition views [rows, cols, l] of batch-major (l, rows, cols) buffers."""
    def v(rows, cols, dt):
        it = np.dtype(dt).itemsize
        return _Fake((rows, cols, l), dt, (cols * it, it, rows * cols * it))
    return dict(a=v(m, k // 2, np.uint8), b1=v(n, k // 2, np.uint8), b2=v(n, k // 2, np.uint8),
                sfa=v(m, k // 16, np.uint8), sfb1=v(n, k // 16, np.uint8), sfb2=v(n, k // 16, np.uint8),
                c=v(m, n, np.float16))


def test_raw_problem_returns_sizes_and_layout():
    args = _raw(256, 4096, 7168)
    m, n, k, l, lay = D.raw_dual_problem(**args)
    assert (m, n, k, l) == (256, 4096, 7168, 1)
    assert lay == D.DualGemmLayout.contiguous(256, 4096, 7168, 1)


@pytest.mark.parametrize("field,value,exc,match", [
    ("b2", _Fake((100, 512, 1), np.uint8), ValueError, "^b2 must have shape"),
    ("b1", _Fake((128, 512, 1), np.float32), TypeError, "^b1 must hold"),
    ("sfb2", _Fake((128, 63, 1), np.uint8), ValueError, "^sfb2 must have shape"),
    ("sfb1", _Fake((128, 64, 1), np.uint8), ValueError, "^sfb1 must have shape"),
    ("c", _Fake((128, 128, 1), np.float32), TypeError, "^c must be float16"),
    ("a", _Fake((128, 500, 1), np.uint8), ValueError, "multiple of 64"),
])
def test_raw_problem_names_the_bad_argument(field, value, exc, match):
    args = _raw(128, 128, 1024)
    if field == "sfb1":
        value = _Fake((128, 64, 2), np.uint8)
    args[field] = value
    with pytest.raises(exc, match=match):
        D.raw_dual_problem(**args)


def test_layout_problems_are_named():
    lay = D.DualGemmLayout.contiguous(128, 256, 512, 2)
    assert D.layout_problem(128, 256, 512, 2, lay) is None
    assert "b2_row" in D.layout_problem(128, 256, 512, 2, dataclasses.replace(lay, b2_row=264))
    assert "b1_batch" in D.layout_problem(128, 256, 512, 2, dataclasses.replace(lay, b1_batch=0))
    assert "c_row" in D.layout_problem(128, 256, 512, 2, dataclasses.replace(lay, c_row=100))
    assert "DualGemmLayout" in D.layout_problem(128, 256, 512, 2, object())


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(m=0, n=64, k=256), ValueError, "m must be"),
    (dict(m=64, n=64, k=96), ValueError, "multiple of 64"),
    (dict(m=64, n=64, k=256, stages=5), ValueError, "stages"),
    (dict(m=64, n=64, k=256, alpha1=float("nan")), ValueError, "alpha1"),
    (dict(m=64, n=64, k=256, normal_operands=1), TypeError, "normal_operands"),
    (dict(m=64, n=64, k=256, wgmma_depth=2), ValueError, "wgmma_depth"),
    (dict(m=64, n=64, k=256, wgmma_depth=True), TypeError, "wgmma_depth"),
    (dict(m=64, n=64, k=256, layout="x"), TypeError, "DualGemmLayout"),
])
def test_bad_plan_arguments_raise_before_any_gpu_work(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        D.DualGemmPlan(**kwargs)


def test_public_api_rejects_non_nvfp4_inputs():
    import nvfp4rt

    with pytest.raises(TypeError, match="a must be an nvfp4rt NVFP4Tensor"):
        nvfp4rt.dual_gemm_silu(np.zeros((4, 64)), None, None)


def test_off_hopper_raises_not_implemented():
    class Dev:
        compute_capability = (8, 9)

        class properties:
            name = "fake Ada"

    with pytest.raises(NotImplementedError, match="Hopper"):
        D._require_hopper(Dev())


try:
    from nvfp4rt.assemble import assemble, find_ptxas
    _HAVE_PTXAS = find_ptxas() is not None
except ImportError:  # pragma: no cover
    _HAVE_PTXAS = False


@pytest.mark.skipif(not _HAVE_PTXAS, reason="ptxas not found")
@pytest.mark.parametrize("normal", [True, False])
@pytest.mark.parametrize("depth", [1, 3])
def test_kernel_assembles_without_spills(normal, depth):
    rep = assemble(KERNEL, "sm_90a", D.kernel_constants(normal, depth))
    fn = rep.functions["nvfp4_dual_gemm_silu_wgmma"]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0
    assert "serializ" not in rep.log.lower()


def test_kernel_parameters_match_the_plan():
    from nvfp4rt.ptxsource import parse_entries, render

    sig = parse_entries(render(PTX, "sm_90a", D.kernel_constants()))
    sig = sig[0] if isinstance(sig, list) else next(iter(sig.values()))
    names = [p.name for p in sig.params]
    assert names == ["tmap_a", "tmap_b1", "tmap_b2", "tmap_sfa", "tmap_sfb1", "tmap_sfb2", "p_c", "p_ws", "p_counters",
                     "c_row_stride", "c_batch_stride", "m", "n", "k_stages", "m_tiles", "n_tiles", "total_units",
                     "units_per_cta", "num_stages", "alpha1", "alpha2"]


# ============================================================== GPU

def _run_case(m, n, k, l, distribution, plan_class=None, **plan_kwargs):
    """Fresh data, NaN-poisoned c, one run of ``plan_class`` (default DualGemmPlan); (check, plan, inputs, c)."""
    import nvfp4rt
    from nvfp4rt import data, reference

    d = data.dual_gemm_data(m, n, k, l, seed=None, distribution=distribution)
    ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    dev = {name: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(name)).view(np.uint8))
           for name in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")}
    c = nvfp4rt.from_numpy(np.full((l, m, n), np.nan, dtype=np.float16))
    plan = (plan_class or D.DualGemmPlan)(m, n, k, l, **plan_kwargs)
    plan.run(dev["a"], dev["b1"], dev["b2"], dev["sfa"], dev["sfb1"], dev["sfb2"], c)
    out = c.numpy().transpose(1, 2, 0)
    return reference.check(out, ref), plan, dev, c


GPU_SHAPES = [(256, 4096, 7168, 1), (512, 4096, 7168, 1), (256, 3072, 4096, 1), (512, 3072, 7168, 1),
              (1, 1, 64, 1), (100, 130, 320, 1), (257, 65, 1088, 2), (64, 7, 960, 1), (513, 200, 256, 1)]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l", GPU_SHAPES)
@pytest.mark.parametrize("distribution", ["competition", "wide"])
def test_matches_float64_reference(m, n, k, l, distribution):
    res, *_ = _run_case(m, n, k, l, distribution)
    assert res.ok, res.report()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l", [(512, 3072, 7168, 1), (257, 65, 1088, 2), (100, 130, 320, 1)])
@pytest.mark.parametrize("plan_kwargs", [dict(normal_operands=True), dict(wgmma_depth=3),
                                         dict(wgmma_depth=3, units_per_cta=3)])
def test_variants_match_float64_reference(m, n, k, l, plan_kwargs):
    for distribution in ("competition", "wide"):
        res, plan, *_ = _run_case(m, n, k, l, distribution, **plan_kwargs)
        assert res.ok, f"{plan!r} {distribution}: {res.report()}"


@pytest.mark.gpu
@requires_gpu
def test_huge_alpha_falls_back_to_normal_operands():
    plan = D.DualGemmPlan(64, 64, 256, alpha1=2.0**110)
    assert plan.normal_operands
    assert D.DualGemmPlan(64, 64, 256).normal_operands is False


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("upc", [1, 5, 1000])
def test_split_choice_does_not_change_the_result(upc):
    assert_correct_and_repeatable(*_run_case(256, 640, 2048, 1, "wide", units_per_cta=upc))


def assert_correct_and_repeatable(res, plan, dev, c):
    """The run of _run_case matched the reference, and a second launch of the plan is bit-identical
    (deterministic reduction, counters left zero)."""
    assert res.ok, res.report()
    first = c.numpy().copy()
    plan.run(dev["a"], dev["b1"], dev["b2"], dev["sfa"], dev["sfb1"], dev["sfb2"], c)
    assert np.array_equal(first.view(np.uint16), c.numpy().view(np.uint16))


@pytest.mark.gpu
@requires_gpu
def test_public_forms_match_the_reference():
    import nvfp4rt
    from nvfp4rt import data, reference

    d = data.dual_gemm_data(192, 320, 512, 1, seed=None)
    ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    dev = {name: nvfp4rt.asarray(np.ascontiguousarray(d.physical(name)).view(np.uint8))
           for name in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")}
    c = nvfp4rt.from_numpy(np.full((1, 192, 320), np.nan, dtype=np.float16))
    v = {k: x.transpose(1, 2, 0) for k, x in dev.items()}
    nvfp4rt.dual_gemm_silu_raw(v["a"], v["b1"], v["b2"], v["sfa"], v["sfb1"], v["sfb2"], c.transpose(1, 2, 0))
    res = reference.check(c.numpy().transpose(1, 2, 0), ref)
    assert res.ok, res.report()
    # NVFP4Tensor form with tensor scales
    rng = np.random.default_rng()
    xa = nvfp4rt.quantize(rng.standard_normal((96, 256)).astype(np.float32), tensor_scale="auto")
    x1 = nvfp4rt.quantize(rng.standard_normal((80, 256)).astype(np.float32), tensor_scale="auto")
    x2 = nvfp4rt.quantize(rng.standard_normal((80, 256)).astype(np.float32), tensor_scale="auto")
    out = nvfp4rt.dual_gemm_silu(xa, x1, x2)
    res = reference.check(out.numpy(), reference.dual_gemm_silu_ref_tensors(xa, x1, x2)[:, :, 0])
    assert res.ok, res.report()


def test_bench_adapter_is_registered_with_the_competition_shapes():
    from nvfp4rt import bench

    op = bench.get_op("dual_gemm")()
    shapes = op.parse_shapes(None)
    assert [(s["m"], s["n"], s["k"]) for s in shapes] == [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096),
                                                          (512, 3072, 7168)]
    floors = [op.flops(s) / 752e6 for s in shapes]  # FACTS section 4: 40.0 / 80.0 / 17.1 / 60.0 us
    assert [round(f, 1) for f in floors] == [40.0, 80.0, 17.1, 60.0]
    with pytest.raises(ValueError, match="divisible by 64"):
        op.parse_shapes(["256,4096,100"])


def test_no_accumulator_sums_more_than_8192_k():
    """k = 16384 with many tiles: units per CTA capped at 32 stages (8192 k) per accumulator chain; with
    k <= 8192 the one-wave split is unchanged."""
    geo = D.dual_geometry(513, 4096, 16384, 2, 132)
    assert min(geo.units_per_cta, geo.k_stages) * 256 <= 8192
    assert D.dual_geometry(512, 4096, 7168, 1, 132).grid <= 132
