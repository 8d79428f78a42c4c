"""The one-launch grouped GEMM (ptx/grouped_gemm_nvfp4_wgmma.ptx, nvfp4rt.ops.grouped_gemm).

CPU part:
* the consumer setup and unit loop are byte-for-byte the wgmma GEMM's at commit fc4e9f9 in its
  A_DECODER=0 form (its replay and hazard model live in tests/test_gemm_wgmma.py), checked by a hash
  and, where git has the commit, against it (tests/wgmma_main_loop.py); each wgmma depth's a16
  buffers are in the shared-memory carve-up and the plan's size; the alpha-overflow rule;
* the problem table: the byte offsets the PTX reads (unit_start, tile_start, k_stages, m, n,
  n_tiles, alpha, c, c_row) are where build_table writes them; the tensor-map buffer order;
* a replay of the kernel's persistent schedule in numpy: the group search on the table, the
  segments of every CTA, every unit of every group exactly once, tile coordinates inside the
  group, the workspace slot rule (c*upc >= U0) equal to the GEMM's first-tile rule and distinct
  per tile, contributors in CTA order -- for the competition cases and ragged ones;
* argument validation and assembly without spills.

GPU part (``@pytest.mark.gpu``): the competition cases and ragged groups (m not a multiple of 64,
groups of one row), both distributions, NaN-poisoned outputs, determinism, the map/table cache.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from nvfp4rt.ops import grouped_gemm as GG

from conftest import requires_gpu
from wgmma_main_loop import consumer_regions, reference_regions

KERNEL = Path(__file__).resolve().parent.parent / "ptx" / "grouped_gemm_nvfp4_wgmma.ptx"
PTX = KERNEL.read_text()

COMPETITION = [
    [(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)],
    [(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)],
    [(192, 3072, 4096), (320, 3072, 4096)],
    [(128, 4096, 1536), (384, 4096, 1536)],
]
RAGGED = [(1, 1, 64), (63, 200, 320), (129, 7, 256), (1, 4096, 7168), (200, 130, 1088)]


# sha256 of consumer setup + unit loop of gemm_nvfp4_wgmma.ptx @ fc4e9f9 without A_DECODER (wgmma_main_loop.py)
MAIN_LOOP_SHA256 = "32f97e5900be5a19489b92772f355b2d9cf213624ca3392fbcd9432d77290e34"


def test_unit_loop_is_the_gemm_kernels():
    setup, loop = consumer_regions(PTX)
    assert hashlib.sha256((setup + loop).encode()).hexdigest() == MAIN_LOOP_SHA256
    assert "mov.u32 %grp, 0;" in PTX.split(consumer_regions(PTX)[0])[1].split("SEG_LOOP:")[0]


def test_main_loop_equals_the_reference_commit_when_git_has_it():
    ref = reference_regions()
    if ref is None:
        pytest.skip("git or the reference commit not available")
    setup, loop = consumer_regions(PTX)
    assert setup == ref[0] and loop == ref[1]
    assert hashlib.sha256((ref[0] + ref[1]).encode()).hexdigest() == MAIN_LOOP_SHA256


@pytest.mark.parametrize("depth", GG.WGMMA_DEPTHS)
def test_each_wgmma_depth_renders_its_wait_and_carves_its_a16_buffers(depth):
    from nvfp4rt.ptxsource import render

    consts = GG.kernel_constants(False, depth)
    text = render(PTX, "sm_90a", consts)
    waits = set(re.findall(r"wgmma\.wait_group\.sync\.aligned (\d+);", consumer_regions(text)[1]))
    assert waits == {str(depth)}
    assert f"setp.eq.u32 %p_wrap, %tmp, {consts['A16_BUFS']};" in text
    region = re.search(r"add\.u32 %sm_full, %sm_a16, (\d+)\*(\d+);", text)
    assert int(region.group(1)) * int(region.group(2)) == consts["A16_BUFS"] * 16384 >= 128 * 272  # + C staging
    assert depth <= 2 * consts["A16_BUFS"] - 5  # the GEMM header's hazard rule
    s = 4
    assert GG.shared_bytes(s, depth) == 1024 + s * 36864 + consts["A16_BUFS"] * 16384 + 16 * s + 16 <= 232448


def test_subnormal_operands_unless_an_alpha_would_overflow():
    assert GG.operands_normal([1.0] * 8, False) is False
    assert GG.operands_normal([1.0], True) is True
    assert GG.operands_normal([1.0, -(2.0**100), 1.0], False) is True
    assert GG.operands_normal([2.0**99], False) is False
    with pytest.raises(ValueError, match="wgmma_depth"):
        GG.kernel_constants(False, 0)


def test_kernel_file_is_ascii_with_a_header():
    KERNEL.read_bytes().decode("ascii")
    assert PTX.splitlines()[0] == "// nvfp4rt: targets=sm_90a constants=NORMAL_OPERANDS=0,WG_WAIT=1,A16_BUFS=3"
    for word in ("WHAT", "THE PROBLEM TABLE", "THE TENSOR MAPS", "PERSISTENT SCHEDULE", "LAUNCH CONTRACT"):
        assert f"// {word}" in PTX


# ============================================================== table and map layout

def test_table_fields_sit_where_the_kernel_reads_them():
    geo = GG.grouped_geometry([(80, 4096, 7168), (1, 7, 64)], 132)
    t = GG.build_table(geo, [0x1000, 0x7000000010], [4096, 9], [1.5, -2.0])
    b = t.view(np.uint8).reshape(3, 64)
    # consumer and producer: v4 {unit_start, tile_start, k_stages, m} at +0, {n, n_tiles, alpha, -} at +16
    assert PTX.count("ld.global.nc.v4.u32 {%gu0, %gt0, %KB, %m}, [%pw];") == 1
    assert PTX.count("ld.global.nc.v4.u32 {%gu0, %gt0, %KB, %tmp}, [%pw];") == 2
    assert PTX.count("ld.global.nc.v4.u32 {%n, %ntiles, %x, %y}, [%pw+16];") == 2
    assert "mov.b32 %alpha, %x;" in PTX                       # alpha = word 6 (third of the +16 vector)
    assert "ld.global.nc.v2.u64 {%pc, %c_rs}, [%pw+32];" in PTX
    assert PTX.count("mul.wide.u32 %off64, %tmp, 64;") == 2  # entry grp + 1 in both searches
    for gi, g in enumerate(geo.groups):
        w = b[gi].view(np.uint32)
        assert list(w[:6]) == [g.unit_start, g.tile_start, g.k_stages, g.m, g.n, g.n_tiles]
        assert w[6].view(np.float32) == [1.5, -2.0][gi]
        assert b[gi][32:48].view(np.uint64).tolist() == [[0x1000, 0x7000000010][gi], [4096, 9][gi]]
    assert b[2].view(np.uint32)[0] == geo.units  # the sentinel


def test_tensor_map_buffer_order_matches_the_producer():
    text = PTX.split("PRODUCER:")[1]
    assert "mul.wide.u32 %off64, %grp, 512;" in text and "add.u64 %tm_a, %ptm, %off64;" in text
    offs = dict(re.findall(r"add\.u64 %tm_(\w+), %tm_a, (\d+);", text))
    assert offs == {"b": "128", "sfa": "256", "sfb": "384"}
    assert GG.TMAPS_PER_GROUP_BYTES == 4 * 128
    # the plan writes a, b, sfa, sfb in that order (source of GroupedGemmPlan.run)
    import inspect

    src = inspect.getsource(GG.GroupedGemmPlan.run)
    assert ('maps = [self._map(i, "a", p[0], False), self._map(i, "b", p[1], False),\n'
            '                        self._scale_map(i, "sfa", p[2], handle), self._scale_map(i, "sfb", p[3], handle)]'
            ) in src
    assert text.count("fence.proxy.tensormap::generic.acquire.gpu") == 4


# ============================================================== schedule replay

def _segments(geo, table, cta):
    """The consumer loop: (group, tile of the group, u0, u1) per segment, with the kernel's search."""
    upc = geo.units_per_cta
    u, u_end = cta * upc, min((cta + 1) * upc, geo.units)
    grp = 0
    while u < u_end:
        grp = GG.find_group(table, u, grp)
        gu0, gt0, kb = (int(x) for x in table[grp, :3])
        lt = (u - gu0) // kb
        seg_end = min(gu0 + (lt + 1) * kb, u_end)
        yield grp, lt, u, seg_end
        u = seg_end


