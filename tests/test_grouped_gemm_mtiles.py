"""The grouped GEMM on the cluster GEMM kernel by m tile (GROUPED = 1 in ptx/gemm_nvfp4_wgmma_cluster.ptx,
nvfp4rt.ops.grouped_gemm_mtiles).

CPU part:
* the m tiles cover every group's rows once, in ceil(m / 128) tiles as even as can be, group by group; groups must
  share n and k;
* row classes: each tile's rows rounded up to the build's step, at most MAX_ROW_CLASSES per build chosen by cost;
* the m-tile table: the byte offsets the PTX reads are where the host writes them, and each entry holds its tile's
  maps, c at the tile's first row, the row stride, the tile's rows, its a16 row, alpha and row class; the words
  after the entries hold each tile's first and last run and the runs' starts;
* the schedule: whole tiles where they fit one wave within the slack, else one stream-K wave of clusters of 2 whose
  runs are cut on the row classes' costs (against every contiguous cut on small problems), chains within the limit;
* the unit loop written once per row class (labels, wgmma N, accumulators, dispatch); the GROUPED builds assemble
  without spills or wgmma serialisation with the most row classes, and the non-grouped builds read no table;
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
        assert len(mine) == -(-m // 128)
        assert [t.row0 for t in mine] == [sum(t.rows for t in mine[:j]) for j in range(len(mine))]
        assert sum(t.rows for t in mine) == m and all(1 <= t.rows <= 128 for t in mine)
        assert max(t.rows for t in mine) - min(t.rows for t in mine) <= 1  # as even as can be, longer ones first
        assert [t.rows for t in mine] == sorted((t.rows for t in mine), reverse=True)
    assert [t.group for t in tiles] == sorted(t.group for t in tiles)  # group by group


def test_competition_tiles_are_cut_evenly():
    assert [t.rows for t in GM.mtiles(COMPETITION[0])] == [80, 88, 88, 128, 72, 64, 124, 124, 96, 80, 80]
    assert [t.rows for t in GM.mtiles(COMPETITION[2])] == [96, 96, 107, 107, 106]


# ============================================================== row classes

def test_row_class_rounds_up_to_the_clusters_step():
    assert [CL.row_class(r, 1) for r in (1, 16, 17, 80, 107, 128)] == [16, 16, 32, 80, 112, 128]
    assert [CL.row_class(r, 2) for r in (1, 72, 88, 124)] == [16, 80, 96, 128]
    assert [CL.row_class(r, 4) for r in (1, 33, 72, 96)] == [32, 64, 96, 96]
    for bad in (0, 129):
        with pytest.raises(ValueError, match="rows"):
            CL.row_class(bad, 2)
    with pytest.raises(ValueError, match="cluster"):
        CL.row_class(64, 3)


def test_choose_row_classes_keeps_the_largest_and_the_cheapest_rest():
    case1 = GM.mtiles(COMPETITION[0])  # needs 128, 96, 80 and 64: 64 -> 80 costs least
    assert GM.choose_row_classes(case1, 2) == (128, 96, 80)
    assert GM.tile_row_classes(case1, (128, 96, 80), 2) == (80, 96, 96, 128, 80, 80, 128, 128, 96, 80, 80)
    assert GM.choose_row_classes(GM.mtiles(COMPETITION[2]), 1) == (112, 96)
    assert GM.choose_row_classes(GM.mtiles(COMPETITION[3]), 2) == (128,)
    # one whole tile per CTA, all at once: the largest class alone (case 3's schedule)
    assert GM.choose_row_classes(GM.mtiles(COMPETITION[2]), 1, one_wave=True) == (112,)
    assert GM.choose_row_classes(case1, 2, one_wave=True) == (128,)
    assert GM.choose_row_classes(GM.mtiles([(20, 256, 512), (70, 256, 512)]), 1, one_wave=True) == (80,)
    rng = np.random.default_rng(7)
    for _ in range(30):  # against every subset, by brute force
        tiles = GM.mtiles([(int(m), 256, 512) for m in rng.integers(1, 300, size=6)])
        got = GM.choose_row_classes(tiles, 2)
        need = sorted({CL.row_class(t.rows, 2) for t in tiles}, reverse=True)
        assert len(got) <= GM.MAX_ROW_CLASSES and got[0] == need[0] and set(got) <= set(need)

        def cost(cls):
            return sum(GM.unit_cost(c) for c in GM.tile_row_classes(tiles, cls, 2))

        from itertools import combinations
        best = min(cost((need[0],) + r) for n in range(GM.MAX_ROW_CLASSES) for r in combinations(need[1:], n))
        assert cost(got) == pytest.approx(best)
    with pytest.raises(ValueError, match="no row class"):
        GM.tile_row_classes(case1, (96, 80), 2)


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
    assert _offsets_read() == {"pc": 384, "c_rs": 392, "m": 400, "mrow0": 404, "alpha": 408, "arows": 412,
                               "rnext": 412, "ctma": 416}
    text = _grouped_text()
    assert text.count(f"mad.wide.u32 %tm_b, %mt, {GM.MTILE_ENTRY_BYTES}, %tm_b;") == 1
    assert text.count(f"mad.wide.u32 %tm_a16, %mt, {GM.MTILE_ENTRY_BYTES}, %tm_a16;") == 1
    # rnext twice, the storing thread's c-map acquire at SEG_LOOP, the epilogue
    assert text.count(f"mad.wide.u32 %pent, %mt, {GM.MTILE_ENTRY_BYTES}, %pent;") == 4
    # the words after the entries: contributors at m_tiles * 448, then the starts at + 8 per cluster tile
    assert text.count(f"mul.wide.u32 %off64, %mtiles, {GM.MTILE_ENTRY_BYTES};") == 2
    assert text.count("mul.wide.u32 %off64, %tpb, 8;") == 2
    # even runs (units_per_cta != 0) skip the starts table: whole tiles start without its round trip
    assert "setp.ne.u32 %p_x, %upc, 0;\n    @%p_x bra RUN_EVEN;" in text
    assert "add.u64 %tm_sfb, %tm_b, 128;" in text and "add.u64 %tm_a16, %tm_a16, 256;" in text
    assert GM.MTILE_ENTRY_BYTES % 64 == 0  # the maps stay 64-byte aligned
    # the epilogue's TMA store goes through the tile's c map
    # (the storing thread's acquire at SEG_LOOP, the store itself)
    assert text.count(f"add.u64 %tm_c, %pent, {GM.C_MAP_OFFSET};") == 2 and GM.C_MAP_OFFSET % 64 == 0
    assert GM.C_MAP_OFFSET >= 420 and GM.C_MAP_OFFSET + 128 <= GM.MTILE_ENTRY_BYTES


def test_build_mtile_table_fields():
    shapes = [(130, 256, 512), (5, 256, 512)]
    tiles = GM.mtiles(shapes)
    maps = [tuple(bytes([3 * e + j]) * 128 for j in range(3)) for e in range(3)]  # one set per tile
    t = GM.build_mtile_table(tiles, maps, [0x10000, 0x90000], [256, 300], [2.0**28, -3.0 * 2**28], [80, 80, 16])
    assert t.shape == (3, GM.MTILE_ENTRY_BYTES)
    for e, (g, row0, rows, cls) in enumerate([(0, 0, 65, 80), (0, 65, 65, 80), (1, 0, 5, 16)]):
        assert bytes(t[e, :384]) == b"".join(maps[e])
        c, rs = t[e, 384:400].view(np.uint64)
        assert c == [0x10000, 0x90000][g] + 2 * row0 * [256, 300][g] and rs == [256, 300][g]
        assert list(t[e, 400:408].view(np.uint32)) == [rows, row0]
        assert t[e, 408:412].view(np.float32)[0] == [2.0**28, -3.0 * 2**28][g]
        assert t[e, 412:416].view(np.uint32)[0] == cls
    assert list(GM.build_mtile_table(tiles, maps, [0, 0], [1, 1], [1.0] * 2)[:, 412:416].view(np.uint32).ravel()) \
        == [128] * 3  # the default class
    assert not t[:, 416:].any()  # no c maps given: every tile is copied out
    cmaps = [bytes([7]) * 128, None, bytes([9]) * 128]
    t = GM.build_mtile_table(tiles, maps, [0x10000, 0x90000], [256, 300], [1.0, 1.0], [80, 80, 16], cmaps)
    for e, cm in enumerate(cmaps):
        assert t[e, 416:420].view(np.uint32)[0] == (cm is not None)
        assert bytes(t[e, GM.C_MAP_OFFSET:GM.C_MAP_OFFSET + 128]) == (cm or bytes(128))
    with pytest.raises(ValueError, match="one map \\(or None\\) per tile"):
        GM.build_mtile_table(tiles, maps, [0, 0], [1, 1], [1.0, 1.0], None, [None])
    with pytest.raises(ValueError, match="a c map is 128 bytes"):
        GM.build_mtile_table(tiles, maps, [0, 0], [1, 1], [1.0, 1.0], None, [b"x", None, None])
    with pytest.raises(ValueError, match="three 128-byte"):
        GM.build_mtile_table(tiles, [(b"x",) * 3] * 3, [0, 0], [1, 1], [1.0, 1.0])
    with pytest.raises(ValueError, match="row class 64 must hold its 65 rows"):
        GM.build_mtile_table(tiles, maps, [0, 0], [1, 1], [1.0, 1.0], [64, 80, 16])
    with pytest.raises(ValueError, match="one row class per tile"):
        GM.build_mtile_table(tiles, maps, [0, 0], [1, 1], [1.0, 1.0], [80])


def test_c_map_spec_covers_the_tiles_rows_only():
    """A tile's c map starts at its first row and holds its rows only, so the box (its row class x 64 columns) is
    clipped before the next tile's rows; c that TMA cannot address (base or pitch not 16-byte multiples) has none."""
    tiles = GM.mtiles([(200, 3072, 512), (5, 3072, 512)])
    assert [(t.row0, t.rows) for t in tiles] == [(0, 100), (100, 100), (0, 5)]
    base, shape, box, strides = GM.c_map_spec(tiles[1], 112, 3072, 0x10000, 3072)
    assert base == 0x10000 + 2 * 100 * 3072 and shape == (100, 3072) and box == (112, 64) and strides == (6144,)
    assert GM.c_map_spec(tiles[2], 16, 3072, 0x20000, 3072)[1:3] == ((5, 3072), (16, 64))
    assert GM.c_map_spec(tiles[0], 112, 3072, 0x10008, 3072) is None  # base 8 bytes off
    assert GM.c_map_spec(tiles[1], 112, 3072, 0x10000, 3076) is None  # pitch 6152 bytes
    assert GM.c_map_spec(tiles[0], 112, 3072, 0x10000, 3076) is None  # a bad pitch fails even at row 0
    assert GM.c_map_spec(tiles[1], 112, 3072, 0x10000, 3080) is not None  # 200 rows x 6160 bytes: still aligned


