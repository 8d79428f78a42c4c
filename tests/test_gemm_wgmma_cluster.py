"""The cluster GEMM (ptx/gemm_nvfp4_wgmma_cluster.ptx, nvfp4rt.ops.gemm_wgmma_cluster).

CPU part:
* its consumer unit loop is the A_DECODER=1 loop of ptx/gemm_nvfp4_wgmma.ptx (which
  tests/test_gemm_wgmma.py replays on numpy: mapping, swizzles, descriptors, hazards) with
  exactly the documented changes (18432-byte slots, a16 release to every CTA of the cluster);
* it assembles for every cluster size and a16 depth without spills or wgmma serialisation;
* the cluster-level stream-K split covers every unit once and gives each CTA distinct slots;
* a model of the multicast a16 ring: no buffer is refilled while any CTA may still read it,
  and the ring never deadlocks;
* bad arguments raise before any GPU work.

GPU part (``@pytest.mark.gpu``): against nvfp4rt.reference on fresh data, both distributions,
NaN-poisoned outputs, ragged shapes, every cluster size; repeat runs are bit-identical.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from nvfp4rt.assemble import assemble, find_ptxas
from nvfp4rt.ops import gemm_wgmma as W
from nvfp4rt.ops import gemm_wgmma_cluster as CL
from nvfp4rt.ptxsource import render

from conftest import requires_gpu

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "ptx" / "gemm_nvfp4_wgmma_cluster.ptx"
GEMM = ROOT / "ptx" / "gemm_nvfp4_wgmma.ptx"
EPILOGUE = "    // ================================================================== segment epilogue"


def _code(text: str) -> list[str]:
    return [ln.rstrip() for ln in text.split("\n") if ln.strip()]


def _unit_loop(text: str) -> str:
    return text[text.index("UNIT_LOOP:"):text.index(EPILOGUE)]


def _cluster_text(cluster=1, a_bufs=6) -> str:
    return render(KERNEL.read_text(), "sm_90a", {"CLUSTER": cluster, "A_BUFS": a_bufs})


# ============================================================== the main loop is the replayed one

def test_unit_loop_is_the_decoder_variant_loop_with_the_documented_changes():
    gemm = render(GEMM.read_text(), "sm_90a", W.kernel_constants(normal_operands=False, a_decoder=True, a_bufs=4))
    loop = _unit_loop(gemm)
    loop = loop.replace("mul.lo.u32 %slot_addr, %slot, 36864;",
                        "mul.lo.u32 %slot_addr, %slot, 18432;  // ring slot [B 128x128 | sfb 128x16]")
    loop = loop.replace("// every wgmma of the previous sub-step is complete: its a16 buffer goes back to the decoder",
                        "// every wgmma of the previous sub-step is complete: its a16 buffer goes back to the producers")
    loop = loop.replace("setp.eq.u32 %p_wrap, %ab, 4;", "setp.eq.u32 %p_wrap, %ab, 6;")
    loop = loop.replace("// ---- A_DECODER=1: the decoder warpgroup fills a16 buffer ab (waited for below, before the first wgmma)",
                        "// ---- the A16 producer fills a16 buffer ab by TMA (waited for below, before the first wgmma)")
    loop = re.sub(r"    add\.u32 %j3, %j3, 1;\n    setp\.eq\.u32 %p_wrap, %j3, 3;\n    @%p_wrap mov\.u32 %j3, 0;\n", "", loop)
    mine = _unit_loop(_cluster_text(cluster=1, a_bufs=6))
    assert _code(mine) == _code(loop)


def test_cluster_release_reaches_every_cta_of_the_cluster():
    for cluster in CL.CLUSTER_SIZES:
        loop = _unit_loop(_cluster_text(cluster))
        ranks = sorted(int(r) for r in re.findall(r"@%p_rel mapa\.shared::cluster\.u32 %rbar, %bar, (\d+);", loop))
        per_release = list(range(cluster)) if cluster > 1 else []
        assert ranks == sorted(per_release * 4), (cluster, ranks)  # 4 sub-steps per unit
        assert ("mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];" in loop.split("@%p_rel")[1]) == (cluster == 1)
        text = "\n".join(ln.split("//")[0] for ln in _cluster_text(cluster).split("\n"))  # code only
        assert f"mbarrier.init.shared::cta.b64 [%bar], 8*{cluster};" in text
        assert (".multicast::cluster" in text) == (cluster > 1)
        assert f"mov.u16 %mask, (1 << {cluster}) - 1;" in text
        assert f"mul.lo.u32 %arow, %rank, 128/{cluster};" in text


# ============================================================== assembly

_HAVE_PTXAS = find_ptxas() is not None


@pytest.mark.skipif(not _HAVE_PTXAS, reason="ptxas not found")
@pytest.mark.parametrize("cluster,a_bufs", [(1, 6), (2, 6), (4, 6), (2, 4), (2, 8)])
def test_kernel_assembles_without_spills_or_wgmma_serialisation(cluster, a_bufs):
    rep = assemble(KERNEL, "sm_90a", {"CLUSTER": cluster, "A_BUFS": a_bufs})
    fn = rep.functions["nvfp4_gemm_wgmma_cluster"]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0
    assert "serializ" not in rep.log.lower()


def test_kernel_file_is_ascii_with_a_header():
    raw = KERNEL.read_bytes()
    raw.decode("ascii")
    first = raw.split(b"\n", 1)[0].decode()
    assert first.startswith("// nvfp4rt: targets=sm_90a constants=CLUSTER=")
    for section in ("WHAT", "TILES AND WORK SPLIT", "PIPELINE AND WARP ROLES", "STREAM-K REDUCTION", "EPILOGUE",
                    "CLUSTER LIFETIME", "LAUNCH CONTRACT"):
        assert f"// {section}" in raw.decode()


# ============================================================== geometry

@pytest.mark.parametrize("m,n,k,l,cluster,maxc", [
    (128, 7168, 16384, 1, 2, 66), (128, 4096, 7168, 1, 2, 66), (128, 7168, 2048, 1, 4, 32),
    (300, 1000, 1088, 2, 2, 66), (1, 1, 64, 1, 4, 32), (129, 130, 320, 3, 1, 132), (64, 384, 2304, 1, 2, 7)])
def test_every_unit_once_per_rank_and_partials_in_distinct_slots(m, n, k, l, cluster, maxc):
    g = CL.cluster_geometry(m, n, k, l, maxc, cluster=cluster)
    assert g.clusters <= max(maxc, -(-g.units // CL.MAX_CHAIN_UNITS))
    assert g.units_per_cluster <= CL.MAX_CHAIN_UNITS
    seen = np.zeros(g.units, dtype=int)
    slots = {}
    for q in range(g.clusters):
        lo, hi = q * g.units_per_cluster, min((q + 1) * g.units_per_cluster, g.units)
        seen[lo:hi] += 1
        tiles = sorted({u // g.k_stages for u in range(lo, hi)})
        assert len(tiles) <= 2 or all(len(g.contributors(t)) == 1 for t in tiles[1:-1])
        for r in range(cluster):
            for t in tiles:
                if len(g.contributors(t)) > 1:
                    sidx = 0 if t == (q * g.units_per_cluster) // g.k_stages else 1
                    slot = 2 * (cluster * q + r) + sidx
                    assert slot < 2 * g.grid and slot not in slots
                    slots[slot] = (cluster * t + r, q)
    assert (seen == 1).all()
    # each rank's 128 columns of every cluster tile lie inside [0, cluster * n_tiles * 128)
    assert g.n_tiles * cluster * 128 >= n > (g.n_tiles - 1) * cluster * 128
    assert g.counters == cluster * g.tiles and g.workspace_bytes == 2 * g.grid * 128 * 128 * 4


def test_default_shared_memory_fits_the_h100_opt_in_limit():
    assert CL.shared_bytes(4, 6) <= 232448
    assert CL.shared_bytes(5, 6) <= 232448
    assert CL.shared_bytes(6, 6) > 232448  # the plan refuses it on an H100 (checked against the device)


# ============================================================== the multicast a16 ring

def _multicast_ring(cluster, nbufs, substeps, order_seed, *, release_to=None):
    """Run every CTA's A16 producer and consumers (one reader per CTA) in a random interleaving.

    A consumer step is two events: start reading sub-step s (needs afull of its buffer complete) and
    finish (its wgmmas completed: lane 0 of each warp arrives on aempty of the CTAs in ``release_to(r)``,
    by default every CTA of the cluster, as the kernel does).  A producer of rank r fills sub-step s
    when its own aempty of that buffer has completed the previous laps, writing its slice into every
    CTA.  Returns (violations, finished): a slice landing in a buffer some CTA is reading, or a
    reader starting on a buffer whose fill is incomplete, is a violation."""
    release_to = release_to or (lambda r: range(cluster))
    rng = np.random.default_rng(order_seed)
    afull_phase = [[0] * nbufs for _ in range(cluster)]           # completed fills per (cta, buf)
    slices_in = [[0] * nbufs for _ in range(cluster)]             # slices of the current fill landed
    aempty = [[0] * nbufs for _ in range(cluster)]                # arrivals on each CTA's aempty (this lap)
    aempty_phase = [[0] * nbufs for _ in range(cluster)]
    produced = [0] * cluster                                      # next sub-step each producer fills
    consumed = [0] * cluster                                      # next sub-step each consumer reads
    reading = [None] * cluster                                    # sub-step a consumer is reading
    errors = []
    for _ in range(100000):
        moves = []
        for r in range(cluster):
            s = produced[r]
            if s < substeps and aempty_phase[r][s % nbufs] >= s // nbufs:  # parity wait passes
                moves.append(("fill", r))
            if reading[r] is not None:
                moves.append(("done", r))
            elif consumed[r] < substeps and afull_phase[r][consumed[r] % nbufs] > consumed[r] // nbufs:
                moves.append(("read", r))
        if not moves:
            break
        kind, r = moves[rng.integers(len(moves))]
        if kind == "fill":
            b = produced[r] % nbufs
            for dst in range(cluster):  # multicast: the slice lands in every CTA
                if reading[dst] is not None and reading[dst] % nbufs == b:
                    errors.append(f"rank {r} wrote buffer {b} of cta {dst} while sub-step {reading[dst]} reads it")
                slices_in[dst][b] += 1
                if slices_in[dst][b] == cluster:
                    slices_in[dst][b] = 0
                    afull_phase[dst][b] += 1
            produced[r] += 1
        elif kind == "read":
            reading[r] = consumed[r]
            if slices_in[r][reading[r] % nbufs]:
                errors.append(f"cta {r} reads sub-step {reading[r]} with a fill in progress")
        else:
            b = reading[r] % nbufs
            reading[r] = None
            for dst in release_to(r):
                aempty[dst][b] += 1
                if aempty[dst][b] == cluster:
                    aempty[dst][b] = 0
                    aempty_phase[dst][b] += 1
            consumed[r] += 1
    return errors, all(c == substeps for c in consumed) and all(p == substeps for p in produced)


@pytest.mark.parametrize("cluster", CL.CLUSTER_SIZES)
@pytest.mark.parametrize("nbufs", [4, 6])
def test_multicast_ring_never_overwrites_a_buffer_in_use_and_never_deadlocks(cluster, nbufs):
    for seed in range(20):
        errors, done = _multicast_ring(cluster, nbufs, 4 * 9, seed)
        assert not errors, errors[:3]
        assert done


def test_ring_model_catches_a_release_to_the_own_cta_only():
    """Releasing only to the own producer (counted as if all had arrived) lets a peer overwrite a buffer in use."""
    caught = 0
    for seed in range(20):
        errors, done = _multicast_ring(2, 4, 4 * 9, seed, release_to=lambda r: [r, r])
        caught += bool(errors) or not done
    assert caught


# ============================================================== arguments

@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(m=128, n=256, k=96), ValueError, "multiple of 64"),
    (dict(m=0, n=256, k=256), ValueError, "m"),
    (dict(m=128, n=256, k=256, cluster=3), ValueError, "cluster"),
    (dict(m=128, n=256, k=256, stages=7), ValueError, "stages"),
    (dict(m=128, n=256, k=256, a_bufs=3), ValueError, "a_bufs"),
    (dict(m=128, n=256, k=256, alpha=float("nan")), ValueError, "alpha"),
    (dict(m=128, n=256, k=256, alpha=1e35), ValueError, "alpha"),
])
def test_bad_plan_arguments_raise_before_any_gpu_work(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        CL.GemmClusterPlan(**kwargs)


def test_supports_follows_the_tma_and_alpha_rules():
    assert CL.supports(128, 7168, 16384, 1)
    assert not CL.supports(128, 7168, 96, 1)
    assert not CL.supports(128, 256, 512, 1, alpha=1e35)


# ============================================================== GPU

def _run_case(m, n, k, l, distribution, **plan_kwargs):
    import nvfp4rt
    from nvfp4rt import data, reference

    d = data.gemm_data(m, n, k, l, seed=None, distribution=distribution)
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    dev = {name: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(name)).view(np.uint8))
           for name in ("a", "b", "sfa", "sfb")}
    c = nvfp4rt.from_numpy(np.full((l, m, n), np.nan, dtype=np.float16))
    plan = CL.GemmClusterPlan(m, n, k, l, **plan_kwargs)
    plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
    out = c.numpy().transpose(1, 2, 0)
    return reference.check(out, ref), plan, dev, c, ref


GPU_SHAPES = [(128, 7168, 2048, 1), (128, 256, 512, 1), (1, 1, 64, 1), (127, 129, 320, 1), (200, 1000, 1088, 2),
              (129, 8, 4096, 1), (64, 300, 256, 3), (256, 7, 960, 1), (130, 640, 16384, 1)]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l", GPU_SHAPES)
@pytest.mark.parametrize("cluster", CL.CLUSTER_SIZES)
def test_matches_float64_reference(m, n, k, l, cluster):
    for distribution in ("competition", "wide"):
        res, *_ = _run_case(m, n, k, l, distribution, cluster=cluster)
        assert res.ok, (distribution, res.report())


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("kw", [dict(), dict(cluster=4), dict(stages=2, a_bufs=4), dict(stages=5, a_bufs=6)])
@pytest.mark.parametrize("upc", [1, 3, 1000])
def test_split_choice_does_not_change_the_result_and_repeats_are_identical(upc, kw):
    res, plan, dev, c, ref = _run_case(128, 1024, 2048, 1, "wide", units_per_cluster=upc, **kw)
    assert res.ok, res.report()
    first = c.numpy().copy()
    plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)  # counters were reset by the last CTAs
    assert np.array_equal(first.view(np.uint16), c.numpy().view(np.uint16))


@pytest.mark.gpu
@requires_gpu
def test_moved_buffers_and_padded_scales():
    """New input buffers re-point the tensor maps; sfb rows not 16-byte strided go through the padded copy."""
    import nvfp4rt
    from nvfp4rt import data, reference

    plan = None
    for _ in range(2):
        m, n, k = 96, 640, 320  # k/16 = 20-byte scale rows: padded
        d = data.gemm_data(m, n, k, 1, seed=None, distribution="wide")
        dev = {name: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(name)).view(np.uint8))
               for name in ("a", "b", "sfa", "sfb")}
        c = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, dtype=np.float16))
        plan = plan or CL.GemmClusterPlan(m, n, k, 1)
        plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
        res = reference.check(c.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb))
        assert res.ok, res.report()
