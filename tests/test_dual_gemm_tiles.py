"""The dual GEMM on the cluster GEMM's 128-row tiles (ptx/gemm_nvfp4_wgmma_cluster.ptx with DUAL = 1,
nvfp4rt.ops.dual_gemm_tiles).  CPU: the build's text (B1/B2 boxes, alphas, the copy-out), its assembly, the
schedule rule and the op layer's choice, argument checks.  GPU: the float64 reference on the competition and
awkward shapes in both distributions with NaN-poisoned output, every schedule, distinct alphas, repeat bits."""
from __future__ import annotations

import re

import numpy as np
import pytest

from nvfp4rt.ops import dual_gemm as D
from nvfp4rt.ops import dual_gemm_tiles as DT
from nvfp4rt.ops import gemm_wgmma_cluster as GC
from nvfp4rt.ptxsource import ptx_dir, render

from conftest import requires_gpu, requires_ptxas

KERNEL = ptx_dir() / "gemm_nvfp4_wgmma_cluster.ptx"


def _rendered(dual=True, cluster=1) -> str:
    return render(KERNEL.read_text(), "sm_90a", GC.kernel_constants(cluster, 6, 1, 2, dual=dual))


def _b_loads(text):
    """(shared destination expression, map register) of each B producer TMA load, in order."""
    body = text[text.index("B_PRODUCER:"):text.index("A_PRODUCER:")]
    loads = re.findall(r"\[(%\w+)\], \[(%tm_\w+), \{", body)
    return loads, body


def test_dual_build_loads_b1_rows_for_warpgroup_0_and_b2_rows_for_warpgroup_1():
    loads, body = _b_loads(_rendered())
    assert [tm for _, tm in loads] == ["%tm_b", "%tm_sfb", "%tm_b2", "%tm_sfb2"]
    # B1 at the slot's start (rows 0..63), B2 at 64 rows of 128 bytes, the scales at SFB_OFF and 64 rows of 16 further
    assert "add.u32 %addr, %slot_addr, 8192;" in body
    assert f"add.u32 %addr, %slot_addr, {128 * 128} + 1024;" in body
    assert "shl.b32 %n0, %n0, 6;" in body  # 64 output columns per CTA tile: both boxes start at row n0
    plain, _ = _b_loads(_rendered(dual=False))
    assert [tm for _, tm in plain] == ["%tm_b", "%tm_sfb"]


def test_dual_build_takes_alpha2_only_in_warpgroup_1_and_stores_64_columns():
    text = _rendered()
    store = text[text.index("STORE_TILE:"):text.index("NEXT_SEG:")]
    # warpgroup 0 (p_h2 false) branches around the alpha2 load to the shared barrier after staging
    i = store.index("@!%p_h2 bra DUAL_STAGED;")
    assert store.index("ld.param.f32 %alpha, [alpha2];") > i
    assert store.index("DUAL_STAGED:") > store.index("ld.param.f32 %alpha, [alpha2];")
    # every accumulator of warpgroup 1 is multiplied by the exchanged silu value exactly once
    for a in range(64):
        assert len(re.findall(rf"mul\.f32 %acc{a}, %acc{a}, %v\d;", store)) == 1
    # the copy-out covers 128 rows x 8 chunks from staging columns 64..127
    assert "setp.lt.u32 %p_more, %i, 8*128;" in store and "add.u32 %addr, %addr, 128;" in store
    start = text.index(".visible .entry")
    names = re.findall(r"\.param [^\n]*?(\w+)(?:\[128\])?,?\n", text[start:text.index(")", start) + 1] + "\n")
    plain = _rendered(dual=False)
    start0 = plain.index(".visible .entry")
    names0 = re.findall(r"\.param [^\n]*?(\w+)(?:\[128\])?,?\n", plain[start0:plain.index(")", start0) + 1] + "\n")
    # the DUAL build appends B2's maps and alpha2 to the GEMM's parameters (DualGemmTilesPlan._prepare passes them so)
    assert names == names0 + ["tmap_b2", "tmap_sfb2", "alpha2"], names