def test_param_map_slots_round_up_to_a_power_of_two_within_the_limit():
    assert [GM.param_map_slots(t) for t in (1, 2, 3, 4, 5, 8, 9, 16, 17, 32)] == [1, 2, 4, 4, 8, 8, 16, 16, 32, 32]
    assert GM.param_map_slots(CL.MAX_PARAM_MAPS + 1) == 0  # the maps stay in the table only
    assert CL.MAX_PARAM_MAPS * CL.PARAM_MAP_BYTES + 1024 < 32764  # with the other parameters, inside a launch's limit


def test_param_map_bytes_lay_out_each_tiles_four_maps():
    maps = [tuple(bytes([3 * t + j]) * 128 for j in range(3)) for t in range(3)]
    cmaps = [bytes([9]) * 128, None, bytes([7]) * 128]
    blob = GM.param_map_bytes(maps, cmaps, 4)
    assert len(blob) == 4 * CL.PARAM_MAP_BYTES == 2048
    for t in range(3):
        tile = blob[512 * t:512 * (t + 1)]
        assert tile[:384] == b"".join(maps[t]) and tile[384:] == (cmaps[t] or bytes(128))
    assert blob[1536:] == bytes(512)  # the unused slot
    with pytest.raises(ValueError, match="for 2 slots"):
        GM.param_map_bytes(maps, cmaps, 2)
    with pytest.raises(ValueError, match="three 128-byte maps"):
        GM.param_map_bytes([(b"x",) * 3], [None], 1)


