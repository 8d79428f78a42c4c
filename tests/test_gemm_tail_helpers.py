"""The cluster GEMM's K split with tail helpers (KS_HELP in ptx/gemm_nvfp4_wgmma_cluster.ptx, ``help_tail=`` of
nvfp4rt.ops.gemm_wgmma_cluster.GemmClusterPlan).

CPU part:
* the schedule: the pairs and the helpers together run every (tile, k stage) exactly once, each helper's W slot of a
  tile is distinct and below ``help_slots``, and the geometry's grid, counters and workspace follow;
* the geometry and the plan refuse what the kernel cannot run, before any GPU work;
* the KS_HELP build assembles without spills or wgmma serialisation;
* the protocol's text: the consumers hand their W to the publisher warp through an mbarrier (no fence or atomic on
  their path), the publisher counts it in with acq_rel atomics and resets the counter it completes, and a pair CTA
  acquires the counter and fences the async proxy before it bulk-copies the helpers' W.

GPU part (``@pytest.mark.gpu``): against nvfp4rt.reference on fresh data, both distributions, NaN-poisoned c, with
helpers that finish first (the pairs add their W) and helpers that finish last (they finish the tiles); repeats are
bit-identical and every counter is zero again after each call.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nvfp4rt.assemble import assemble, find_ptxas
from nvfp4rt.ops import gemm_wgmma_cluster as CL
from nvfp4rt.ptxsource import render

from conftest import requires_gpu

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "ptx" / "gemm_nvfp4_wgmma_cluster.ptx"
_HAVE_PTXAS = find_ptxas() is not None


def _help_text() -> str:
    return render(KERNEL.read_text(), "sm_90a", CL.kernel_constants(1, 10, 1, 2, True, CL.DEFAULT_HEAD_WAIT, 2,
                                                                     False, True))


def _section(text: str, start: str, end: str) -> str:
    return text[text.index(start):text.index(end, text.index(start))]


# ============================================================== the schedule

@pytest.mark.parametrize("m,n,k,l,tail,helpers", [(128, 7168, 16384, 1, 8, 20), (128, 4096, 7168, 1, 12, 68),
                                                  (200, 3000, 4096, 1, 3, 36), (1, 256, 2304, 1, 4, 2),
                                                  (130, 520, 3072, 2, 5, 6), (77, 333, 1792, 3, 2, 4),
                                                  (128, 1024, 4096, 1, 4, 2)])
def test_pairs_and_helpers_run_every_stage_of_every_tile_once(m, n, k, l, tail, helpers):
    """The kernel's ranges, replayed: pair CTA r of tile t runs stages [0, ceil(Km/2)) or [ceil(Km/2), Km); helper h
    runs tail units [h*upc, (h+1)*upc) of tiles*X, unit v being stage Km + v % X of tile v // X, and writes its
    partial of tile t into W slot t*help_slots + (h - hlo(t))."""
    g = CL.cluster_geometry(m, n, k, l, 1, cluster=1, ksplit=2, help_tail=tail, helpers=helpers)
    tiles, kb, km, x = g.tiles, g.k_stages, g.main_units, g.help_tail
    assert g.grid == 2 * tiles + helpers and g.counters == 2 * tiles and km == kb - tail
    runs = np.zeros((tiles, kb), int)
    km0 = (km + 1) // 2
    for t in range(tiles):
        runs[t, :km0] += 1
        runs[t, km0:km] += 1
    slots = {}
    for h in range(helpers):
        lo, hi = h * g.help_upc, min((h + 1) * g.help_upc, tiles * x)
        for v in range(lo, hi):
            t = v // x
            runs[t, km + v % x] += 1
            hlo = (t * x) // g.help_upc
            j = h - hlo
            assert 0 <= j < g.help_slots
            slots.setdefault((t, j), set()).add(h)
        touched = {v // x for v in range(lo, hi)}
        assert len(touched) <= CL.MAX_HELP_SEGMENTS
    assert (runs == 1).all()
    assert all(len(hs) == 1 for hs in slots.values())
    # the kernel's nh(t): the helpers a tile's counters wait for
    for t in range(tiles):
        nh = (t * x + x - 1) // g.help_upc - (t * x) // g.help_upc + 1
        assert nh == sum(1 for (tt, _) in slots if tt == t)
    assert g.workspace_bytes == (g.help_slots + 1) * tiles * 128 * 128 * 4
    assert CL.help_fits(g.help_slots, g.num_stages, g.a_bufs)


@pytest.mark.parametrize("kwargs,match", [
    (dict(help_tail=8, helpers=19), "even"),
    (dict(help_tail=8, helpers=20, ksplit=4), "ksplit=2"),
    (dict(help_tail=8, helpers=20, consumer_wgs=3), "consumer_wgs=2"),
    (dict(help_tail=63, helpers=20), "leave the pairs"),
    (dict(help_tail=33, helpers=20), "at most 32"),
    (dict(help_tail=8, helpers=200), "helpers"),      # a tile's tail over 4+ helpers: more W than the rings hold
    (dict(help_tail=1, helpers=2), "16 tiles"),      # a helper over 28 tiles: more than its publisher's mask
])
def test_help_geometry_refuses_what_the_kernel_cannot_run(kwargs, match):
    kw = dict(cluster=1, ksplit=2) | kwargs
    with pytest.raises(ValueError, match=match):
        CL.cluster_geometry(128, 7168, 16384, 1, 1, **kw)


@pytest.mark.parametrize("kwargs,match", [
    (dict(help_tail=-1), "help_tail"),
    (dict(help_tail=8, cluster=2), "cluster=1"),
    (dict(help_tail=8, consumer_wgs=3), "consumer_wgs=2"),
    (dict(help_tail=8, ks_stream=True), "ks_stream"),
    (dict(help_tail=8, ksplit=4), "ksplit=2"),
    (dict(help_tail=63), "leave the pairs"),
    (dict(helpers=20), "only with help_tail"),
])
def test_bad_help_arguments_raise_before_any_gpu_work(kwargs, match):
    with pytest.raises(ValueError, match=match):
        CL.GemmClusterPlan(128, 7168, 16384, 1, **kwargs)


# ============================================================== the kernel text

@pytest.mark.skipif(not _HAVE_PTXAS, reason="ptxas not found")
def test_help_build_assembles_without_spills_or_wgmma_serialisation():
    rep = assemble(KERNEL, "sm_90a", CL.kernel_constants(1, 10, 1, 2, True, CL.DEFAULT_HEAD_WAIT, 2, False, True))
    fn = rep.functions["nvfp4_gemm_wgmma_cluster"]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0
    assert "serializ" not in rep.log.lower()


def test_consumers_hand_w_to_the_publisher_without_fences_or_atomics():
    text = _help_text()
    arrive = "\n".join(ln.split("//")[0] for ln in _section(text, "HELP_ARRIVE:", "HELP_RUN_END:").split("\n"))
    assert "mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];" in arrive  # PUB, release.cta by default
    assert "fence" not in arrive and "atom" not in arrive
    write = _section(text, "HELP_WRITE:", "HELP_ARRIVE:")
    assert write.index("HELP_WAIT_PREV:") < write.index("bra.uni PW_ROWMAJOR;")  # W slot free: previous one counted
    pub = _section(text, "PUBLISHER:", "EXIT:")
    assert pub.index("PUB_WAIT:") < pub.index("atom.acq_rel.gpu.global.add.u32")
    assert "@%p_last st.relaxed.gpu.global.u32 [%pw], 0;" in pub  # the completing arrival resets the counter
    assert pub.index("st.shared.u32 [%sm_flag+8], %hmask;") < pub.index("mbarrier.arrive.shared::cta.b64")


def test_pair_acquires_the_counter_and_fences_the_async_proxy_before_copying_w():
    text = _help_text()
    look = _section(text, "    // the tail's helpers hlo .. hlo+nh-1", "HELP_LOOKED:")
    order = [look.index(s) for s in ("ld.acquire.gpu.global.u32", "st.relaxed.gpu.global.u32 [%pcnt], 0;",
                                     "fence.proxy.async.global;", "mbarrier.arrive.expect_tx",
                                     "cp.async.bulk.shared::cluster.global")]
    assert order == sorted(order)
    assert "add.u32 %sm_w, %sm, 192*528;" in look  # after P (128 rows) and the receive slot (64 rows)
    # a pair CTA that finds a helper out writes S and counts itself in; the completing arrival finishes the half
    main = _section(text, "HELP_MAIN_ARRIVE:", "HELP_MAIN_OUT:")
    assert main.index("fence.acq_rel.gpu;") < main.index("atom.acq_rel.gpu.global.add.u32")


def test_help_barriers_fit_the_shared_memory():
    text = _help_text()
    for off in (24, 32, 40):
        assert f"mbarrier.init.shared::cta.b64 [%sm_ks+{off}]" in text
    assert CL.shared_bytes(3, 10, 2, 2, True) == CL.shared_bytes(3, 10, 2, 2) + 16 <= 227 * 1024


# ============================================================== GPU

def _counters(plan):
    from nvfp4rt import driver

    buf = np.zeros(plan.geometry.counters, np.uint32)
    driver.call("cuCtxSynchronize")
    driver.call("cuMemcpyDtoH", buf.ctypes.data, plan._counters.ptr, buf.nbytes)
    return buf


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l,kw", [
    (128, 7168, 16384, 1, dict(help_tail=8)),
    (128, 4096, 7168, 1, dict(help_tail=12)),
    (128, 1024, 4096, 1, dict(help_tail=4, helpers=2)),    # helpers last: the pairs write S, the helpers finish
    (128, 1024, 4096, 1, dict(help_tail=1, helpers=8)),    # helpers first: the pairs copy their W and finish
    (200, 3000, 4096, 1, dict(help_tail=3)),
    (1, 256, 2304, 1, dict(help_tail=4, helpers=2)),       # odd stages: the pair runs 3 + 2
    (130, 520, 3072, 2, dict(help_tail=5, helpers=6)),
    (77, 333, 1792, 3, dict(help_tail=2, helpers=4)),
    (129, 8, 4096, 1, dict(help_tail=6, helpers=2)),
])
def test_tail_helpers_match_float64_reference_and_leave_the_counters_zero(m, n, k, l, kw):
    from test_gemm_wgmma import _run_case

    for distribution in ("competition", "wide"):
        res, plan, dev, c, _ = _run_case(m, n, k, l, distribution, plan_class=CL.GemmClusterPlan, **kw)
        assert plan.geometry.help_tail == kw["help_tail"] and "help_tail" in repr(plan)
        assert res.ok, (distribution, res.report())
        assert not _counters(plan).any()
    first = c.numpy().copy()
    for _ in range(2):
        c.fill(np.nan)
        plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
        assert np.array_equal(first.view(np.uint16), c.numpy().view(np.uint16))
        assert not _counters(plan).any()