def _gemm_first_tile(geo, cta):
    """The launch-wide tile holding cta's first unit (what the GEMM kernel's division computes)."""
    u = cta * geo.units_per_cta
    for g in geo.groups:
        if g.unit_start <= u < g.unit_start + g.units:
            return g.tile_start + (u - g.unit_start) // g.k_stages
    raise AssertionError


CASES = [(c, 132) for c in COMPETITION] + [(RAGGED, 132), (RAGGED, 5), (COMPETITION[0], 7), ([(1, 1, 64)], 132),
                                          ([(64, 64, 256)] * 40, 132), (COMPETITION[1], 1000)]


@pytest.mark.parametrize("shapes,sms", CASES)
def test_replay_covers_every_unit_once_and_reduces_deterministically(shapes, sms):
    geo = GG.grouped_geometry(shapes, sms)
    table = GG.build_table(geo, [16 * (i + 1) for i in range(len(shapes))], [s[1] for s in shapes],
                           [1.0] * len(shapes))
    assert geo.grid <= sms
    done = np.zeros(geo.units, dtype=int)
    slots = {}
    partials = {}
    for cta in range(geo.grid):
        for grp, lt, u0, u1 in _segments(geo, table, cta):
            g = geo.groups[grp]
            assert g.unit_start <= u0 < u1 <= g.unit_start + g.units
            assert 0 <= lt < g.tiles
            mt, nt = divmod(lt, g.n_tiles)
            assert mt * 128 < g.m and nt * 128 < g.n
            done[u0:u1] += 1
            tile = g.tile_start + lt
            contrib = GG.tile_contributors(geo, tile)
            assert cta in contrib
            if len(contrib) > 1:
                s = GG.workspace_slot(geo, cta, tile)
                assert s == 2 * cta + (0 if tile == _gemm_first_tile(geo, cta) else 1)
                assert s not in slots
                slots[s] = tile
                partials.setdefault(tile, []).append(cta)
    assert (done == 1).all()
    for tile, ctas in partials.items():
        assert ctas == list(GG.tile_contributors(geo, tile))  # every contributor wrote, reduction order = CTA order