def test_param_maps_build_reads_its_maps_without_fences():
    """PARAM_MAPS builds take each m tile's maps at p_maps + 512 mt (b +0, sfb +128, a16 +256, c +384) and issue no
    tensor-map proxy fence; table builds fence every map they use, as before."""
    def code(cons):
        text = render(CL.kernel_text(cons), "sm_90a", cons)
        return "\n".join(ln.split("//")[0] for ln in text.splitlines() if ln.split("//")[0].strip())

    with_params = code(CL.kernel_constants(2, 8, grouped=True, param_maps=4))
    assert ".param .align 64 .b8 p_maps[2048]" in with_params and "fence.proxy.tensormap" not in with_params
    assert with_params.count("cvta.param.u64") >= 3  # the B producer, the A16 producer, the storing thread
    assert "mad.wide.u32 %tm_b, %mt, 512, %tm_b;" in with_params
    assert "mad.wide.u32 %tm_a16, %mt, 512, %tm_a16;" in with_params and "add.u64 %tm_a16, %tm_a16, 256;" in with_params
    assert "mad.wide.u32 %tm_c, %mt, 512, %tm_c;" in with_params and "add.u64 %tm_c, %tm_c, 384;" in with_params
    table = code(CL.kernel_constants(2, 8, grouped=True))
    assert "p_maps" not in table and table.count("fence.proxy.tensormap::generic.acquire.gpu") == 4
    with pytest.raises(ValueError, match="param_maps must be an int in 0..32"):
        CL.kernel_constants(2, 8, grouped=True, param_maps=33)
    with pytest.raises(ValueError, match="param_maps needs grouped=True"):
        CL.kernel_constants(2, 8, param_maps=4)


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas (CUDA toolkit) not found")
def test_param_maps_build_assembles_without_spills():
    for cons in (CL.kernel_constants(1, 8, grouped=True, param_maps=4),
                 CL.kernel_constants(2, 8, grouped=True, row_classes=(128, 96, 64), param_maps=32)):
        f = assemble(CL.kernel_text(cons), "sm_90a", cons).functions["nvfp4_gemm_wgmma_cluster"]
        assert f.spill_stores == 0 and f.spill_loads == 0 and f.stack_frame == 0


