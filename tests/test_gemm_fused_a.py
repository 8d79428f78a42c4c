"""The cluster GEMM that decodes A itself (FUSED_A = 1 in ptx/gemm_nvfp4_wgmma_cluster.ptx; GemmClusterPlan(fused_a=True)).

CPU part: the constants and their refusals, the chunk numbering and flag area, the kernel's extra parameters against
the host's argument order, the producers' launch index (the PTX's 16-bit long division, interpreted line by line),
and the builds assembling without spills or wgmma serialisation.

GPU part (``@pytest.mark.gpu``): on fresh data, both distributions, NaN-poisoned outputs, every schedule the plan
runs, the fused result equals the decode-launch result bit for bit and the float64 reference; the flag area after n
calls holds exactly n launches' counts; the producers' own-decode path (a_wait=0) and two fused GEMMs that cannot be
resident at once (two streams) finish with the right numbers.
"""
from __future__ import annotations

import random
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from nvfp4rt.assemble import assemble
from nvfp4rt.ops import gemm_wgmma_cluster as CL
from nvfp4rt.ptxsource import parse_entries, render

from ptx_int import code_lines, run
from conftest import requires_gpu, requires_ptxas

KERNEL = Path(__file__).resolve().parent.parent / "ptx" / "gemm_nvfp4_wgmma_cluster.ptx"
FUSED_PARAMS = ["p_a", "p_sfa", "a_row", "a_batch", "sfa_row", "sfa_batch", "p_a16", "p_async", "a_k", "a_kchunks",
                "a_chunks"]


def _params(**constants):
    text = render(KERNEL.read_text(), "sm_90a", constants=CL.kernel_constants(**constants))
    return [p.name for p in parse_entries(text)["nvfp4_gemm_wgmma_cluster"].params]


# ============================================================== constants, chunks, parameters

