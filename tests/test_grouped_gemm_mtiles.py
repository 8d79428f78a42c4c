"""The grouped GEMM on the cluster GEMM kernel by m tile (GROUPED = 1 in ptx/gemm_nvfp4_wgmma_cluster.ptx,
nvfp4rt.ops.grouped_gemm_mtiles).

CPU part:
* the m tiles cover every group's rows once, 128 at a time, group by group; groups must share n and k;
* the m-tile table: the byte offsets the PTX reads are where the host writes them, and each entry holds its
  group's maps, c at the tile's first row, the row stride, the tile's rows, its a16 row and alpha;
* the schedule: whole tiles where they fit one wave within the slack, else one stream-K wave of clusters of 2;
* the GROUPED build assembles without spills, and the non-grouped builds read no table;
* bad shapes and arguments raise before any GPU work.

GPU part (``@pytest.mark.gpu``): the competition cases and ragged groups sharing n and k, both distributions,
NaN-poisoned outputs, both schedules forced on each case, alphas per group, determinism, the map/table cache
and counters left zero.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from nvfp4rt.assemble import assemble, find_ptxas
from nvfp4rt.ops import gemm_wgmma_cluster as CL
from nvfp4rt.ops import grouped_gemm_mtiles as GM
from nvfp4rt.ptxsource import render

from conftest import requires_gpu

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "ptx" / "gemm_nvfp4_wgmma_cluster.ptx"
PTX = KERNEL.read_text()

COMPETITION = [
    [(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)],
    [(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)],
    [(192, 3072, 4096), (320, 3072, 4096)],
    [(128, 4096, 1536), (384, 4096, 1536)],
]
#: groups sharing n and k with ragged rows (1, 127, 128, 129, 255, 300), a ragged n and a k not a multiple of 256
RAGGED = [
    [(1, 200, 320), (127, 200, 320), (128, 200, 320), (129, 200, 320)],
    [(255, 130, 1088), (1, 130, 1088), (300, 130, 1088)],
    [(1, 1, 64)],
    [(40, 7168, 9216), (200, 7168, 9216)],  # 36 k stages: stream-K runs capped at 32 units per chain
]


def _grouped_text(cluster=2):
    return render(PTX, "sm_90a", CL.kernel_constants(cluster, 6, grouped=True))


# ============================================================== m tiles and the table

@pytest.mark.parametrize("shapes", COMPETITION + RAGGED)
def test_mtiles_cover_every_groups_rows_once(shapes):
    tiles = GM.mtiles(shapes)
    for g, (m, _, _) in enumerate(shapes):
        mine = [t for t in tiles if t.group == g]
        assert [t.row0 for t in mine] == list(range(0, m, 128))
        assert sum(t.rows for t in mine) == m and all(1 <= t.rows <= 128 for t in mine)
    assert [t.group for t in tiles] == sorted(t.group for t in tiles)  # group by group


def test_competition_tile_counts():
    assert [len(GM.mtiles(s)) for s in COMPETITION] == [11, 13, 5, 4]


@pytest.mark.parametrize("shapes, match", [
    ([(64, 128, 256), (64, 256, 256)], "share n and k"),
    ([(64, 128, 256), (64, 128, 512)], "share n and k"),
    ([(64, 128, 100)], "multiple of 64"),
    ([(0, 128, 256)], "positive"),
    ([], "at least one"),
    ([(64, 128)], "expected"),
])
def test_bad_shapes_raise(shapes, match):
    with pytest.raises(ValueError, match=match):
        GM.mtiles(shapes)
    assert not GM.supports(shapes)


def test_preference_is_cached_per_shape_tuple():
    GM._preferred.cache_clear()
    assert GM.preferred(COMPETITION[2], 132) and GM.preferred([list(s) for s in COMPETITION[2]], 132)
    assert GM._preferred.cache_info().hits == 1  # the op layer asks on every call
    assert not GM.preferred(COMPETITION[1], 132)  # 8-stage tiles in stream-K: the cluster kernel
    assert not GM.preferred([(64, 128, 256), (64, 256, 256)], 132) and not GM.preferred([("x", 1, 64)], 132)


def test_supports_needs_shared_nk_and_alphas_that_fit():
    assert GM.supports(COMPETITION[0])
    assert GM.supports(COMPETITION[0], alphas=[2.0] * 8)
    assert not GM.supports(COMPETITION[0], alphas=[1e32] + [1.0] * 7)  # 1e32 * 2^28 overflows fp32
    assert not GM.supports([(64, 128, 256), (64, 256, 256)])


def _offsets_read():
    """{field: byte offset} of every table read in the GROUPED build's text."""
    text = _grouped_text()
    reads = dict(re.findall(r"ld\.global\.nc\.\w+ %(\w+), \[%(?:pent|tm_a16)\+(\d+)\]", text))
    return {reg: int(off) for reg, off in reads.items()}