def _run_ends(starts):
    return list(zip(starts[:-1], starts[1:]))


def test_unit_starts_uniform_runs_and_whole_tiles():
    assert GM.unit_starts([128] * 5, 24, 16, 132, units_per_cluster=16) == list(range(0, 5 * 24 * 16 + 1, 16))
    assert GM.unit_starts([128] * 2, 3, 10, 132, units_per_cluster=7) == list(range(0, 60, 7)) + [60]


def test_unit_starts_balance_the_row_classes_costs():
    tiles = GM.mtiles(COMPETITION[0])
    classes = GM.tile_row_classes(tiles, GM.choose_row_classes(tiles, 2), 2)
    starts = GM.unit_starts(classes, 16, 28, 66)
    assert starts[0] == 0 and starts[-1] == 11 * 16 * 28 and len(starts) - 1 <= 66
    assert all(a < b for a, b in _run_ends(starts))
    cost = np.repeat(np.repeat([GM.unit_cost(c) for c in classes], 16), 28)
    per_run = [cost[a:b].sum() for a, b in _run_ends(starts)]
    even = cost.sum() / 66
    # an even share of the costs, give or take what the model charges a run's two ends and one unit with its epilogue
    assert even < max(per_run) <= even + 2 * GM.SPLIT_COST + (1 + GM.EPILOGUE_COST) * cost.max()
    # the 128-row tiles get shorter runs than the 80-row ones
    assert min(b - a for a, b in _run_ends(starts)) < 70 < max(b - a for a, b in _run_ends(starts))