def test_constants_and_what_fused_a_refuses():
    assert CL.kernel_constants(fused_a=True)["FUSED_A"] == 1
    assert CL.kernel_constants()["FUSED_A"] == 0
    assert CL.kernel_constants(a_wait=0)["A_WAIT"] == 0
    assert CL.kernel_constants()["A_WAIT"] == CL.A_WAIT_CLOCKS
    for kw in (dict(consumer_wgs=3), dict(grouped=True), dict(ksplit=2, cluster=1, ks_help=True)):
        with pytest.raises(ValueError, match="fused_a needs"):
            CL.kernel_constants(fused_a=True, **kw)
    for bad in (-1, 2**40, 1.5, True):
        with pytest.raises(ValueError, match="a_wait"):
            CL.kernel_constants(a_wait=bad)


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(fused_a=True, consumer_wgs=3), ValueError, "consumer_wgs=2"),
    (dict(fused_a=True, help_tail=2), ValueError, "help_tail"),
    (dict(fused_a=1), ValueError, "fused_a"),
    (dict(a_wait=-5), ValueError, "a_wait"),
])
def test_bad_fused_plan_arguments_raise_before_any_gpu_work(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        CL.GemmClusterPlan(128, 256, 1024, **kwargs)


@pytest.mark.parametrize("m,k,l,cols,chunks", [(128, 16384, 1, 256, 256), (129, 2112, 2, 33, 132), (1, 64, 1, 1, 1),
                                                (640, 4096, 1, 64, 320)])
def test_chunks_are_m_tiles_by_k64_columns(m, k, l, cols, chunks):
    assert CL.a_chunks(m, k, l) == (cols, chunks)
    assert CL.async_bytes(m, k, l) == 16 + 4 * chunks


def test_fused_parameters_follow_alpha_in_the_hosts_order():
    base, fused = _params(), _params(fused_a=True)
    i = base.index("alpha") + 1
    assert fused == base[:i] + FUSED_PARAMS + base[i:]
    g = SimpleNamespace(m=200, k=2112, l=2)
    lay = SimpleNamespace(a_row=1056, a_batch=211200, sfa_row=132, sfa_batch=26400)
    fake = SimpleNamespace(fused_a=True, geometry=g, layout=lay, _a16=SimpleNamespace(ptr=0xA16),
                           _async=SimpleNamespace(ptr=0xF1A6))
    args = CL.GemmClusterPlan._fused_args(fake, {"a": 0xA, "sfa": 0x5FA})
    got = dict(zip(FUSED_PARAMS, args))
    assert [got[n].ptr for n in ("p_a", "p_sfa", "p_a16", "p_async")] == [0xA, 0x5FA, 0xA16, 0xF1A6]
    assert [got[n] for n in ("a_row", "a_batch", "sfa_row", "sfa_batch")] == [1056, 211200, 132, 26400]
    assert (got["a_k"], got["a_kchunks"], got["a_chunks"]) == (2112, 33, 2 * 2 * 33)
    fake.fused_a = False
    assert CL.GemmClusterPlan._fused_args(fake, {"a": 0xA, "sfa": 0x5FA}) == ()


# ============================================================== the launch index

_START = "    mov.b64 {%fa_f, %fa_t}, %fa_w;"
_END = "    or.b32 %fa_tgt, %fa_tgt, %fa_n;"


def _division_block(text: str) -> list[str]:
    s = text.index(_START)
    e = text.index(_END, s) + len(_END)
    return code_lines(text[s:e])


def _run_division(lines, count: int, ncta: int) -> int:
    """Interpret the producer's launch-index lines: %fa_w = count (u64), %nctaid.x = ncta; returns %fa_tgt.  The
    interpreter checks that every partial fits 32 bits (the point of 16-bit digits)."""
    return run(lines, {"%fa_w": count, "%nctaid.x": ncta})["%fa_tgt"]


def test_launch_index_is_the_count_over_the_grid_mod_2_32():
    lines = _division_block(KERNEL.read_text())
    rng = random.Random(22)
    cases = [(0, 1), (2**64 - 1, 1), (2**64 - 1, 65535), (112 * 5 + 111, 112), (2**40 * 132 + 131, 132)]
    cases += [(rng.randrange(2**64), rng.randrange(1, 2**16)) for _ in range(2000)]
    for count, ncta in cases:
        assert _run_division(lines, count, ncta) == (count // ncta) & 0xFFFFFFFF, (count, ncta)


def test_launch_index_check_catches_a_wrong_digit_shift():
    lines = [ln.replace("shl.b32 %fa_c, %fa_c, 16", "shl.b32 %fa_c, %fa_c, 15")
             for ln in _division_block(KERNEL.read_text())]
    rng = random.Random(7)
    assert any(_run_division(lines, c, g) != (c // g) & 0xFFFFFFFF
               for c, g in ((rng.randrange(2**64), rng.randrange(2, 2**16)) for _ in range(50)))


def test_producers_count_the_cta_once_and_consumers_count_every_warp():
    """The flag targets match what is added per launch: 4 * CONSUMER_WGS warps per chunk, a_chunks per launch on the
    all-chunks word, one per CTA on the launch count (taken where the producer's loop ends, which every CTA reaches)."""
    text = KERNEL.read_text()
    assert "mul.lo.u32 %fa_tgt, %fa_tgt, 4*{{CONSUMER_WGS}};" in text
    assert re.search(r"@%p_fa red\.release\.gpu\.global\.add\.u32 \[%fa_w\], 1;", text)   # lane 0 of each warp
    assert "@%p_fa red.release.gpu.global.add.u32 [%fa_flag+8], %fa_n;" in text            # consumer 0, n chunks
    producer = text[text.index("\nA_PRODUCER:"):text.index("\nEXIT:")]
    counts = [m.start() for m in re.finditer(r"setp\.ge\.u32 %p_fa, %u, %u_end;\s*//[^\n]*\n"
                                              r"\s*@%p_fa red\.relaxed\.gpu\.global\.add\.u64 \[%fa_async\], 1;",
                                              producer)]
    loop_top, loop_end = producer.index("\nA_LOOP:"), producer.index("bra.uni A_LOOP;")
    assert len(counts) == 2 and counts[0] < loop_top < counts[1] < loop_end  # an empty run; the run's last copy


# ============================================================== assembly

@requires_ptxas
@pytest.mark.parametrize("kw", [dict(cluster=2), dict(cluster=1, ksplit=2), dict(cluster=1, ksplit=4),
                                dict(cluster=1, ksplit=2, ks_stream=True), dict(cluster=2, dual=True)])
def test_fused_builds_assemble_without_spills_or_wgmma_serialisation(kw):
    rep = assemble(KERNEL, "sm_90a", CL.kernel_constants(fused_a=True, **kw))
    fn = rep.functions["nvfp4_gemm_wgmma_cluster"]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0
    assert "serializ" not in rep.log.lower()


# ============================================================== GPU

CASES = [((128, 7168, 2048, 1), {}), ((200, 1000, 576, 2), {}), ((1, 300, 64, 1), {}), ((77, 513, 320, 1), dict(ksplit=2)),
         ((129, 640, 2112, 2), {}), ((128, 4096, 7168, 1), {}), ((300, 2048, 4096, 1), dict(cluster=2)),
         ((130, 2048, 7168, 1), dict(ksplit=4)), ((64, 3000, 5120, 1), dict(cluster=1, units_per_cluster=7))]


def _arrays(m, n, k, l, distribution):
    import nvfp4rt
    from nvfp4rt import data, reference

    d = data.gemm_data(m, n, k, l, seed=None, distribution=distribution)
    dev = {name: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(name)).view(np.uint8))
           for name in ("a", "b", "sfa", "sfb")}
    return d, dev, reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)