def test_table_offsets_match_the_kernels_loads():
    assert _offsets_read() == {"pc": 384, "c_rs": 392, "m": 400, "mrow0": 404, "alpha": 408}
    text = _grouped_text()
    assert text.count(f"mad.wide.u32 %tm_b, %mt, {GM.MTILE_ENTRY_BYTES}, %tm_b;") == 1
    assert text.count(f"mad.wide.u32 %tm_a16, %mt, {GM.MTILE_ENTRY_BYTES}, %tm_a16;") == 1
    assert text.count(f"mad.wide.u32 %pent, %mt, {GM.MTILE_ENTRY_BYTES}, %pent;") == 1
    assert "add.u64 %tm_sfb, %tm_b, 128;" in text and "add.u64 %tm_a16, %tm_a16, 256;" in text
    assert GM.MTILE_ENTRY_BYTES % 64 == 0  # the maps stay 64-byte aligned


def test_build_mtile_table_fields():
    shapes = [(130, 256, 512), (5, 256, 512)]
    tiles = GM.mtiles(shapes)
    maps = [(bytes([1]) * 128, bytes([2]) * 128, bytes([3]) * 128), (bytes([4]) * 128, bytes([5]) * 128,
                                                                     bytes([6]) * 128)]
    t = GM.build_mtile_table(tiles, maps, [0x10000, 0x90000], [256, 300], [2.0**28, -3.0 * 2**28])
    assert t.shape == (3, GM.MTILE_ENTRY_BYTES)
    for e, (g, row0, rows) in enumerate([(0, 0, 128), (0, 128, 2), (1, 0, 5)]):
        assert bytes(t[e, :384]) == b"".join(maps[g])
        c, rs = t[e, 384:400].view(np.uint64)
        assert c == [0x10000, 0x90000][g] + 2 * row0 * [256, 300][g] and rs == [256, 300][g]
        assert list(t[e, 400:408].view(np.uint32)) == [rows, row0]
        assert t[e, 408:412].view(np.float32)[0] == [2.0**28, -3.0 * 2**28][g]
    with pytest.raises(ValueError, match="three 128-byte"):
        GM.build_mtile_table(tiles, [(b"x",) * 3] * 2, [0, 0], [1, 1], [1.0, 1.0])


# ============================================================== schedule

def test_schedule_takes_whole_tiles_when_they_fit_one_wave():
    # competition case 3: 5 m tiles x 24 n tiles = 120 CTA tiles of 16 units on 132 SMs
    assert GM.schedule(5, 3072, 4096, 132, 66) == (1, 16)
    # case 4: 4 x 32 = 128 tiles of 6 units
    assert GM.schedule(4, 4096, 1536, 132, 66) == (1, 6)


def test_schedule_runs_one_stream_k_wave_otherwise():
    # case 1: 11 m tiles x 16 cluster tiles x 28 units = 4928 units over 66 clusters of 2
    assert GM.schedule(11, 4096, 7168, 132, 66) == (2, 75)
    # case 2: 13 x 28 x 8 = 2912 units
    assert GM.schedule(13, 7168, 2048, 132, 66) == (2, 45)
    # 36 k stages: an even share (31 units) may span a tile boundary but never holds more than 32 of one tile
    assert GM.schedule(2, 7168, 9216, 132, 66) == (2, 31)
    # 64 k stages: runs capped at 32 units so no chain sums more than 8192 k
    assert GM.schedule(11, 4096, 16384, 132, 66) == (2, 32)
    # whole tiles that would be far longer than an even share: stream-K (88 tiles of 16 on 132 SMs)
    assert GM.schedule(1, 88 * 128, 4096, 132, 66)[0] == 2


def test_whole_tile_rings_fit_the_shared_memory_of_a_hopper_block():
    st, ab = GM.WHOLE_TILE_RINGS
    assert CL.shared_bytes(st, ab) <= 227 * 1024  # the opt-in limit of an H100 / H200 block
    assert CL.cluster_geometry(640, 3072, 4096, 1, 132, cluster=1, stages=st, a_bufs=ab, units_per_cluster=16).grid == 120