def test_unit_starts_match_the_best_contiguous_cut_on_small_problems():
    rng = np.random.default_rng(3)
    for _ in range(12):
        classes = [int(c) for c in rng.choice([32, 64, 96, 128], size=int(rng.integers(1, 4)))]
        nt, kb, runs = int(rng.integers(1, 3)), int(rng.integers(2, 6)), int(rng.integers(2, 6))
        starts = GM.unit_starts(classes, nt, kb, runs, split_cost=0.0)
        units = len(classes) * nt * kb
        per_tile = np.repeat([GM.unit_cost(c) for c in classes], nt)
        cost = np.repeat(per_tile, kb)
        cost[kb - 1::kb] += GM.EPILOGUE_COST * per_tile
        cum = np.concatenate([[0.0], np.cumsum(cost)])
        best = {0: 0.0}  # dynamic program: the cheapest costliest run over every cut into at most `runs` runs
        for _r in range(runs):
            nxt = dict(best)
            for a, c in best.items():
                for b in range(a + 1, units + 1):
                    v = max(c, cum[b] - cum[a])
                    nxt[b] = min(nxt.get(b, np.inf), v)
            best = nxt
        assert max(cum[b] - cum[a] for a, b in _run_ends(starts)) == pytest.approx(best[units], rel=1e-6)


def test_tile_contributors_and_schedule_words():
    starts = [0, 5, 9, 20, 24]  # 3 tiles of 8 units
    ctr = GM.tile_contributors(starts, 3, 8)
    assert ctr.tolist() == [[0, 1], [1, 2], [2, 3]]
    brute = [[q for q, (a, b) in enumerate(_run_ends(starts)) if a < 8 * t + 8 and b > 8 * t] for t in range(3)]
    assert [[lo, hi] for lo, hi in ctr.tolist()] == [[r[0], r[-1]] for r in brute]
    words = GM.schedule_words(starts, 3, 8)
    assert words.dtype == np.uint32 and words.tolist() == [0, 1, 1, 2, 2, 3] + starts


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