def test_competition_cases_fill_an_h100():
    for shapes in COMPETITION:
        geo = GG.grouped_geometry(shapes, 132)
        assert geo.grid >= 120, geo
        assert geo.shared_mem <= 232448


def test_whole_tiles_where_one_wave_holds_them_within_the_slack():
    """Competition case 3 (120 tiles of 16 units on 132 SMs): every CTA one whole tile, no stream-K exchange,
    where the even share (15 units) would split nearly every tile."""
    geo = GG.grouped_geometry(COMPETITION[2], 132)
    assert (geo.units_per_cta, geo.grid, geo.split_tiles) == (16, 120, 0)
    # 100 tiles: even share 13, whole tiles 16 <= 13 + WHOLE_TILE_SLACK
    assert GG.grouped_geometry([(128, 6400, 4096)] * 2, 132).units_per_cta == 16
    # 96 tiles: even share 12, 16 > 12 + 3: the even share and its splits
    geo = GG.grouped_geometry([(128, 4096, 4096)] * 3, 132)
    assert geo.units_per_cta == 12 and geo.split_tiles > 0
    # more tiles than SMs, or groups of different k: the even share
    assert GG.grouped_geometry([(128, 4096 * 9, 4096)], 132).units_per_cta == -(-288 * 16 // 132)
    assert GG.grouped_geometry([(128, 3072, 4096), (128, 3072, 3584)], 132).units_per_cta == -(-(24 * 16 + 24 * 14) // 132)
    # an explicit units_per_cta is kept
    assert GG.grouped_geometry(COMPETITION[2], 132, units_per_cta=15).units_per_cta == 15


def test_geometry_offsets_are_prefix_sums():
    geo = GG.grouped_geometry(COMPETITION[0], 132)
    u = t = 0
    for (m, n, k), g in zip(COMPETITION[0], geo.groups):
        assert (g.unit_start, g.tile_start) == (u, t)
        assert (g.m_tiles, g.n_tiles, g.k_stages) == (-(-m // 128), -(-n // 128), -(-k // 256))
        u += g.units
        t += g.tiles
    assert (geo.units, geo.tiles) == (u, t)


# ============================================================== validation

@pytest.mark.parametrize("shapes,match", [
    ([], "at least one group"),
    ([(64, 64, 96)], "multiple of 64"),
    ([(0, 64, 256)], "group 0: m"),
    ([(64, 64, 256), (64, 64)], "group 1"),
])
def test_bad_shapes_raise(shapes, match):
    with pytest.raises(ValueError, match=match):
        GG.grouped_geometry(shapes, 132)


class _Fake:
    """Shape, dtype and byte strides of a competition view [rows, cols, l] of an (l, rows, cols) buffer."""

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        rows, cols, _ = self.shape
        it = self.dtype.itemsize
        self.strides = (cols * it, it, rows * cols * it)


def _raw(m, n, k):
    return (_Fake((m, k // 2, 1), np.uint8), _Fake((n, k // 2, 1), np.uint8), _Fake((m, k // 16, 1), np.uint8),
            _Fake((n, k // 16, 1), np.uint8), _Fake((m, n, 1), np.float16))


def test_raw_groups_name_the_group():
    info = GG._raw_groups([_raw(80, 4096, 7168), _raw(1, 7, 64)])
    assert [(m, n, k) for m, n, k, _ in info] == [(80, 4096, 7168), (1, 7, 64)]
    bad = list(_raw(64, 128, 256))
    bad[4] = _Fake((64, 100, 1), np.float16)
    with pytest.raises(ValueError, match=r"groups\[1\]: c must have shape"):
        GG._raw_groups([_raw(80, 4096, 7168), tuple(bad)])
    with pytest.raises(ValueError, match=r"groups\[0\] must be"):
        GG._raw_groups([_raw(64, 64, 64)[:4]])
    with pytest.raises(ValueError, match="non-empty"):
        GG._raw_groups([])
    l2 = (_Fake((64, 128, 2), np.uint8), _Fake((64, 128, 2), np.uint8), _Fake((64, 16, 2), np.uint8),
          _Fake((64, 16, 2), np.uint8), _Fake((64, 64, 2), np.float16))
    with pytest.raises(ValueError, match="l = 1"):
        GG._raw_groups([l2])


def test_public_api_rejects_bad_problems():
    import nvfp4rt

    with pytest.raises(ValueError, match="non-empty"):
        nvfp4rt.grouped_gemm([])
    with pytest.raises(TypeError, match=r"problems\[0\].a must be an nvfp4rt NVFP4Tensor"):
        nvfp4rt.grouped_gemm([(np.zeros((4, 64)), None)])


def test_plan_rejects_bad_layouts_before_the_gpu():
    import dataclasses

    from nvfp4rt.ops.gemm import GemmLayout

    lay = GemmLayout.contiguous(64, 64, 256, 1)
    with pytest.raises(ValueError, match="group 0: a_row"):
        GG.GroupedGemmPlan([(64, 64, 256)], [dataclasses.replace(lay, a_row=136)])
    with pytest.raises(ValueError, match="layouts has 2 entries"):
        GG.GroupedGemmPlan([(64, 64, 256)], [lay, lay])
    with pytest.raises(TypeError, match="GemmLayout"):
        GG.GroupedGemmPlan([(64, 64, 256)], ["x"])
    with pytest.raises(ValueError, match="wgmma_depth"):
        GG.GroupedGemmPlan([(64, 64, 256)], wgmma_depth=2)
    with pytest.raises(TypeError, match="normal_operands"):
        GG.GroupedGemmPlan([(64, 64, 256)], normal_operands=0)


try:
    from nvfp4rt.assemble import assemble, find_ptxas
    _HAVE_PTXAS = find_ptxas() is not None
except ImportError:  # pragma: no cover
    _HAVE_PTXAS = False


@pytest.mark.skipif(not _HAVE_PTXAS, reason="ptxas not found")
@pytest.mark.parametrize("normal", [True, False])
@pytest.mark.parametrize("depth", [1, 3])
def test_kernel_assembles_without_spills(normal, depth):
    rep = assemble(KERNEL, "sm_90a", GG.kernel_constants(normal, depth))
    fn = rep.functions["nvfp4_grouped_gemm_wgmma"]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0
    assert "serializ" not in rep.log.lower()


def test_kernel_parameters_match_the_plan():
    from nvfp4rt.ptxsource import parse_entries, render

    sig = parse_entries(render(PTX, "sm_90a", GG.kernel_constants()))
    sig = sig[0] if isinstance(sig, list) else next(iter(sig.values()))
    assert [p.name for p in sig.params] == ["p_tmaps", "p_table", "p_ws", "p_counters", "total_units",
                                            "units_per_cta", "num_stages"]


# ============================================================== GPU

def _device_groups(d):
    import nvfp4rt

    groups = []
    for g in d.groups:
        arrs = [nvfp4rt.from_numpy(np.ascontiguousarray(g.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")]
        arrs.append(nvfp4rt.from_numpy(np.full((1, g.m, g.n), np.nan, dtype=np.float16)))
        groups.append(arrs)
    return groups


def _run(shapes, distribution, plan_class=GG.GroupedGemmPlan, alphas=None, **plan_kwargs):
    """Fresh data, NaN-poisoned c, one call of a ``plan_class`` plan; each group's check against the
    float64 reference times its alpha.  Returns (results, plan, groups)."""
    from nvfp4rt import data, reference

    d = data.grouped_gemm_data(shapes, seed=None, distribution=distribution)
    refs = reference.grouped_gemm_ref(d.groups)
    groups = _device_groups(d)
    plan = plan_class(shapes, **plan_kwargs)
    plan([tuple(g) for g in groups], alphas=alphas)
    al = alphas or [1.0] * len(shapes)
    results = [reference.check(g[4].numpy().transpose(1, 2, 0), r * np.float32(a)) for g, r, a in zip(groups, refs, al)]
    return results, plan, groups


def assert_repeatable_and_maps_reused(plan, groups, repeats=1):
    """Repeated calls on the same buffers give the same bits without a new upload; moving one c re-uploads
    once and fills the new buffer with the same bits."""
    import nvfp4rt

    assert plan.uploads == 1
    first = [g[4].numpy().copy() for g in groups]
    for _ in range(repeats):
        plan([tuple(g) for g in groups])
    assert plan.uploads == 1  # same buffers: no re-encode, no upload
    for g, f in zip(groups, first):
        assert np.array_equal(g[4].numpy().view(np.uint16), f.view(np.uint16))
    moved = nvfp4rt.from_numpy(np.full(first[0].shape, np.nan, dtype=np.float16))
    groups[0][4] = moved
    plan([tuple(g) for g in groups])
    assert plan.uploads == 2
    assert np.array_equal(moved.numpy().view(np.uint16), first[0].view(np.uint16))


GPU_CASES = COMPETITION + [RAGGED, [(1, 1, 64)], [(65, 129, 512)] * 3 + [(1, 8, 64)]]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shapes", GPU_CASES)
@pytest.mark.parametrize("distribution", ["competition", "wide"])
def test_matches_float64_reference(shapes, distribution):
    results, *_ = _run(shapes, distribution)
    for i, res in enumerate(results):
        assert res.ok, f"group {i} {shapes[i]}: {res.report()}"


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shapes", [COMPETITION[0], RAGGED])
@pytest.mark.parametrize("plan_kwargs", [dict(normal_operands=True), dict(wgmma_depth=3),
                                         dict(wgmma_depth=3, units_per_cta=3)])
def test_variants_match_float64_reference(shapes, plan_kwargs):
    for distribution in ("competition", "wide"):
        results, plan, _ = _run(shapes, distribution, **plan_kwargs)
        for i, res in enumerate(results):
            assert res.ok, f"{plan!r} {distribution} group {i} {shapes[i]}: {res.report()}"


@pytest.mark.gpu
@requires_gpu
def test_an_alpha_too_big_for_the_subnormal_kernel_runs_the_normal_one():
    from nvfp4rt import data, reference

    shapes = [(64, 128, 512), (65, 70, 256)]
    d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
    refs = reference.grouped_gemm_ref(d.groups)
    groups = _device_groups(d)
    plan = GG.GroupedGemmPlan(shapes)
    plan([tuple(g) for g in groups], alphas=[1.0, 2.0**110])  # 2^138 does not fit the fp32 table entry
    assert set(plan._launches) == {True}
    assert reference.check(groups[0][4].numpy().transpose(1, 2, 0), refs[0]).ok
    out, ref = groups[1][4].numpy()[0].astype(np.float64), refs[1][:, :, 0].astype(np.float64)
    assert not np.isnan(out).any()  # the subnormal kernel would give inf * 0 = NaN where a sum is 0
    big = np.abs(ref) > 0.01  # far above the kernel's fp32 error: its sign is certain; times 2^110: inf
    assert big.any() and np.isinf(out[big]).all() and np.array_equal(np.sign(out[big]), np.sign(ref[big]))
    plan([tuple(g) for g in groups])  # alphas 1: the subnormal variant
    assert set(plan._launches) == {True, False}
    assert reference.check(groups[1][4].numpy().transpose(1, 2, 0), refs[1]).ok


@pytest.mark.gpu
@requires_gpu
def test_deterministic_and_maps_reused_until_a_buffer_moves():
    results, plan, groups = _run(RAGGED, "wide", units_per_cta=3)
    assert all(r.ok for r in results)
    assert_repeatable_and_maps_reused(plan, groups)


@pytest.mark.gpu
@requires_gpu
def test_public_forms_match_the_reference():
    import nvfp4rt
    from nvfp4rt import reference

    rng = np.random.default_rng()
    probs = [(nvfp4rt.quantize(rng.standard_normal((m, 256)).astype(np.float32), tensor_scale="auto"),
              nvfp4rt.quantize(rng.standard_normal((n, 256)).astype(np.float32), tensor_scale="auto"))
             for m, n in ((70, 300), (1, 5), (128, 128))]
    outs = nvfp4rt.grouped_gemm(probs)
    for (a, b), c in zip(probs, outs):
        res = reference.check(c.numpy(), reference.gemm_ref_tensors(a, b)[:, :, 0])
        assert res.ok, res.report()


def test_bench_adapter_is_registered_with_the_competition_cases():
    from nvfp4rt import bench

    op = bench.get_op("grouped_gemm")()
    shapes = op.parse_shapes(None)
    assert [op._shapes(s) for s in shapes] == [[tuple(g) for g in c] for c in COMPETITION]
    assert op.flops(shapes[0]) == sum(2 * m * n * k for m, n, k in COMPETITION[0])
    assert "8 groups" in op.shape_label(shapes[1])
    with pytest.raises(ValueError, match="case must be 1..4"):
        op.parse_shapes(["5"])


def test_no_accumulator_sums_more_than_8192_k():
    """A group with k = 16384 caps units per CTA at 32 stages (8192 k); groups with k <= 8192 keep one wave."""
    from nvfp4rt.ops import grouped_gemm as GG

    geo = GG.grouped_geometry([(300, 4096, 16384), (64, 128, 256)], 132)
    assert geo.units_per_cta <= 32
    small = GG.grouped_geometry([(80, 4096, 7168), (176, 4096, 7168)], 132)
    assert small.grid <= 132


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("variant", GG.VARIANTS)
@pytest.mark.parametrize("shapes", [[(192, 256, 512), (64, 256, 512)], [(96, 320, 320), (40, 320, 320)]],
                         ids=["aligned", "padded-sfb"])  # k = 320: sfb rows of 20 bytes are copied on every call
def test_repeat_calls_follow_new_contents_alphas_and_moved_buffers(variant, shapes):
    """Back-to-back calls with the same arrays may take the launch-only path; new contents written into the same
    buffers are used (the A decode and any scale copy run on every call), new alphas are uploaded and used, and a
    new c receives the result while the old one is left alone."""
    import nvfp4rt
    from nvfp4rt import data, reference

    plan = GG.plan_grouped_gemm(shapes, variant=variant)
    d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
    groups = _device_groups(d)

    def check(d, alphas=(1.0, 1.0)):
        for i, (g, r) in enumerate(zip(groups, reference.grouped_gemm_ref(d.groups))):
            res = reference.check(g[4].numpy().transpose(1, 2, 0), r * np.float32(alphas[i]))
            assert res.ok, f"{plan!r} group {i}: {res.report()}"

    for _ in range(2):
        plan([tuple(g) for g in groups])
        check(d)
    d2 = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
    for g, h in zip(groups, d2.groups):
        for arr, x in zip(g[:4], ("a", "b", "sfa", "sfb")):
            arr.copy_from_host_async(np.ascontiguousarray(h.physical(x)).view(np.uint8))
    plan([tuple(g) for g in groups])
    check(d2)
    uploads = plan.uploads
    for _ in range(2):
        plan([tuple(g) for g in groups], alphas=[0.5, -2.0])
        check(d2, (0.5, -2.0))
    assert plan.uploads == uploads + 1  # the new alphas went up once
    before = groups[1][4].numpy().copy()
    old, groups[1][4] = groups[1][4], nvfp4rt.from_numpy(np.full(before.shape, np.nan, dtype=np.float16))
    plan([tuple(g) for g in groups], alphas=[0.5, -2.0])
    check(d2, (0.5, -2.0))
    assert np.array_equal(old.numpy().view(np.uint16), before.view(np.uint16))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("variant", ["wgmma_mtiles", "wgmma_cluster"])
def test_the_decode_lists_the_gemms_tables_for_l2(variant):
    """The m-tile plan's decode table on the device lists the GEMM's m-tile table (entries and run starts), whole,
    as its one L2 warm-up region, so the decode pulls exactly what the GEMM's producers read first; the cluster
    plan's lists nothing (the warm-up slowed case 2, session 37).  The results stay right."""
    from nvfp4rt import data, driver, reference
    from nvfp4rt.ops.decode_a16 import table_bytes

    shapes = [(96, 256, 512), (200, 256, 512)]
    plan = GG.plan_grouped_gemm(shapes, variant=variant)
    d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
    groups = _device_groups(d)
    plan([tuple(g) for g in groups])
    for g, r in zip(groups, reference.grouped_gemm_ref(d.groups)):
        assert reference.check(g[4].numpy().transpose(1, 2, 0), r).ok
    want = [(plan._mtab.ptr, plan._mtab.nbytes)] if variant == "wgmma_mtiles" else []
    assert all(p % 16 == 0 and n % 16 == 0 for p, n in want)  # whole 16 bytes: nothing is trimmed
    t = np.empty(plan._decode_table.nbytes, np.uint8)
    driver.call("cuMemcpyDtoH", t.ctypes.data, plan._decode_table.ptr, t.nbytes)
    assert t.nbytes == table_bytes(len(shapes), len(want))
    count, off = t[:64].view(np.uint32)[12:14]
    assert count == len(want) and off == (64 * (len(shapes) + 1) if want else 0)
    recs = t[off:off + 16 * count].view(np.uint64).reshape(-1, 2)
    assert [(int(p), int(n)) for p, n in recs] == want