def test_stream_k_runs_keep_chains_short():
    for tiles, n, k in [(11, 4096, 7168), (13, 7168, 2048), (2, 7168, 9216), (3, 512, 16384)]:
        cl, upc = GM.schedule(tiles, n, k, 132, 66)
        geo = CL.cluster_geometry(128 * tiles, n, k, 1, 66, cluster=cl, units_per_cluster=upc)
        assert geo.grid <= 132  # one wave
        for t in range(geo.tiles):  # no run holds more than MAX_CHAIN_UNITS of one tile
            for q in geo.contributors(t):
                lo, hi = max(q * upc, t * geo.k_stages), min((q + 1) * upc, (t + 1) * geo.k_stages)
                assert 0 < hi - lo <= CL.MAX_CHAIN_UNITS


# ============================================================== the kernel text

@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found")
@pytest.mark.parametrize("cluster", [1, 2, 4])
def test_grouped_build_assembles_without_spills_or_wgmma_serialisation(cluster):
    rep = assemble(KERNEL, "sm_90a", CL.kernel_constants(cluster, 6, grouped=True))
    fn = rep.functions[CL._ENTRY]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0
    assert "serializ" not in rep.log.lower()


def test_non_grouped_builds_read_no_table():
    for cons in (CL.kernel_constants(2, 6), CL.kernel_constants(1, 10, ksplit=2)):
        text = render(PTX, "sm_90a", cons)
        code = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//"))
        assert "p_mtiles]" not in code and "fence.proxy.tensormap" not in code and "[%pent" not in code


def test_grouped_needs_the_stream_k_schedule():
    with pytest.raises(ValueError, match="grouped needs ksplit=1"):
        CL.kernel_constants(1, 10, ksplit=2, grouped=True)


def test_plan_rejects_bad_input_before_the_gpu():
    with pytest.raises(ValueError, match="share n and k"):
        GM.GroupedGemmMTilePlan([(64, 128, 256), (64, 256, 256)])
    with pytest.raises(ValueError, match="cluster"):
        GM.GroupedGemmMTilePlan([(64, 128, 256)], cluster=3)


# ============================================================== GPU

def _run(shapes, distribution="competition", alphas=None, **plan_kwargs):
    from test_grouped_gemm import _run as run_plan

    return run_plan(shapes, distribution, GM.GroupedGemmMTilePlan, alphas=alphas, **plan_kwargs)


def _counters_zero(plan):
    from nvfp4rt import driver

    g = plan.geometry
    out = np.empty(g.counters, dtype=np.uint32)
    driver.call("cuMemcpyDtoH", out.ctypes.data, plan._counters.ptr, out.nbytes)
    return not out.any()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shapes", COMPETITION + RAGGED)
@pytest.mark.parametrize("distribution", ["competition", "wide"])
def test_matches_float64_reference(shapes, distribution):
    results, plan, _ = _run(shapes, distribution)
    assert all(r.ok for r in results), (plan, [r.summary() for r in results if not r.ok])
    assert _counters_zero(plan)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shapes", COMPETITION[2:] + RAGGED[:2])
@pytest.mark.parametrize("plan_kwargs", [dict(cluster=1), dict(cluster=2), dict(cluster=4),
                                         dict(cluster=2, units_per_cluster=5), dict(cluster=1, units_per_cluster=3)])
def test_every_schedule_matches_float64_reference(shapes, plan_kwargs):
    results, plan, _ = _run(shapes, "wide", **plan_kwargs)
    assert all(r.ok for r in results), (plan, [r.summary() for r in results if not r.ok])
    assert _counters_zero(plan)


@pytest.mark.gpu
@requires_gpu
def test_alphas_scale_each_group():
    shapes = [(70, 300, 512), (130, 300, 512), (3, 300, 512)]
    results, _, _ = _run(shapes, "wide", alphas=[0.5, -2.0, 3.0])
    assert all(r.ok for r in results)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shapes", [COMPETITION[3], RAGGED[1]])
def test_deterministic_and_maps_reused_until_a_buffer_moves(shapes):
    from test_grouped_gemm import assert_repeatable_and_maps_reused

    _, plan, groups = _run(shapes, "wide", cluster=2, units_per_cluster=4)  # split tiles: the reduction's order
    assert_repeatable_and_maps_reused(plan, groups, repeats=3)
    assert _counters_zero(plan)