def test_cut_runs_keep_chains_short():
    for shapes in (COMPETITION[0], RAGGED[3], [(300, 512, 16384)] * 3):
        tiles = GM.mtiles(shapes)
        k_stages = shapes[0][2] // 256
        classes = GM.tile_row_classes(tiles, GM.choose_row_classes(tiles, 2), 2)
        starts = GM.unit_starts(classes, -(-shapes[0][1] // 256), k_stages, 66)
        for a, b in _run_ends(starts):
            for t in range(a // k_stages, (b - 1) // k_stages + 1):
                assert 0 < min(b, (t + 1) * k_stages) - max(a, t * k_stages) <= CL.MAX_CHAIN_UNITS


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
@pytest.mark.parametrize("cluster, a_bufs, classes", [(1, 6, (128,)), (2, 6, (128,)), (4, 6, (128,)),
                                                      (1, 8, (112, 96, 16)), (2, 8, (128, 96, 80)),
                                                      (2, 6, (128, 64, 16)), (4, 8, (128, 96, 32))])
def test_grouped_build_assembles_without_spills_or_wgmma_serialisation(cluster, a_bufs, classes):
    cons = CL.kernel_constants(cluster, a_bufs, grouped=True, row_classes=classes)
    rep = assemble(CL.kernel_text(cons), "sm_90a", cons)
    fn = rep.functions[CL._ENTRY]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0
    assert "serializ" not in rep.log.lower()


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found")
def test_four_row_classes_spill_which_is_why_a_build_holds_three():
    cons = CL.kernel_constants(2, 8, grouped=True, row_classes=(128, 112, 96, 80))
    fn = assemble(CL.kernel_text(cons), "sm_90a", cons).functions[CL._ENTRY]
    assert fn.spills and GM.MAX_ROW_CLASSES == 3


def _code(text):
    return [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("//")]


def test_unit_loop_is_written_once_per_row_class():
    cons = CL.kernel_constants(2, 8, grouped=True, row_classes=(128, 96, 80))
    text = render(CL.kernel_text(cons), "sm_90a", cons)
    one = render(PTX, "sm_90a", cons)  # the template's single loop
    for r in (128, 96, 80):
        assert text.count(f"wgmma.mma_async.sync.aligned.m64n{r}k16") == 16
        acc = "{" + ", ".join(f"%acc{j}" for j in range(r // 2)) + "}"
        assert text.count(acc) >= 16
        assert f"UNIT_LOOP_R{r}:" in text and text.count(f"@%p_more bra UNIT_LOOP_R{r};") == 1
    # the dispatch: the segment's class picks the loop; 128 (the first) is what anything else falls through to
    assert "setp.eq.u32 %p_rc, %rcls, 96;" in text and "@%p_rc bra UNIT_LOOP_R80;" in text
    assert "%rcls, 128;" not in text
    assert text.count("bra.uni ROWS_LOOP_DONE;") == 2 and "ROWS_LOOP_DONE:" in text
    # every copy is the template's loop but for its labels, wgmma shape and accumulators
    region = one[one.index("UNIT_LOOP:"):one.index("@%p_more bra UNIT_LOOP;")]
    copy = text[text.index("UNIT_LOOP_R96:"):text.index("@%p_more bra UNIT_LOOP_R96;")]
    acc64 = "{" + ", ".join(f"%acc{j}" for j in range(64)) + "}"
    acc48 = "{" + ", ".join(f"%acc{j}" for j in range(48)) + "}"
    assert _code(re.sub(r"_R96\b", "", copy).replace("m64n96k16", "m64n128k16").replace(acc48, acc64)) == \
        _code(region)
    # non-grouped builds keep the single loop
    plain = CL.kernel_constants(2, 8)
    assert CL.kernel_text(plain) == PTX


def test_expand_row_classes_checks_its_input():
    with pytest.raises(ValueError, match="distinct multiples of 8"):
        CL.expand_row_classes(PTX, [128, 100])
    with pytest.raises(ValueError, match="markers"):
        CL.expand_row_classes("nothing", [128])


def test_row_classes_constant_is_checked():
    assert CL.kernel_constants(2, 8)["ROW_CLASSES"] == "128"
    assert CL.kernel_constants(2, 8, grouped=True, row_classes=[128, 96])["ROW_CLASSES"] == "128_96"
    for bad, match in [((96, 128), "largest first"), ((128, 72), "multiples of 16"), ((), "multiples"),
                       ((256,), "multiples"), ("x", "sequence of ints")]:
        with pytest.raises(ValueError, match=match):
            CL.kernel_constants(2, 8, grouped=True, row_classes=bad)
    with pytest.raises(ValueError, match="multiples of 32"):
        CL.kernel_constants(4, 8, grouped=True, row_classes=(128, 48))
    with pytest.raises(ValueError, match="needs grouped=True"):
        CL.kernel_constants(2, 8, row_classes=(128,))


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
    with pytest.raises(ValueError, match="row_classes must hold 1..3 multiples of 16"):
        GM.GroupedGemmMTilePlan([(64, 128, 256)], cluster=2, row_classes=(128, 96, 80, 64))
    with pytest.raises(ValueError, match="no row class"):
        GM.GroupedGemmMTilePlan([(100, 128, 256)], cluster=2, row_classes=(64,))
    for bad in (-1.0, float("nan"), True, "1"):
        with pytest.raises(ValueError, match="split_cost must be a finite number >= 0"):
            GM.GroupedGemmMTilePlan([(64, 128, 256)], split_cost=bad)


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


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shapes, plan_kwargs", [
    (COMPETITION[0], dict(row_classes=(128,))),  # every tile on 128-row wgmmas
    (RAGGED[0], dict(cluster=2, row_classes=(128, 64, 16))),
    (RAGGED[1], dict(cluster=1, row_classes=(128, 112, 16), units_per_cluster=3)),
    ([(17, 256, 512), (33, 256, 512), (200, 256, 512)], dict(cluster=4, row_classes=(128, 64, 32))),
    ([(17, 256, 512), (33, 256, 512), (200, 256, 512)], dict(cluster=2, split_cost=0.0)),
    ([(250, 384, 2048), (90, 384, 2048), (9, 384, 2048)], dict(cluster=2)),
])
def test_row_classes_match_float64_reference(shapes, plan_kwargs):
    """Tiles of several row classes in one launch (their unit loops, A16 boxes and slices), whole and split."""
    results, plan, _ = _run(shapes, "wide", **plan_kwargs)
    assert all(r.ok for r in results), (plan, [r.summary() for r in results if not r.ok])
    assert _counters_zero(plan)
    if "row_classes" not in plan_kwargs:
        assert len(set(plan.tile_classes)) > 1  # the default chose several


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shapes, plan_kwargs, classes", [
    (COMPETITION[2], {}, (112,)),  # whole tiles in one wave: the largest class alone
    (COMPETITION[2], dict(cluster=1, units_per_cluster=8), (112, 96)),  # two runs per tile: both classes
    ([(90, 17408, 256), (100, 17408, 256)], dict(cluster=1, units_per_cluster=1), (112, 96)),  # whole, 272 CTAs
])
def test_whole_tiles_build_one_row_class_only_in_one_wave(shapes, plan_kwargs, classes):
    results, plan, _ = _run(shapes, "wide", **plan_kwargs)
    assert all(r.ok for r in results), (plan, [r.summary() for r in results if not r.ok])
    assert plan.row_classes == classes and plan.constants["ROW_CLASSES"] == "_".join(map(str, classes))


# ------------------------------------------------------------------ the epilogue's TMA store (session 39)
#: whole tiles, a ragged n, tiles whose row-class box is taller than their rows beside the same group's next tile,
#: split tiles (the reduction's store)
EPILOGUE_CASES = [
    (COMPETITION[2], {}), (COMPETITION[3], {}), (RAGGED[0], dict(cluster=2)),
    ([(200, 192, 512), (5, 192, 512), (100, 192, 512)], dict(cluster=1, row_classes=(112, 16))),
    ([(17, 256, 512), (33, 256, 512), (200, 256, 512)], dict(cluster=2, units_per_cluster=3)),
]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shapes, plan_kwargs", EPILOGUE_CASES)
def test_tma_store_gives_the_copy_outs_bits(shapes, plan_kwargs):
    """The same inputs through the TMA-store epilogue and through the copy-out (tma_store=False): the same bits, and
    the reference's values.  The shapes include tiles whose row-class box is taller than their rows, next to the
    same group's next tile (the map must clip there), split tiles (the reduction's store) and a ragged n."""
    import nvfp4rt

    results, plan, groups = _run(shapes, "wide", **plan_kwargs)
    assert all(r.ok for r in results), (plan, [r.summary() for r in results if not r.ok])
    assert plan.tma_store and all(m is not None for m in plan._c_maps)
    tma_bits = [g[4].numpy().view(np.uint16).copy() for g in groups]
    copy_plan = GM.GroupedGemmMTilePlan(shapes, tma_store=False, **plan_kwargs)
    for g in groups:
        g[4] = nvfp4rt.from_numpy(np.full(g[4].shape, np.nan, dtype=np.float16))
    copy_plan([tuple(g) for g in groups])
    assert all(m is None for m in copy_plan._c_maps)
    for g, bits in zip(groups, tma_bits):
        assert np.array_equal(g[4].numpy().view(np.uint16), bits)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("pad, shift, tma", [(8, 0, True), (3, 0, False), (8, 1, False)])
def test_c_rows_wider_than_n_and_unaligned_c(pad, shift, tma):
    """c rows of n + pad fp16 starting ``shift`` elements into a NaN buffer: with 16-byte rows and base, the TMA
    store (its map holds n columns, so the pad keeps its poison); otherwise the consumers' copy-out.  Both match the
    reference and write nothing outside c."""
    import dataclasses

    import nvfp4rt
    from nvfp4rt import data, reference
    from nvfp4rt.ops.gemm import GemmLayout
    from test_grouped_gemm import _device_groups
    from test_grouped_gemm_cluster import _At

    shapes = [(200, 192, 512), (5, 192, 512), (64, 192, 512)]
    d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
    refs = reference.grouped_gemm_ref(d.groups)
    groups = _device_groups(d)
    layouts, bufs = [], []
    for g, (m, n, k) in zip(groups, shapes):
        buf = nvfp4rt.from_numpy(np.full(m * (n + pad) + 16, np.nan, dtype=np.float16))
        bufs.append(buf)
        g[4] = _At(buf.ptr + 2 * shift)
        layouts.append(dataclasses.replace(GemmLayout.contiguous(m, n, k, 1), c_row=n + pad, c_batch=m * (n + pad)))
    plan = GM.GroupedGemmMTilePlan(shapes, layouts)
    plan([tuple(g) for g in groups])
    assert [m is not None for m in plan._c_maps] == [tma] * len(plan.tiles)
    for buf, r, (m, n, k) in zip(bufs, refs, shapes):
        flat = buf.numpy()
        assert np.isnan(flat[:shift]).all() and np.isnan(flat[shift + m * (n + pad):]).all()
        out = flat[shift:shift + m * (n + pad)].reshape(m, n + pad)
        assert np.isnan(out[:, n:]).all()  # the pad columns
        res = reference.check(out[:, :n, None], r)
        assert res.ok, res.summary()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shapes, plan_kwargs",
                         EPILOGUE_CASES + [(RAGGED[1], dict(cluster=1))])  # c rows of 260 bytes: no c maps