@pytest.mark.parametrize("kwargs,match", [(dict(ksplit=2, cluster=1), "dual needs ksplit=1"),
                                          (dict(grouped=True), "grouped=False"),
                                          (dict(consumer_wgs=3), "consumer_wgs=2")])
def test_dual_constants_refuse_the_epilogues_it_does_not_have(kwargs, match):
    with pytest.raises(ValueError, match=match):
        GC.kernel_constants(**{"cluster": 2, "a_bufs": 6, **kwargs, "dual": True})


@requires_ptxas
@pytest.mark.parametrize("cluster", GC.CLUSTER_SIZES)
def test_dual_build_assembles_without_spills(cluster):
    from nvfp4rt.assemble import assemble

    rep = assemble(KERNEL, "sm_90a", GC.kernel_constants(cluster, 6, 1, 2, dual=True))
    fn = rep.functions["nvfp4_gemm_wgmma_cluster"]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0


def test_whole_tile_rule_and_the_variant_choice():
    # the GEMM's tiles on (m, 2n, k): 128 and 96 whole tiles fit an H100's 132 SMs
    assert DT.whole_tiles(256, 4096, 7168, 1, 132) and DT.whole_tiles(256, 3072, 4096, 1, 132)
    assert not DT.whole_tiles(512, 3072, 7168, 1, 132)  # 192 tiles: two waves
    assert not DT.whole_tiles(256, 4096, 7168, 1, 100)
    assert D.variant_for(256, 4096, 7168, 1) == "wgmma_tiles"
    assert D.variant_for(256, 3072, 4096, 1) == "wgmma_tiles"
    assert D.variant_for(256, 4096, 7168, 1, sm_count=100) == "wgmma_cluster"
    assert D.variant_for(512, 3072, 7168, 1) == "wgmma_tiles"  # stream-K over the tiles (cluster_tiles_win below)
    assert D.variant_for(512, 4096, 7168, 1) == "wgmma_cluster"  # whole cluster tiles per run (session 43)
    assert D.variant_for(512, 3328, 1024, 1) == "wgmma_cluster"  # whole cluster tiles per run; the tiles' run splits
    assert D.variant_for(D.CLUSTER_MIN_M, 512, 1024, 1) == "wgmma"  # m <= 128 keeps the first kernel
    assert D.variant_for(256, 3072, 4096, 1, alpha2=2.0**110) == "wgmma"  # the 2^28 operand scaling would overflow


@pytest.mark.parametrize("m,n,k,cluster_wins", [
    # H100 whole calls, us, the cluster kernel built as a whole program (session 43, dual43.py): cluster | tiles
    (512, 4096, 7168, True),    # 82.8 | 88.8: the cluster's share, 28 units, is one whole tile
    (1024, 2048, 4096, True),   # 53.1 | 54.9: 16 units, one whole tile
    (768, 3072, 4096, False),   # 65.2 | 65.3: its share of 18 units splits tiles of 16
    (512, 3072, 7168, False),   # 71.9 | 69.7: split
    (384, 4096, 7168, False),   # 83.7 | 72.1: its second 256-row m tile is half empty
    (384, 3072, 2048, False),   # 33.6 | 28.1: padded and split
    (768, 4096, 7168, False),   # 186.9 | 131.5: split
    (1024, 4096, 7168, False),  # 190.7 | 184.3: split
    (1024, 3072, 2048, False),  # 48.2 | 46.2: split
])
def test_cluster_kernel_only_where_its_tiles_are_whole(m, n, k, cluster_wins):
    assert D.cluster_tiles_win(m, n, k, 1, 132) == cluster_wins
    assert D.variant_for(m, n, k, 1) == ("wgmma_cluster" if cluster_wins else "wgmma_tiles")