def _call(plan, dev, shape, stream=None):
    import nvfp4rt

    l, m, n = shape
    c = nvfp4rt.from_numpy(np.full((l, m, n), np.nan, dtype=np.float16))
    plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c, stream=stream)
    return c


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shape,kw", CASES)
@pytest.mark.parametrize("a_wait", [CL.A_WAIT_CLOCKS, 0])
def test_fused_equals_the_decode_launch_bit_for_bit(shape, kw, a_wait):
    from nvfp4rt import reference

    m, n, k, l = shape
    fused = CL.GemmClusterPlan(m, n, k, l, fused_a=True, a_wait=a_wait, **kw)
    plain = CL.GemmClusterPlan(m, n, k, l, **kw)
    assert fused.fused_a and not plain.fused_a and "fused_a" in repr(fused)
    assert fused.geometry == plain.geometry
    for distribution in ("competition", "wide"):
        d, dev, ref = _arrays(m, n, k, l, distribution)
        c_fused = _call(fused, dev, (l, m, n)).numpy()
        c_plain = _call(plain, dev, (l, m, n)).numpy()
        res = reference.check(c_fused.transpose(1, 2, 0), ref)
        assert res.ok, (distribution, res.report())
        assert np.array_equal(c_fused.view(np.uint16), c_plain.view(np.uint16)), distribution


@pytest.mark.gpu
@requires_gpu
def test_flag_area_holds_exactly_the_launches_counts():
    """After n calls: the launch count is n * grid, the all-chunks word n * chunks and every chunk flag n * 8 (one per
    consumer warp); between calls new inputs give new right answers (the flags of the previous call are stale)."""
    from nvfp4rt import driver, reference

    m, n, k, l = 200, 1000, 1088, 2
    plan = CL.GemmClusterPlan(m, n, k, l, fused_a=True)
    calls = 3
    for _ in range(calls):
        d, dev, ref = _arrays(m, n, k, l, "wide")
        res = reference.check(_call(plan, dev, (l, m, n)).numpy().transpose(1, 2, 0), ref)
        assert res.ok, res.report()
    driver.call("cuCtxSynchronize")
    raw = np.zeros(plan._async.nbytes, dtype=np.uint8)
    driver.call("cuMemcpyDtoH", raw.ctypes.data, plan._async.ptr, raw.nbytes)
    cols, chunks = CL.a_chunks(m, k, l)
    assert int(raw[:8].view(np.uint64)[0]) == calls * plan.geometry.grid
    assert int(raw[8:12].view(np.uint32)[0]) == calls * chunks
    assert np.all(raw[16:].view(np.uint32) == calls * 8)


@pytest.mark.gpu
@requires_gpu
def test_two_fused_gemms_that_cannot_be_resident_together_finish_right():
    """Two 112-CTA GEMMs on two streams at once: some CTAs wait for chunks whose CTAs are not resident, time out and
    decode those chunks themselves; both results are right."""
    from nvfp4rt import driver, reference
    from nvfp4rt.stream import Stream

    m, n, k = 128, 7168, 16384
    plans = [CL.GemmClusterPlan(m, n, k, 1, fused_a=True) for _ in range(2)]
    streams = [Stream(non_blocking=True) for _ in range(2)]
    for _ in range(2):
        runs = [(_arrays(m, n, k, 1, "wide"), p, s) for p, s in zip(plans, streams)]
        outs = [(_call(p, dev, (1, m, n), stream=s), ref) for (_, dev, ref), p, s in runs]
        driver.call("cuCtxSynchronize")
        for c, ref in outs:
            res = reference.check(c.numpy().transpose(1, 2, 0), ref)
            assert res.ok, res.report()