def test_param_maps_give_the_table_maps_bits(shapes, plan_kwargs):
    """The same inputs with the maps as a kernel parameter and from the table: the same bits, the reference's values,
    and a moved c buffer reaches the parameter too (the prepared launch's p_maps is rewritten)."""
    import nvfp4rt

    results, plan, groups = _run(shapes, "wide", param_maps=True, **plan_kwargs)
    assert all(r.ok for r in results), (plan, [r.summary() for r in results if not r.ok])
    assert plan.param_slots == GM.param_map_slots(len(plan.tiles)) > 0 and plan.constants["PARAM_MAPS"] > 0
    bits = [g[4].numpy().view(np.uint16).copy() for g in groups]
    table_plan = GM.GroupedGemmMTilePlan(shapes, param_maps=False, **plan_kwargs)
    assert table_plan.param_slots == 0 and table_plan.constants["PARAM_MAPS"] == 0
    for g in groups:
        g[4] = nvfp4rt.from_numpy(np.full(g[4].shape, np.nan, dtype=np.float16))
    table_plan([tuple(g) for g in groups])
    for g, b in zip(groups, bits):
        assert np.array_equal(g[4].numpy().view(np.uint16), b)
    plan([tuple(g) for g in groups])  # the first plan again, on the moved c buffers
    assert plan.uploads == 2
    for g, b in zip(groups, bits):
        assert np.array_equal(g[4].numpy().view(np.uint16), b)


def test_param_maps_argument_is_checked():
    with pytest.raises(ValueError, match="param_maps must be True, False or None"):
        GM.GroupedGemmMTilePlan([(64, 128, 256)], param_maps=1)