@pytest.mark.parametrize("m,n,k,even,run", [
    # H100 kernel alone, us (docs/dual_gemm.md, "Session 21"): the even share against the quarter-tile run
    (512, 3072, 7168, 41, 42),   # 80.4 -> 71.2
    (768, 2048, 7168, 41, 42),   # 81.2-81.6 -> 73.7
    (384, 4096, 7168, 41, 42),   # 80.2-80.7 -> 75.5-76.2
    (640, 3072, 4096, 30, 32),   # 60.9-61.1 -> 53.9-54.1 (a quarter tile is 4 units)
    (768, 3072, 4096, 35, 36),   # 70.5-70.8 -> 67.4-67.6 (40, half tiles: 72.1-72.2)
    (384, 3072, 7168, 31, 31),   # 35 would be 4 units longer: 64.8-65.1 against 64.1-64.5
    (512, 4096, 7168, 55, 56),   # two whole tiles per CTA
    (384, 3072, 2048, 9, 10),    # whole call 29.3 against 29.6, kernel alone 28.1-28.2 against 27.3
])
def test_stream_k_runs_end_on_a_quarter_tile_within_the_slack(m, n, k, even, run):
    from nvfp4rt.ops.gemm_wgmma_cluster import _ksplit_problem

    g, _ = _ksplit_problem(m, 2 * n, k, 1, 132, streamk_cluster=DT.STREAMK_CLUSTER)
    assert -(-g.units // 132) == even
    assert DT.aligned_run(g.units, g.k_stages, 132) == run


def test_runs_stay_capped_where_a_tile_has_more_stages_than_one_chain_may_sum():
    """k = 16384 (64 stages): the even share is capped at MAX_CHAIN_UNITS = 32 units (no fp32 chain past 8192 k), and
    a quarter-tile run (96 here) would hold whole tiles, so the plan keeps the capped even share."""
    from nvfp4rt.ops.gemm_wgmma_cluster import MAX_CHAIN_UNITS, _ksplit_problem

    g, _ = _ksplit_problem(512, 2 * 3072, 16384, 1, 132, streamk_cluster=DT.STREAMK_CLUSTER)
    assert g.k_stages == 64 > MAX_CHAIN_UNITS and g.units_per_cluster == MAX_CHAIN_UNITS
    assert DT.aligned_run(g.units, g.k_stages, 132) == 96
    assert DT.streamk_run(512, 3072, 16384, 1, 132) is None
    assert DT.streamk_run(512, 3072, 7168, 1, 132) == 42
    assert D.cluster_tiles_win(512, 3072, 16384, 1, 132) is False  # m 512, but the cluster kernel's share splits


def test_aligned_run_rounds_to_quarter_half_or_whole_tiles():
    assert DT.aligned_run(100, 16, 10) == 12           # even 10, quarter tile 4
    assert DT.aligned_run(100, 6, 10) == 12            # 6 stages: half tiles of 3
    assert DT.aligned_run(100, 7, 10) == 10            # 7 stages: whole tiles, 14 is beyond the slack
    assert DT.aligned_run(100, 16, 10 + 2) == 9        # even 9 -> 12 would be 3 units longer: the even share
    assert DT.aligned_run(41 * 132, 28, 132) == 42     # exactly 41 units each -> 42
    assert DT.RUN_SLACK == 2


def test_bad_arguments_raise_before_any_gpu_work():
    with pytest.raises(ValueError, match="alpha1, alpha2"):
        DT.DualGemmTilesPlan(256, 64, 256, alpha1=2.0**110)
    with pytest.raises(ValueError, match="k must be a multiple of 64"):
        DT.DualGemmTilesPlan(256, 64, 100)
    with pytest.raises(ValueError, match="cluster"):
        DT.DualGemmTilesPlan(256, 64, 256, cluster=3)


# ============================================================================ GPU

def _case(m, n, k, l, distribution, **kwargs):
    from test_dual_gemm import _run_case

    return _run_case(m, n, k, l, distribution, plan_class=DT.DualGemmTilesPlan, **kwargs)


GPU_SHAPES = [(256, 4096, 7168, 1), (256, 3072, 4096, 1), (512, 3072, 7168, 1), (1, 64, 64, 1), (200, 100, 512, 1),
              (130, 1000, 1024, 2), (64, 65, 320, 3), (384, 513, 2048, 1), (257, 3000, 8192, 1), (129, 1, 64, 1)]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l", GPU_SHAPES)
@pytest.mark.parametrize("distribution", ["competition", "wide"])
def test_matches_float64_reference(m, n, k, l, distribution):
    from test_dual_gemm import assert_correct_and_repeatable

    assert_correct_and_repeatable(*_case(m, n, k, l, distribution))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l", [(256, 3072, 4096, 1), (300, 130, 512, 1), (200, 72, 1024, 3)])
@pytest.mark.parametrize("kwargs", [dict(cluster=1, units_per_cluster=1000), dict(cluster=2), dict(cluster=4),
                                    dict(cluster=1, units_per_cluster=3), dict(cluster=2, stages=2, a_bufs=8)])
def test_every_schedule_matches_float64_reference(m, n, k, l, kwargs):
    for distribution in ("competition", "wide"):
        res, plan, *_ = _case(m, n, k, l, distribution, **kwargs)
        assert res.ok, f"{plan!r} {distribution}: {res.report()}"


@pytest.mark.gpu
@requires_gpu
def test_the_plans_default_schedules():
    """Whole tiles in clusters of 1 where they fit one wave; otherwise stream-K over clusters of STREAMK_CLUSTER = 1,
    which beat 2 by 0.7-3.5 us on all six m = 384..1024 shapes measured (docs/dual_gemm.md, "Session 20")."""
    whole = DT.DualGemmTilesPlan(256, 4096, 7168)
    assert (whole.geometry.cluster, whole.geometry.units_per_cluster) == (1, 28)
    streamed = DT.DualGemmTilesPlan(512, 3072, 7168)
    assert streamed.geometry.cluster == DT.STREAMK_CLUSTER == 1
    assert streamed.geometry.units_per_cluster == 42  # stream-K in runs of a tile and a half (aligned_run)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("kwargs", [dict(), dict(cluster=2, units_per_cluster=3)])
def test_alphas_scale_h1_before_silu_and_h2_after(kwargs):
    """alpha1 (warpgroup 0's h1, inside the silu) and alpha2 (warpgroup 1's h2) are distinct and asymmetric, so a swap
    or a missing one fails: c = fp16(silu(alpha1 h1) * (alpha2 h2))."""
    import nvfp4rt
    from nvfp4rt import data, reference

    m, n, k = 300, 200, 1024
    d = data.dual_gemm_data(m, n, k, 1, seed=None, distribution="wide")
    with np.errstate(over="ignore"):
        h1 = reference.matmul_ref(d.a, d.b1, d.sfa, d.sfb1).astype(np.float32)
        h2 = reference.matmul_ref(d.a, d.b2, d.sfa, d.sfb2).astype(np.float32)
    a1, a2 = np.float32(0.375), np.float32(-3.0)
    ref = (reference._silu(a1 * h1) * (a2 * h2)).astype(np.float16)
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8))
           for x in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")}
    c = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
    plan = DT.DualGemmTilesPlan(m, n, k, 1, alpha1=float(a1), alpha2=float(a2), **kwargs)
    plan.run(*(dev[x] for x in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")), c)
    res = reference.check(c.numpy().transpose(1, 2, 0), ref)
    assert res.ok, f"{plan!r}: {res.report()}"


@pytest.mark.gpu
@requires_gpu
def test_the_op_layer_picks_the_tiles_where_they_fit_one_wave_whole():
    assert isinstance(D.plan_dual_gemm_silu(256, 3072, 4096), DT.DualGemmTilesPlan)
    assert isinstance(D.plan_dual_gemm_silu(256, 4096, 7168), DT.DualGemmTilesPlan)
    plan = D.plan_dual_gemm_silu(256, 4096, 7168)
    assert plan.geometry.cluster == 1 and plan.geometry.units_per_cluster == plan.geometry.k_stages
