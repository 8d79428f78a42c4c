"""The A pre-decode (ptx/nvfp4_decode_a16.ptx, nvfp4rt.ops.decode_a16): its k order against the wgmma
GEMM's a16 model, the PTX (renders, assembles, same decode as the GEMM), argument errors, and on a GPU
the device A16 byte for byte against a16_reference."""
import re
from pathlib import Path

import numpy as np
import pytest

from nvfp4rt.launch import Pointer
from nvfp4rt.ops import decode_a16 as D
from nvfp4rt.ptxsource import parse_entries, ptx_dir, render

from conftest import requires_gpu, tool_module

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ptx_dir() / "nvfp4_decode_a16.ptx"
PTX = KERNEL.read_text()
GEMM_PTX = ptx_dir() / "gemm_nvfp4_wgmma.ptx"
# every finite e4m3 byte, both signs (0x7F and 0xFF are NaN: no bit-exact model for them)
FINITE_SCALES = np.array([c for c in range(256) if c & 0x7F != 0x7F], dtype=np.uint8)


def _random_a(rng, shape_rows, k):
    a = rng.integers(0, 256, size=shape_rows + (k // 2,), dtype=np.uint8)
    sfa = rng.choice(FINITE_SCALES, size=shape_rows + (k // 16,)).astype(np.uint8)
    return a, sfa


# ============================================================== the k order

def test_k_order_is_the_header_formula_and_a_permutation():
    order = D.a16_k_order()
    assert sorted(order) == list(range(32))
    pair_of_chunk = (0, 2, 1, 3)
    for e in range(32):
        c, w, h = e // 8, (e % 8) // 2, e % 2
        assert order[e] == 8 * w + pair_of_chunk[c] + 4 * h


@pytest.mark.parametrize("normal", [False, True])
def test_reference_equals_the_wgmma_models_a16_unswizzled(normal):
    """a16_reference of a 128 x k256 stage == the GEMM model's four a16 buffers (consumer decode), unswizzled."""
    import test_gemm_wgmma as GW  # the replay model of the kernel's A decode (tests/test_gemm_wgmma.py)

    rng = np.random.default_rng()
    a, b, sfa, sfb = GW.random_stage(rng, scale_codes=FINITE_SCALES)
    slot = GW.stage_slot(a, b, sfa, sfb)
    model = np.empty((128, 4, 128), dtype=np.uint8)  # row, k64 sub-step j, 128 bytes (64 fp16)
    for j in range(4):
        buf = GW.consumer_a16(slot, j, normal)
        for r in range(128):
            model[r, j] = buf[[GW.swz128(r, byte) for byte in range(128)]]
    ref = D.a16_reference(a, sfa, normal_operands=normal)
    assert ref.shape == (128, 256) and ref.dtype == np.float16
    got = ref.view(np.uint8).reshape(128, 4, 128)
    bad = np.argwhere(got != model)
    assert bad.size == 0, f"first mismatches (row, sub-step, byte): {bad[:5].tolist()}"


def test_reference_values_are_the_natural_decode_permuted():
    rng = np.random.default_rng()
    a, sfa = _random_a(rng, (3, 5), 128)
    from nvfp4rt.nvfp4 import decode_scales, fp4_values, unpack_fp4_codes

    natural = fp4_values(np.float64)[unpack_fp4_codes(a)] * np.repeat(decode_scales(sfa, np.float64), 16, axis=-1)
    normal = D.a16_reference(a, sfa, normal_operands=True)
    sub = D.a16_reference(a, sfa)
    inv = np.argsort(D.a16_k_order())
    back = normal.reshape(3, 5, 4, 32)[..., inv].reshape(3, 5, 128)
    assert np.array_equal(back.astype(np.float64), natural)  # exact, -0 == 0 here
    assert np.array_equal(sub.astype(np.float64) * 2.0**14, normal.astype(np.float64))
    # -0 (code 8) with a positive scale stays -0: the kernel's sign bit
    z = D.a16_reference(np.full((1, 16), 0x88, np.uint8), np.full((1, 2), 0x38, np.uint8))
    assert (z.view(np.uint16) == 0x8000).all()
    # 2-D and 3-D inputs agree, float8_e4m3fn scales equal their bytes
    import ml_dtypes

    assert np.array_equal(D.a16_reference(a[1], sfa[1].view(ml_dtypes.float8_e4m3fn)).view(np.uint16),
                          sub[1].view(np.uint16))


@pytest.mark.parametrize("a_shape,sf_shape,exc,match", [
    ((4, 8), (4, 1), ValueError, "multiple of 32"),
    ((4, 32), (4, 3), ValueError, r"sfa_bytes must have shape \(4, 4\)"),
    ((2, 4, 32), (4, 4), ValueError, "rank"),
    ((32,), (4,), ValueError, r"\[m, k/2\]"),
])
def test_reference_refuses_bad_shapes(a_shape, sf_shape, exc, match):
    with pytest.raises(exc, match=match):
        D.a16_reference(np.zeros(a_shape, np.uint8), np.zeros(sf_shape, np.uint8))


def test_reference_refuses_non_byte_arrays():
    with pytest.raises(TypeError, match="a_bytes"):
        D.a16_reference(np.zeros((4, 32), np.float16), np.zeros((4, 4), np.uint8))


# ============================================================== the PTX

def test_kernel_file_is_ascii_with_the_header_and_the_contract_signature():
    PTX.encode("ascii")
    assert PTX.splitlines()[0] == "// nvfp4rt: targets=sm_90a constants=NORMAL_OPERANDS=0,GROUPED=0"
    sig = parse_entries(render(PTX, "sm_90a", {"NORMAL_OPERANDS": 0, "GROUPED": 0}))["nvfp4_decode_a16"]
    assert [(p.name, p.ptx_type, p.is_pointer_hint) for p in sig.params] == [
        ("p_a", "u64", True), ("p_sfa", "u64", True), ("p_out", "u64", True), ("a_row", "u64", False),
        ("a_batch", "u64", False), ("sfa_row", "u64", False), ("sfa_batch", "u64", False), ("m", "u32", False),
        ("k", "u32", False), ("l", "u32", False)]


def _code(text):
    return [ln.split("//")[0].strip() for ln in text.splitlines() if ln.split("//")[0].strip()]


@pytest.mark.parametrize("normal", [0, 1])
def test_renders_with_pdl_trigger_first_and_the_2_14_multiply_only_when_normal(normal):
    code = _code(render(PTX, "sm_90a", {"NORMAL_OPERANDS": normal, "GROUPED": 0}))
    body = [ln for ln in code[code.index("{") + 1:] if not ln.startswith(".reg")]
    assert body[0] == "griddepcontrol.launch_dependents;"
    wait = body.index("griddepcontrol.wait;")
    first_global = min(i for i, ln in enumerate(body) if re.match(r"(ld|st)\.global", ln))
    assert wait < first_global
    two14 = [ln for ln in body if ln.startswith("mul.rn.f16x2") and ln.endswith("%two14;")]
    assert len(two14) == (4 if normal else 0)  # one pair of each of the four words per thread
    assert [ln for ln in body if re.match(r"mul\.rn\.f16x2 .*%as[01];", ln)] == [
        f"mul.rn.f16x2 %d{w}, %d{w}, %as{w // 2};" for w in range(4)]
    stores = [ln for ln in body if ln.startswith("st.global")]
    assert stores == ["st.global.v4.b32 [%dst], {%d0, %d1, %d2, %d3};"]  # one 16-byte chunk per thread


def _word_decodes(text):
    """The 11 integer instructions decoding each of %aw0..%aw3 (first occurrence of each)."""
    code = _code(text)
    out = {}
    for w in range(4):
        start = code.index(f"shf.l.wrap.b32 %xr, %aw{w}, %aw{w}, 3;")
        out[w] = [ln for ln in code[start:] if not ln.startswith(("mul.", "{{"))][:11]
    return out


_PAIR_MASK = np.uint32(0x8E008E00)


def _rotl(x, n):
    n = np.uint32(n % 32)
    return ((x << n) | (x >> np.uint32((32 - n) % 32))) if n else x


def _merge(w, mask):  # lop3 0xE4: mask ? w : rotl(w, 3), bit by bit
    return (w & np.uint32(mask)) | (_rotl(w, 3) & ~np.uint32(mask))


def _words_to_check():
    """Every 16-bit pattern in each half of a word, plus random words: each output half of a pair
    depends on two nibbles of each byte lane, so this covers every nibble combination per lane."""
    lo = np.arange(1 << 16, dtype=np.uint32)
    rnd = np.random.default_rng().integers(0, 1 << 32, 1 << 16, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([lo, lo << np.uint32(16), lo | (lo << np.uint32(16)), rnd])


def test_each_threads_pair_is_the_gemm_consumers_pair_of_its_chunk():
    """The GEMM's consumer decodes a word into h0..h3 with shifts (its text is checked below); this
    kernel's thread of chunk c computes one merge with the mask of its pair and a rotation: both give
    the same bits on every nibble pattern, for the (mask, rotation) the kernel picks per chunk."""
    gemm = _word_decodes(GEMM_PTX.read_text())[0]
    assert gemm == ["shf.l.wrap.b32 %xr, %aw0, %aw0, 3;", "lop3.b32 %we, %aw0, %xr, 0x07070707, 0xE4;",
                    "lop3.b32 %wo, %aw0, %xr, 0x70707070, 0xE4;", "shl.b32 %xr, %we, 9;",
                    "and.b32 %d00, %xr, 0x8E008E00;", "shl.b32 %xr, %wo, 5;", "and.b32 %d10, %xr, 0x8E008E00;",
                    "shl.b32 %xr, %we, 1;", "and.b32 %d20, %xr, 0x8E008E00;", "shf.r.wrap.b32 %xr, %wo, %wo, 3;",
                    "and.b32 %d30, %xr, 0x8E008E00;"]
    w = _words_to_check()
    we, wo = _merge(w, 0x07070707), _merge(w, 0x70707070)
    gemm_pairs = {0: (we << np.uint32(9)) & _PAIR_MASK, 1: (wo << np.uint32(5)) & _PAIR_MASK,
                  2: (we << np.uint32(1)) & _PAIR_MASK, 3: _rotl(wo, 29) & _PAIR_MASK}
    # the kernel's per-thread constants, read from its text: chunk c -> (merge mask, rotation)
    code = _code(PTX)
    assert "selp.b32 %half_mask, 0x07070707, 0x70707070, %p_low;" in code and "setp.lt.u32 %p_low, %chunk, 2;" in code
    rot_bytes = int(next(ln for ln in code if ln.startswith("mov.b32 %pair_rot,")).split(",")[1].rstrip(";"), 0)
    chunk_pair = (0, 2, 1, 3)  # the header's chunk order: h0, h2, h1, h3
    for c in range(4):
        mask = 0x07070707 if c < 2 else 0x70707070
        rot = (rot_bytes >> (8 * c)) & 0xFF
        mine = _rotl(_merge(w, mask), rot) & _PAIR_MASK
        assert np.array_equal(mine, gemm_pairs[chunk_pair[c]]), f"chunk {c}"
    for w in range(4):  # and every word runs exactly that: merge under %half_mask, rotate by %pair_rot, mask
        at = code.index(f"shf.l.wrap.b32 %xr, %aw{w}, %aw{w}, 3;")
        assert code[at + 1:at + 4] == [f"lop3.b32 %xr, %aw{w}, %xr, %half_mask, 0xE4;",
                                       "shf.l.wrap.b32 %xr, %xr, %xr, %pair_rot;", f"and.b32 %d{w}, %xr, 0x8E008E00;"]


_HAVE_PTXAS = __import__("nvfp4rt.assemble", fromlist=["find_ptxas"]).find_ptxas() is not None


@pytest.mark.skipif(not _HAVE_PTXAS, reason="ptxas not found")
@pytest.mark.parametrize("normal", [0, 1])
def test_kernel_assembles_without_spills_in_32_registers(normal):
    from nvfp4rt.assemble import assemble

    fn = assemble(KERNEL, "sm_90a", {"NORMAL_OPERANDS": normal, "GROUPED": 0}).functions["nvfp4_decode_a16"]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0
    assert fn.registers <= 32  # 8 CTAs x 256 threads per SM (.minnctapersm 8)


# ============================================================== host checks (no GPU)

def test_decode_grid_is_one_wave_of_at_most_8_ctas_per_sm():
    assert D.decode_grid(1, 132) == 1
    assert D.decode_grid(64, 132) == 1 and D.decode_grid(65, 132) == 2  # 64 items (4 threads each) per CTA
    assert D.decode_grid(128 * 256, 132) == 512
    assert D.decode_grid(10**8, 132) == 8 * 132
    with pytest.raises(ValueError, match="items"):
        D.decode_grid(0, 132)


GOOD = dict(m=128, k=256, l=1, a_row=128, a_batch=128 * 128, sfa_row=16, sfa_batch=2048)


@pytest.mark.parametrize("over,exc,match", [
    (dict(k=96), ValueError, "k must be a multiple of 64"),
    (dict(m=0), ValueError, "m must be a positive int"),
    (dict(l=1.0), ValueError, "l must be a positive int"),
    (dict(a_row=136), ValueError, "a_row must be a multiple of 16"),
    (dict(a_row=112), ValueError, "a_row must be at least k/2"),
    (dict(a_batch=8), ValueError, "a_batch must be a multiple of 16"),
    (dict(sfa_row=15), ValueError, "sfa_row must be at least k/16"),
    (dict(sfa_batch=-1), ValueError, "sfa_batch must be a non-negative int"),
    (dict(sfa_row=True), ValueError, "sfa_row must be a non-negative int"),
    (dict(m=65536, k=65536, l=16, a_row=32768, sfa_row=4096), ValueError, "32-bit index"),
    (dict(normal_operands=1), TypeError, "normal_operands must be a bool"),
    (dict(programmatic="yes"), TypeError, "programmatic must be a bool"),
    (dict(grid=0), ValueError, "grid must be a positive int"),
    (dict(device="cuda:0"), TypeError, "device must be"),
])
def test_bad_plan_arguments_raise_before_any_gpu_work(over, exc, match):
    kw = {**GOOD, **over}
    with pytest.raises(exc, match=match):
        D.DecodeA16Plan(kw.pop("m"), kw.pop("k"), kw.pop("l"), kw.pop("a_row"), kw.pop("a_batch"),
                        kw.pop("sfa_row"), kw.pop("sfa_batch"), **kw)


class _Out:
    def __init__(self, ptr, nbytes, dtype=np.float16, contiguous=True):
        self.ptr, self.nbytes, self.dtype, self.is_c_contiguous = ptr, nbytes, np.dtype(dtype), contiguous


def _hostless_plan():
    """A plan's host-side state without a device (for the run() argument checks)."""
    plan = D.DecodeA16Plan.__new__(D.DecodeA16Plan)
    plan.m, plan.k, plan.l, plan.out_bytes = 128, 256, 1, 2 * 128 * 256
    return plan


@pytest.mark.parametrize("a,sfa,out,exc,match", [
    (Pointer(0x1000), Pointer(0x2001), _Out(0x3000, 65536), None, None),
    (0x1000, Pointer(0x2000), _Out(0x3000, 65536), TypeError, "a must be a device array"),
    (Pointer(0x1008), Pointer(0x2000), _Out(0x3000, 65536), ValueError, "a must be 16-byte aligned"),
    (Pointer(0x1000), Pointer(0), _Out(0x3000, 65536), ValueError, "sfa is a null device pointer"),
    (Pointer(0x1000), Pointer(0x2000), _Out(0x3004, 65536), ValueError, "out must be 16-byte aligned"),
    (Pointer(0x1000), Pointer(0x2000), _Out(0x3000, 65534), ValueError, "out holds 65534 bytes"),
    (Pointer(0x1000), Pointer(0x2000), _Out(0x3000, 65536, np.float32), TypeError, "2-byte elements"),
    (Pointer(0x1000), Pointer(0x2000), _Out(0x3000, 65536, contiguous=False), ValueError, "C-contiguous"),
])
def test_run_arguments_are_checked(a, sfa, out, exc, match):
    plan = _hostless_plan()
    if exc is None:
        assert plan._pointers(a, sfa, out) == (0x1000, 0x2001, 0x3000)
    else:
        with pytest.raises(exc, match=match):
            plan._pointers(a, sfa, out)


# ============================================================== GPU

def _placed(x: np.ndarray, row: int, batch: int, offset: int = 0) -> np.ndarray:
    """Flat host bytes holding x [l][m][cols] at offset + b*batch + r*row (the rest 0xA5)."""
    l, m, cols = x.shape
    buf = np.full(offset + (l - 1) * batch + (m - 1) * row + cols, 0xA5, np.uint8)
    for bi in range(l):
        for r in range(m):
            start = offset + bi * batch + r * row
            buf[start:start + cols] = x[bi, r]
    return buf


def _run_case(m, k, l, distribution, *, strided=False, normal=False, grid=None, programmatic=False):
    import nvfp4rt
    from nvfp4rt import data

    d = data.gemm_data(m, 1, k, l, seed=None, distribution=distribution)
    a = np.ascontiguousarray(d.physical("a")).view(np.uint8)       # (l, m, k/2)
    sfa = np.ascontiguousarray(d.physical("sfa")).view(np.uint8)   # (l, m, k/16)
    ref = D.a16_reference(a, sfa, normal_operands=normal)
    if strided:  # padded rows and batches, an odd scale row/batch stride and a scale base at an odd address
        a_row, a_batch = k // 2 + 48, m * (k // 2 + 48) + 64
        sfa_row, sfa_batch, sf_off = k // 16 + 3, m * (k // 16 + 3) + 5, 1
    else:
        a_row, a_batch, sfa_row, sfa_batch, sf_off = k // 2, m * k // 2, k // 16, m * k // 16, 0
    a_dev = nvfp4rt.from_numpy(_placed(a, a_row, a_batch))
    sf_dev = nvfp4rt.from_numpy(_placed(sfa, sfa_row, sfa_batch, sf_off))
    guard = 64  # NaN fp16 past the end must stay untouched
    out = nvfp4rt.from_numpy(np.full(l * m * k + guard, np.nan, np.float16))
    plan = D.DecodeA16Plan(m, k, l, a_row, a_batch, sfa_row, sfa_batch, normal_operands=normal, grid=grid,
                           programmatic=programmatic)
    plan.run(a_dev, Pointer(sf_dev.ptr + sf_off), out)
    got = out.numpy()
    assert (got[l * m * k:].view(np.uint16) == np.float16(np.nan).view(np.uint16)).all(), "wrote past A16"
    got = got[:l * m * k].reshape(l, m, k)
    bad = np.argwhere(got.view(np.uint16) != ref.view(np.uint16))
    assert bad.size == 0, (f"{bad.shape[0]} of {ref.size} fp16 differ, first (batch, row, k): {bad[:5].tolist()}, "
                           f"got {got.view(np.uint16)[tuple(bad[0])]:#06x} want {ref.view(np.uint16)[tuple(bad[0])]:#06x}")
    return plan, a_dev, sf_dev, out, ref


GPU_SHAPES = [(1, 64, 1), (7, 192, 3), (128, 16384, 1), (300, 192, 3), (128, 64, 3), (1, 16384, 3), (7, 16384, 1),
              (300, 16384, 3), (128, 192, 1), (300, 64, 1)]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,k,l", GPU_SHAPES)
@pytest.mark.parametrize("distribution", ["competition", "wide"])
def test_device_a16_equals_the_reference_bytes(m, k, l, distribution):
    _run_case(m, k, l, distribution)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,k,l", [(7, 192, 3), (300, 16384, 3), (1, 64, 1), (128, 64, 3)])
@pytest.mark.parametrize("distribution", ["competition", "wide"])
def test_non_contiguous_strides_and_odd_scale_addresses(m, k, l, distribution):
    _run_case(m, k, l, distribution, strided=True)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("kw", [dict(normal=True), dict(grid=1), dict(grid=3, strided=True), dict(programmatic=True)])
def test_variants_normal_operands_small_grid_and_pdl(kw):
    for distribution in ("competition", "wide"):
        _run_case(300, 192, 3, distribution, **kw)


@pytest.mark.gpu
@requires_gpu
def test_plan_repoints_moved_buffers():
    import nvfp4rt

    plan, a_dev, sf_dev, out, ref = _run_case(128, 256, 2, "wide")
    out2 = nvfp4rt.from_numpy(np.full(2 * 128 * 256, np.nan, np.float16))
    a2 = nvfp4rt.from_numpy(np.zeros(a_dev.nbytes, np.uint8))  # all zeros: A16 is all +0
    plan.run(a2, sf_dev, out2)
    assert (out2.numpy().view(np.uint16) == 0).all()
    plan.run(a_dev, sf_dev, out2)  # back to the first A, into the new output
    assert np.array_equal(out2.numpy().view(np.uint16), ref.reshape(-1).view(np.uint16))


@pytest.mark.gpu
@requires_gpu
def test_both_decode_kernels_ask_for_the_gemms_shared_memory_carveout():
    """The decode runs just before a GEMM that needs nearly all of the SM's shared memory (PDL): its kernels
    (plain, grouped and wide grouped) must prefer the maximum carveout, or the SM has to idle to change its split."""
    from nvfp4rt import driver
    from nvfp4rt.ops.decode_a16 import DECODE_CARVEOUT, _grouped_kernel, _kernel, _wide_kernel

    assert DECODE_CARVEOUT == 100
    attr = driver.raw.CUfunction_attribute.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
    ordinal = driver.device().ordinal
    for kern in (_kernel(ordinal, False), _kernel(ordinal, True), _grouped_kernel(ordinal), _wide_kernel(ordinal)):
        assert driver.call("cuFuncGetAttribute", attr, kern.function) == DECODE_CARVEOUT


WIDE_GPU_SHAPES = [
    [(1, 64)],                                             # one row, one piece pair
    [(40, 2048), (76, 2048), (168, 2048), (72, 2048)],     # competition-like rows
    [(5, 1088), (300, 1088), (1, 1088)],                   # the last k256 chunk holds 2 pieces
    [(1 + i % 5, 320) for i in range(70)],                 # 70 groups: the group search's ballots over 3 blocks
    [(1000, 7168)] * 3,                                    # several rounds per warp
]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shapes", WIDE_GPU_SHAPES)
@pytest.mark.parametrize("distribution", ["competition", "wide"])
def test_wide_grouped_decode_writes_the_item_decodes_bytes(shapes, distribution):
    """The wide decode and the item decode on the same table: every group's A16 is a16_reference's, bit for bit,
    from both, with padded strides and odd scale bases, and neither writes past the groups' A16."""
    import nvfp4rt
    from nvfp4rt import data

    d = data.grouped_gemm_data([(m, 8, k) for m, k in shapes], seed=None, distribution=distribution)
    a_ptrs, sf_ptrs, a_rows, sf_rows, refs, keep = [], [], [], [], [], []
    for grp, (m, k) in zip(d.groups, shapes):
        a = np.ascontiguousarray(grp.physical("a")).view(np.uint8)[0]       # (m, k/2)
        sfa = np.ascontiguousarray(grp.physical("sfa")).view(np.uint8)[0]   # (m, k/16)
        a_dev = nvfp4rt.from_numpy(_placed(a[None], k // 2 + 16, 0))
        sf_dev = nvfp4rt.from_numpy(_placed(sfa[None], k // 16 + 3, 0, 1))
        keep += [a_dev, sf_dev]
        a_ptrs.append(a_dev.ptr)
        sf_ptrs.append(sf_dev.ptr + 1)
        a_rows.append(k // 2 + 16)
        sf_rows.append(k // 16 + 3)
        refs.append(D.a16_reference(a, sfa).view(np.uint16))
    for wide in (True, False):
        dec = D.GroupedDecodeA16(shapes, wide=wide)
        table = nvfp4rt.from_numpy(dec.table(a_ptrs, sf_ptrs, a_rows, sf_rows).view(np.uint8).ravel())
        out = nvfp4rt.from_numpy(np.full(dec.out_bytes // 2 + 64, 0x7E00, np.uint16))
        dec.launch(table.ptr, out.ptr, None)
        got = out.numpy()
        assert (got[dec.out_bytes // 2:] == 0x7E00).all(), f"wide={wide}: wrote past A16"
        for g, ((m, k), ref) in enumerate(zip(shapes, refs)):
            off = dec.offsets[g] // 2
            assert np.array_equal(got[off:off + m * k].reshape(m, k), ref), f"wide={wide} group {g} {(m, k)}"


# ============================================================== the PTX itself, interpreted (no GPU)

class _Interp:
    """A tiny interpreter for the instructions nvfp4_decode_a16 uses: runs one thread's program text."""

    def __init__(self, text, params, mem):
        self.code = []
        self.labels = {}
        body = _code(text)
        body = body[body.index("{") + 1:body.index("}", len(body) - 2)]
        for ln in body:
            if ln.startswith(".reg"):
                continue
            if ln.endswith(":"):
                self.labels[ln[:-1]] = len(self.code)
            else:
                self.code.append(ln.rstrip(";"))
        self.params, self.mem = params, mem
        self.prefetches = []  # (thread, CTA, address, bytes) of every cp.async.bulk.prefetch.L2

    def _val(self, tok, r):
        tok = tok.strip()
        if tok.startswith("%"):
            return r[tok]
        return int(tok, 0)

    def run(self, tid, ctaid, nctaid):
        """Run one thread to its end (a program without warp-collective instructions)."""
        for _ in self.steps(tid, ctaid, nctaid):
            raise NotImplementedError("a warp-collective instruction: use run_warp")

    def run_warp(self, warp, ctaid, nctaid):
        """Run the 32 lanes of warp ``warp`` together: each runs alone up to its next vote.sync.ballot or
        bar.warp.sync, which must be the same instruction for all 32; the ballot gets every lane's predicate."""
        lanes = [self.steps(32 * warp + i, ctaid, nctaid) for i in range(32)]
        waits = [next(lane, None) for lane in lanes]
        while any(w is not None for w in waits):
            assert all(w is not None and w[:2] == waits[0][:2] for w in waits), f"warp {warp} diverged: {waits}"
            ballot = sum(1 << i for i, w in enumerate(waits) if w[2])
            waits = [_send(lane, ballot) for lane in lanes]

    def steps(self, tid, ctaid, nctaid):
        """One thread's run as a generator: at a vote.sync.ballot it yields ("ballot", pc, predicate) and takes
        the warp's ballot; at a bar.warp.sync it yields ("sync", pc, False)."""
        r = {"%tid.x": tid, "%ctaid.x": ctaid, "%nctaid.x": nctaid, "%laneid": tid % 32}
        m32, pc, mem = 0xFFFFFFFF, 0, self.mem
        f16 = lambda h: np.array([h], np.uint16).view(np.float16)[0]  # noqa: E731
        b16 = lambda x: int(np.array([x], np.float16).view(np.uint16)[0])  # noqa: E731
        while pc < len(self.code):
            ln = self.code[pc]
            pc += 1
            if ln.startswith("@"):
                pred, ln = ln.split(" ", 1)
                if bool(r[pred.lstrip("@!")]) == pred.startswith("@!"):
                    continue
            op, _, rest = ln.partition(" ")
            args = [a.strip() for a in re.split(r",(?![^{]*})", rest)] if rest else []
            v = lambda i: self._val(args[i], r)  # noqa: E731
            if op == "ret":
                return
            if op.startswith("griddepcontrol"):
                continue
            if op in ("bra", "bra.uni"):
                pc = self.labels[args[0]]
            elif op == "ld.param.u64" or op == "ld.param.u32":
                r[args[0]] = self.params[args[1].strip("[]")]
            elif op.startswith("cvta") or op == "cvt.u64.u32":
                r[args[0]] = v(1)
            elif op == "mov.u32":
                r[args[0]] = v(1) & m32
            elif op == "mov.u64":
                r[args[0]] = v(1) % 2**64
            elif op == "mov.b32":
                if args[0].startswith("{"):  # unpack a b32 into two b16
                    lo, hi = args[0].strip("{}").split(", ")
                    r[lo], r[hi] = v(1) & 0xFFFF, v(1) >> 16
                elif args[1].startswith("{"):  # pack two b16
                    lo, hi = args[1].strip("{}").split(", ")
                    r[args[0]] = r[lo] | (r[hi] << 16)
                else:
                    r[args[0]] = v(1) & m32
            elif op in ("shr.u32",):
                r[args[0]] = v(1) >> v(2)
            elif op in ("shl.b32",):
                r[args[0]] = (v(1) << v(2)) & m32
            elif op == "shl.b16":
                r[args[0]] = (v(1) << v(2)) & 0xFFFF
            elif op in ("or.b16",):
                r[args[0]] = v(1) | v(2)
            elif op in ("mul.lo.u32", "add.u32", "sub.u32", "div.u32", "and.b32"):
                a, b = v(1), v(2)
                fn = {"mul.lo.u32": int.__mul__, "add.u32": int.__add__, "sub.u32": int.__sub__,
                      "div.u32": int.__floordiv__, "and.b32": int.__and__}[op]
                r[args[0]] = fn(a, b) & m32
            elif op in ("mul.lo.u64", "add.u64", "mul.wide.u32"):
                a, b = v(1), v(2)
                r[args[0]] = (a * b if op != "add.u64" else a + b) % 2**64
            elif op == "mad.lo.u64":
                r[args[0]] = (v(1) * v(2) + v(3)) % 2**64
            elif op == "selp.b32":
                r[args[0]] = v(1) if r[args[3]] else v(2)
            elif op in ("setp.ge.u32", "setp.lt.u32", "setp.ne.u32", "setp.le.u32", "setp.eq.u32"):
                a, b = v(1), v(2)
                r[args[0]] = {"setp.ge.u32": a >= b, "setp.lt.u32": a < b, "setp.ne.u32": a != b,
                              "setp.le.u32": a <= b, "setp.eq.u32": a == b}[op]
            elif op == "vote.sync.ballot.b32":
                assert v(2) == m32
                r[args[0]] = yield ("ballot", pc, bool(r[args[1]]))
            elif op == "bar.warp.sync":
                assert v(0) == m32
                yield ("sync", pc, False)
            elif op == "popc.b32":
                r[args[0]] = bin(v(1)).count("1")
            elif op == "mad.lo.u32":
                r[args[0]] = (v(1) * v(2) + v(3)) & m32
            elif op == "cp.async.bulk.prefetch.L2.global":
                self.prefetches.append((tid, ctaid, r[args[0].strip("[]")], v(1)))
            elif op in ("shf.l.wrap.b32", "shf.r.wrap.b32"):
                assert args[1] == args[2]
                n = v(3) % 32
                x = v(1)
                r[args[0]] = (((x << n) | (x >> (32 - n))) if op.startswith("shf.l") else
                              ((x >> n) | (x << (32 - n)))) & m32
            elif op == "lop3.b32":
                a, b, c, lut = v(1), v(2), v(3), v(4)
                out = 0
                for bit in range(32):
                    idx = (((a >> bit) & 1) << 2) | (((b >> bit) & 1) << 1) | ((c >> bit) & 1)
                    out |= ((lut >> idx) & 1) << bit
                r[args[0]] = out
            elif op == "cvt.rn.f16x2.e4m3x2":
                x = v(1)
                lo, hi = (b16(float(np.array([byte], np.uint8).view(E4M3_DT)[0])) for byte in (x & 0xFF, x >> 8))
                r[args[0]] = lo | (hi << 16)
            elif op == "mul.rn.f16x2":
                a, b = v(1), v(2)
                lo = b16(f16(a & 0xFFFF) * f16(b & 0xFFFF))
                hi = b16(f16(a >> 16) * f16(b >> 16))
                r[args[0]] = lo | (hi << 16)
            elif op in ("ld.global.nc.v4.b32", "ld.global.nc.u8", "ld.global.nc.u32", "ld.global.nc.v2.u32",
                        "ld.global.nc.v2.u64", "ld.global.nc.u64"):
                base, _, off = args[1].strip("[]").partition("+")
                addr = r[base] + (int(off) if off else 0)
                if op == "ld.global.nc.u8":
                    r[args[0]] = int(mem[addr])
                elif op in ("ld.global.nc.u32", "ld.global.nc.v2.u32", "ld.global.nc.v2.u64", "ld.global.nc.u64"):
                    size = 8 if op.endswith("u64") else 4
                    names = args[0].strip("{}").split(", ")
                    assert addr % (size * len(names)) == 0, hex(addr)
                    vals = mem[addr:addr + size * len(names)].view(np.uint64 if size == 8 else np.uint32)
                    for name, w in zip(names, vals):
                        r[name] = int(w)
                else:
                    assert addr % 16 == 0, hex(addr)
                    words = mem[addr:addr + 16].view(np.uint32)
                    for name, w in zip(args[0].strip("{}").split(", "), words):
                        r[name] = int(w)
            elif op == "st.global.v4.b32":
                base, _, off = args[0].strip("[]").partition("+")
                addr = r[base] + (int(off) if off else 0)
                assert addr % 16 == 0, hex(addr)
                vals = [r[n] for n in args[1].strip("{}").split(", ")]
                mem[addr:addr + 16] = np.array(vals, np.uint32).view(np.uint8)
            else:
                raise NotImplementedError(ln)


def _send(lane, value):
    """Resume a thread generator with ``value``; its next yield, or None once it has ended."""
    try:
        return lane.send(value)
    except StopIteration:
        return None


E4M3_DT = np.dtype(__import__("ml_dtypes").float8_e4m3fn)


@pytest.mark.parametrize("normal", [0, 1])
def test_the_ptx_interpreted_writes_the_reference(normal):
    """Run the kernel's own text, thread by thread (grid of 1 CTA: the grid-stride loop runs 5 times), with
    padded strides and an odd scale base, and compare every output byte with a16_reference."""
    rng = np.random.default_rng()
    m, k, l = 7, 192, 7  # 294 items > 64 per CTA
    a, sfa = _random_a(rng, (l, m), k)
    a_row, a_batch, sfa_row, sfa_batch = k // 2 + 16, m * (k // 2 + 16) + 32, k // 16 + 3, m * (k // 16 + 3) + 1
    base_a, base_sf, base_out = 0x1000, 0x9001, 0x10000
    mem = np.full(base_out + 2 * l * m * k + 64, 0xA5, np.uint8)
    mem[base_a:base_a + (l - 1) * a_batch + (m - 1) * a_row + k // 2] = _placed(a, a_row, a_batch)
    mem[base_sf:base_sf + (l - 1) * sfa_batch + (m - 1) * sfa_row + k // 16] = _placed(sfa, sfa_row, sfa_batch)
    params = dict(p_a=base_a, p_sfa=base_sf, p_out=base_out, a_row=a_row, a_batch=a_batch, sfa_row=sfa_row,
                  sfa_batch=sfa_batch, m=m, k=k, l=l)
    interp = _Interp(render(PTX, "sm_90a", {"NORMAL_OPERANDS": normal, "GROUPED": 0}), params, mem)
    for tid in range(D.THREADS):
        interp.run(tid, 0, 1)
    got = mem[base_out:base_out + 2 * l * m * k].view(np.uint16).reshape(l, m, k)
    want = D.a16_reference(a, sfa, normal_operands=bool(normal)).view(np.uint16)
    assert np.array_equal(got, want)
    assert (mem[base_out + 2 * l * m * k:] == 0xA5).all()  # nothing past A16


def _grouped_inputs(shapes, base_out):
    """A grouped decode's host object (no device) and memory holding each group's random A and scales from 0x2000 up
    (padded row strides, scale bases one byte past 16), filled with 0xA5 up to the end of A16 at ``base_out``:
    (decoder, memory, a pointers, sfa pointers, a row strides, sfa row strides, each group's reference A16)."""
    rng = np.random.default_rng()
    dec = D.GroupedDecodeA16.__new__(D.GroupedDecodeA16)
    starts, items = [], 0
    for m, k in shapes:
        starts.append(items)
        items += m * k // 32
    dec.shapes, dec.item_starts, dec.items = shapes, tuple(starts), items
    mem = np.full(base_out + 64 * items + 64, 0xA5, np.uint8)
    a_ptrs, sf_ptrs, a_rows, sf_rows, wants, at = [], [], [], [], [], 0x2000
    for m, k in shapes:
        a, sfa = _random_a(rng, (1, m), k)
        a_row, sfa_row = k // 2 + 16, k // 16 + 3
        mem[at:at + (m - 1) * a_row + k // 2] = _placed(a, a_row, 0)
        a_ptrs.append(at)
        at += m * a_row + 48
        mem[at + 1:at + 1 + (m - 1) * sfa_row + k // 16] = _placed(sfa, sfa_row, 0)
        sf_ptrs.append(at + 1)
        at = (at + m * sfa_row + 64 + 15) // 16 * 16
        a_rows.append(a_row)
        sf_rows.append(sfa_row)
        wants.append(D.a16_reference(a, sfa).view(np.uint16)[0])
    assert at < base_out
    return dec, mem, a_ptrs, sf_ptrs, a_rows, sf_rows, wants


def test_the_grouped_ptx_interpreted_writes_every_groups_reference():
    """GROUPED=1 on the kernel's own text: three groups with their own k, padded strides and odd scale
    bases, a grid of 1 CTA (each thread walks the table across groups); every group's A16 lands at
    its offset, bit for bit, and nothing past the last.  The table lists five L2 warm-up regions (one empty,
    one unaligned): threads 0..3 of CTA 0 prefetch the four whole ones, trimmed to 16 bytes, once each, and
    the threads of a second CTA prefetch nothing."""
    shapes = [(12, 64), (20, 192), (36, 128)]  # 24 + 120 + 144 = 288 items > 64 per CTA
    table_at, base_out = 0x100, 0x40000
    dec, mem, a_ptrs, sf_ptrs, a_rows, sf_rows, wants = _grouped_inputs(shapes, base_out)
    starts, items = dec.item_starts, dec.items
    warm = [(0x7000_0000, 448 * 5 + 24), (0x7100_0008, 100), (0x7200_0000, 8), (0x7300_0000, 16),
            (0x7400_0000, 2**20)]
    table = dec.table(a_ptrs, sf_ptrs, a_rows, sf_rows, warm=warm).view(np.uint8).ravel()
    assert table.size == D.table_bytes(len(shapes), 4) == 64 * (len(shapes) + 2)
    mem[table_at:table_at + table.size] = table
    interp = _Interp(render(PTX, "sm_90a", {"NORMAL_OPERANDS": 0, "GROUPED": 1}),
                     dict(p_table=table_at, p_out=base_out, total_items=items), mem)
    for tid in range(D.THREADS):
        interp.run(tid, 0, 1)
    assert interp.prefetches == [(0, 0, 0x7000_0000, 448 * 5 + 16), (1, 0, 0x7100_0010, 80),
                                 (2, 0, 0x7300_0000, 16), (3, 0, 0x7400_0000, 2**20)]
    other = _Interp(render(PTX, "sm_90a", {"NORMAL_OPERANDS": 0, "GROUPED": 1}),
                    dict(p_table=table_at, p_out=base_out, total_items=0), mem.copy())
    for tid in range(8):
        other.run(tid, 1, 2)
    assert other.prefetches == []
    for g, ((m, k), want) in enumerate(zip(shapes, wants)):
        off = base_out + 64 * starts[g]
        assert np.array_equal(mem[off:off + 2 * m * k].view(np.uint16).reshape(m, k), want), f"group {g}"
    assert (mem[base_out + 64 * items:] == 0xA5).all()


def test_warm_regions_are_trimmed_to_whole_16_bytes_and_checked():
    """cp.async.bulk.prefetch.L2 wants a 16-byte aligned address and size: a region keeps its whole 16-byte
    blocks only; none left gives no record; bad regions and too many raise before any launch."""
    assert D.warm_region(0x1000, 448) == (0x1000, 448)
    assert D.warm_region(0x1004, 60) == (0x1010, 48)
    assert D.warm_region(0x1004, 20) is None and D.warm_region(0x1000, 0) is None
    with pytest.raises(ValueError, match="warm-up region"):
        D.warm_region(-16, 64)
    dec = D.GroupedDecodeA16.__new__(D.GroupedDecodeA16)
    dec.shapes, dec.item_starts, dec.items = [(4, 64)], (0,), 8
    plain = dec.table([0x100], [0x200], [32], [4])
    assert plain.shape == (2, 8) and plain.view(np.uint32)[0, 12:14].tolist() == [0, 0]  # no list: no prefetch
    with pytest.raises(ValueError, match="at most 256 regions"):
        dec.table([0x100], [0x200], [32], [4], warm=[(0x1000 * (i + 1), 64) for i in range(257)])
    full = dec.table([0x100], [0x200], [32], [4], warm=[(0x1000 * (i + 1), 64) for i in range(256)])
    assert full.nbytes == D.table_bytes(1, 256) == 64 * (2 + 64)


# ============================================================== the wide grouped decode

WIDE_PTX = (ROOT / "ptx" / "nvfp4_decode_a16_wide.ptx").read_text()


def _wide_generator():
    return tool_module("gen_decode_a16_wide_ptx")


def test_wide_kernel_is_the_generators_output_with_the_modules_geometry():
    gen = _wide_generator()
    assert WIDE_PTX == gen.generate(), "stale: run python3 tools/gen_decode_a16_wide_ptx.py"
    assert (gen.TASKS, gen.THREADS, gen.ENTRY) == (D.WIDE_TASKS, D.WIDE_THREADS, D._WIDE_ENTRY)
    sig = parse_entries(render(WIDE_PTX, "sm_90a", {}))[D._WIDE_ENTRY]
    assert [p.name for p in sig.params] == ["p_table", "p_out", "groups", "rows", "pieces", "chunks"]
    code = _code(render(WIDE_PTX, "sm_90a", {}))
    assert code.index("griddepcontrol.launch_dependents;") < code.index("griddepcontrol.wait;") < min(
        i for i, ln in enumerate(code) if "ld.global" in ln)


@pytest.mark.skipif(not _HAVE_PTXAS, reason="ptxas (CUDA toolkit) not found")
def test_wide_kernel_assembles_for_1024_threads_without_spills():
    from nvfp4rt.assemble import assemble

    f = assemble(WIDE_PTX, "sm_90a", {}).functions[D._WIDE_ENTRY]
    assert f.registers <= 65536 // D.WIDE_THREADS and f.spill_stores == f.spill_loads == f.stack_frame == 0


@pytest.mark.parametrize("shapes, ctas", [
    ([(5, 1088), (33, 1088), (2, 1088)], 1),            # 200 tasks, 2 rounds; the last k256 chunk has 2 pieces
    ([(1 + i % 3, 320) for i in range(40)], 2),          # 40 groups: the group search's ballots over 2 blocks
])
def test_the_wide_ptx_interpreted_writes_every_groups_reference(shapes, ctas):
    """The wide kernel's own text, warp by warp with the ballots of all 32 lanes, on the table the plan builds:
    every group's A16 bit for bit at its offset, nothing past the last, and the same table the item decode reads."""
    table_at, base_out = 0x100, 0x40000
    dec, mem, a_ptrs, sf_ptrs, a_rows, sf_rows, wants = _grouped_inputs(shapes, base_out)
    table = dec.table(a_ptrs, sf_ptrs, a_rows, sf_rows).view(np.uint8).ravel()
    assert table.view(np.uint32).reshape(-1, 16)[:len(shapes), 2].tolist() == np.cumsum(
        [0] + [m for m, _ in shapes[:-1]]).tolist()  # u32[2]: the groups' row starts
    mem[table_at:table_at + table.size] = table
    k = shapes[0][1]
    rows = sum(m for m, _ in shapes)
    interp = _Interp(render(WIDE_PTX, "sm_90a", {}), dict(p_table=table_at, p_out=base_out, groups=len(shapes),
                                                         rows=rows, pieces=k // 32, chunks=-(-k // 256)), mem)
    for cta in range(ctas):
        for warp in range(D.WIDE_THREADS // 32):
            interp.run_warp(warp, cta, ctas)
    for g, ((m, k), want) in enumerate(zip(shapes, wants)):
        off = base_out + 64 * dec.item_starts[g]
        assert np.array_equal(mem[off:off + 2 * m * k].view(np.uint16).reshape(m, k), want), f"group {g}"
    assert (mem[base_out + 64 * dec.items:] == 0xA5).all()


def test_wide_decode_needs_groups_that_share_k():
    assert D.shares_k([(3, 256), (5, 256)]) and D.shares_k([(3, 8, 256), (5, 16, 256)])
    assert not D.shares_k([(3, 256), (5, 512)])
    with pytest.raises(ValueError, match="wide: every group must share k"):
        D.GroupedDecodeA16([(3, 256), (5, 512)], wide=True)
    with pytest.raises(ValueError, match="wide must be True or False"):
        D.GroupedDecodeA16([(3, 256)], wide=1)
    dec = D.GroupedDecodeA16.__new__(D.GroupedDecodeA16)
    dec.shapes, dec.item_starts, dec.items, dec.wide = [(4, 64)], (0,), 8, True
    dec.table([0x100], [0x200], [32], [4])  # no list: fine
    with pytest.raises(ValueError, match="the wide decode reads no L2 warm-up list"):
        dec.table([0x100], [0x200], [32], [4], warm=[(0x1000, 64)])
