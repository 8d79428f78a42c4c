"""The stream-K head check of the three cluster kernels (GEMM, dual GEMM, grouped GEMM).

A split tile's head (cluster c_lo, whose run ends with the tile's first units) reads the tile counter
before it writes a partial (polling it for up to HEAD_WAIT clocks).  When every other contributor is in, it keeps its own sum in registers, adds
+0 to it and enters the reduction loop at c_lo + 1; otherwise it takes the usual hand-off (write,
counter, the last arrival reduces).  Which path runs depends on timing, so the result must not:

* CPU: the head path's instructions (the counter read, the comparison, one +0 add per accumulator in
  order, the entry into RED_LOOP), read out of each rendered kernel, and a float32 replay that feeds the
  zero the kernel adds into both summation orders, with signed zeros;
* CPU: the head polls for at most HEAD_WAIT clocks (none with 0), HEAD_CHECK=0 builds skip the check,
  every build assembles without spills, bad flags are refused;
* GPU: outputs with the check (polling or not) and without it are bit-identical on split schedules, and
  match the reference.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np
import pytest

from nvfp4rt.assemble import assemble
from nvfp4rt.ops import dual_gemm_cluster as DC
from nvfp4rt.ops import gemm_wgmma_cluster as CL
from nvfp4rt.ops import grouped_gemm_cluster as GC
from nvfp4rt.ptxsource import render

from conftest import requires_gpu
from ptx_int import code_lines

ROOT = Path(__file__).resolve().parents[1]
KERNELS = {  # name: (file, kernel_constants, accumulators per consumer thread)
    "gemm": ("gemm_nvfp4_wgmma_cluster.ptx", CL.kernel_constants, 64),
    "dual": ("dual_gemm_nvfp4_wgmma_cluster.ptx", DC.kernel_constants, 128),
    "grouped": ("grouped_gemm_nvfp4_wgmma_cluster.ptx", GC.kernel_constants, 128),
}


def _rendered(name: str, head_check: bool = True, **kw) -> str:
    file, constants, _ = KERNELS[name]
    return render((ROOT / "ptx" / file).read_text(), "sm_90a", constants(head_check=head_check, **kw))


def _head_path(text: str) -> list:
    """The instructions from the whole-tile branch to PARTIAL_WRITE, comments stripped."""
    start = text.index("@%p_whole bra STORE_TILE;")
    body = text[start:text.index("\nPARTIAL_WRITE:", start)]
    lines = [ln.split("//")[0].strip() for ln in body.splitlines()[1:]]
    return [ln for ln in lines if ln]


def _f32(bits_hex: str) -> np.float32:
    return np.frombuffer(struct.pack("<I", int(bits_hex, 16)), dtype=np.float32)[0]


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_head_path_reads_the_counter_and_enters_the_reduction_after_its_own_partial(name):
    acc = KERNELS[name][2]
    path = _head_path(_rendered(name))
    assert "setp.ne.u32 %p_head, %cta, %c_lo;" in path and "@%p_head bra PARTIAL_WRITE;" in path
    assert "ld.acquire.gpu.global.u32 %old, [%pcnt];" in path
    i = path.index("sub.u32 %tmp, %c_hi, %c_lo;")
    assert path[i + 1] == "setp.eq.u32 %p_last, %old, %tmp;"   # all others in: count == contributors - 1
    assert "@%p_last st.relaxed.gpu.global.u32 [%pcnt], 0;" in path  # the counter is left zero
    zero_adds = [ln for ln in path if ln.startswith("add.f32 %acc")]
    assert [re.match(r"add\.f32 %acc(\d+), %acc(\d+), 0f[0-9A-F]{8};", ln).groups() for ln in zero_adds] == \
        [(str(i), str(i)) for i in range(acc)]
    assert path[-2:] == ["add.u32 %cc, %c_lo, 1;", "bra.uni RED_LOOP;"]
    # the head flag lives in a word nothing else writes (read once per CTA: no reuse hazard)
    text = _rendered(name)
    assert text.count("[%sm_flag+4]") == 2


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_head_sum_is_bit_identical_to_the_full_reduction_order(name):
    """Replay both orders in float32 with the constant the kernel adds: (own + z) + P1 + ... must equal
    ((0 + own) + P1) + ... bit for bit, signed zeros included (a -0 constant would fail here)."""
    consts = {m.group(1) for m in re.finditer(r"add\.f32 %acc\d+, %acc\d+, (0f[0-9A-F]{8});",
                                               "\n".join(_head_path(_rendered(name))))}
    assert len(consts) == 1
    z = _f32(consts.pop()[2:])
    rng = np.random.default_rng()
    special = np.array([0.0, -0.0, 1e-45, -1e-45, 3.0, -3.0], dtype=np.float32)
    for contributors in (2, 3, 4):
        parts = rng.standard_normal((contributors, 4096)).astype(np.float32)
        parts[:, :36] = np.array(np.meshgrid(special, special)).reshape(2, -1)[:, :36].repeat(
            (contributors + 1) // 2, axis=0)[:contributors]
        full = np.float32(0.0) + parts[0]
        head = parts[0] + z
        for p in parts[1:]:
            full, head = full + p, head + p
        assert np.array_equal(full.view(np.uint32), head.view(np.uint32)), contributors


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_head_check_off_builds_skip_it_and_both_builds_assemble_without_spills(name):
    off = _head_path(_rendered(name, head_check=False))
    assert off[1] == "bra.uni PARTIAL_WRITE;"  # right after %pws is loaded
    for flag in (True, False):
        file, constants, _ = KERNELS[name]
        rep = assemble(ROOT / "ptx" / file, "sm_90a", constants(head_check=flag))
        (fn,) = rep.functions.values()
        assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0, (flag, rep.log)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_head_polls_the_counter_for_at_most_head_wait_clocks(name):
    path = _head_path(_rendered(name, head_wait=5000))
    loop = path[path.index("HEAD_POLL:"):path.index("HEAD_DECIDED:")]
    assert "ld.acquire.gpu.global.u32 %old, [%pcnt];" in loop and "@%p_last bra HEAD_DECIDED;" in loop
    assert "setp.lt.u32 %p_more, %sidx, 5000;" in loop and loop[-1] == "@%p_more bra HEAD_POLL;"
    assert loop.index("mov.u32 %sidx, %clock;") < loop.index("sub.u32 %sidx, %sidx, %cc;")
    assert path[path.index("HEAD_POLL:") - 1] == "mov.u32 %cc, %clock;"
    # %cc and %sidx are free there: both paths set them again before they read them
    text = _rendered(name)
    assert path[-2] == "add.u32 %cc, %c_lo, 1;"
    after = text[text.index("PARTIAL_WRITE:"):]
    assert after.index("selp.u32 %sidx,") < after.index("%sidx", after.index("selp.u32 %sidx,") - 40)
    assert after.index("mov.u32 %cc, %c_lo;") < after.index("RED_LOOP:") and "%cc" not in after[:after.index("mov.u32 %cc, %c_lo;")]
    no_wait = _head_path(_rendered(name, head_wait=0))
    assert "HEAD_POLL:" not in no_wait and no_wait.count("ld.acquire.gpu.global.u32 %old, [%pcnt];") == 1


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_head_flags_are_checked(name):
    with pytest.raises(ValueError, match="head_check must be True or False"):
        KERNELS[name][1](head_check=1)
    for bad in (-1, 2.5, True, 2**30):
        with pytest.raises(ValueError, match="head_wait must be an int of clocks"):
            KERNELS[name][1](head_wait=bad)


def _check_gpu_scope_only_in_thread_0(text: str) -> None:
    """The hand-off's memory order (the GEMM header's STREAM-K REDUCTION): every writer's partial stores come
    before a named barrier, thread 0 releases them after it (atom.acq_rel, cumulative); on the reading side
    thread 0's acquire (the atom, or the head's ld.acquire) comes before the named barrier every thread passes
    before its workspace loads.  No other thread fences at gpu scope."""
    code = code_lines(text)
    w0, w1 = code.index("PARTIAL_WRITE:"), code.index("PART_FLAG_DONE:")
    part = code[w0:w1]
    last_store = max(i for i, ln in enumerate(part) if ln.startswith("st.global"))
    barrier = next(i for i, ln in enumerate(part) if ln.startswith("bar.sync 1,"))
    lead = part.index("@%p_lead bra PART_FLAG_DONE")
    atom = next(i for i, ln in enumerate(part) if ln.startswith("atom.acq_rel.gpu.global.add.u32"))
    assert last_store < barrier < lead < atom, (last_store, barrier, lead, atom)
    assert code[w1 + 1].startswith("bar.sync 1,")               # the flag's barrier, then the readers
    assert not any(ln.startswith("ld.global") for ln in code[w1:w1 + 6])
    h = code.index("HEAD_FLAG_DONE:")
    assert code[h + 1].startswith("bar.sync 1,")
    assert any(ln.startswith("ld.acquire.gpu.global.u32") for ln in code[code.index("@%p_head bra PARTIAL_WRITE"):h])
    head = code[h:code.index("bra.uni RED_LOOP", h)]
    assert not any(ln.startswith("ld.global") for ln in head)
    assert code.index("RED_LOOP:") > w1                          # the reduction's loads follow both barriers
    assert "fence.acq_rel.gpu" not in code and "fence.sc.gpu" not in code


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_only_thread_0_synchronises_the_hand_off_at_gpu_scope(name):
    _check_gpu_scope_only_in_thread_0(_rendered(name))
    if name == "gemm":  # the K split's stream-K pairs share the hand-off
        _check_gpu_scope_only_in_thread_0(_rendered(name, cluster=1, ksplit=2, ks_stream=True))


@pytest.mark.parametrize("old, new, what", [
    ("bar.sync 1, 256\nsetp.ne.u32 %p_lead, %ct, 0\n@%p_lead bra PART_FLAG_DONE",
     "setp.ne.u32 %p_lead, %ct, 0\n@%p_lead bra PART_FLAG_DONE\nbar.sync 1, 256", "barrier after the lead's branch"),
    ("PART_FLAG_DONE:\nbar.sync 1, 256", "PART_FLAG_DONE:", "no barrier before the readers"),
    ("HEAD_FLAG_DONE:\nbar.sync 1, 256", "HEAD_FLAG_DONE:", "no barrier after the head's acquire"),
    ("PART_FLAG_DONE:", "fence.acq_rel.gpu\nPART_FLAG_DONE:", "a thread's own fence"),
])
def test_hand_off_check_catches_a_broken_order(old, new, what):
    text = "\n".join(code_lines(_rendered("gemm")))  # one instruction per line
    assert text.count(old) == 1, what
    with pytest.raises(AssertionError):
        _check_gpu_scope_only_in_thread_0(text.replace(old, new))


# ============================================================== GPU

@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("upc", [3, 7])
def test_gemm_head_check_on_and_off_give_the_same_bits(upc):
    from test_gemm_wgmma import _run_case

    res, plan, dev, c, _ = _run_case(128, 1024, 2048, 1, "wide", plan_class=CL.GemmClusterPlan,
                                     units_per_cluster=upc)
    assert res.ok, res.report()
    assert plan.constants["HEAD_CHECK"] == 1
    on = [c.numpy().copy()]
    for _ in range(3):
        plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
        on.append(c.numpy().copy())
    for kw in (dict(head_wait=0), dict(head_check=False)):
        other = CL.GemmClusterPlan(128, 1024, 2048, 1, units_per_cluster=upc, **kw)
        other.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
        for o in on:
            assert np.array_equal(o.view(np.uint16), c.numpy().view(np.uint16)), kw


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("upc", [3, 5])
def test_dual_head_check_on_and_off_give_the_same_bits(upc):
    from test_dual_gemm import _run_case

    res, plan, dev, c = _run_case(300, 640, 2048, 1, "wide", plan_class=DC.DualGemmClusterPlan,
                                  units_per_cluster=upc)
    assert res.ok, res.report()
    args = [dev[k] for k in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")]
    on = [c.numpy().copy()]
    for _ in range(3):
        plan.run(*args, c)
        on.append(c.numpy().copy())
    for kw in (dict(head_wait=0), dict(head_check=False)):
        other = DC.DualGemmClusterPlan(300, 640, 2048, 1, units_per_cluster=upc, **kw)
        other.run(*args, c)
        for o in on:
            assert np.array_equal(o.view(np.uint16), c.numpy().view(np.uint16)), kw


@pytest.mark.gpu
@requires_gpu
def test_grouped_head_check_on_and_off_give_the_same_bits():
    from test_grouped_gemm import _run

    shapes = [(80, 640, 2048), (176, 384, 1536), (40, 256, 4096)]
    results, plan, groups = _run(shapes, "wide", GC.GroupedGemmClusterPlan, clusters=40)
    assert all(r.ok for r in results) and plan.geometry.split_tiles > 0
    on = [[g[4].numpy().copy() for g in groups]]
    for _ in range(3):
        plan([tuple(g) for g in groups])
        on.append([g[4].numpy().copy() for g in groups])
    for kw in (dict(head_wait=0), dict(head_check=False)):
        other = GC.GroupedGemmClusterPlan(shapes, clusters=40, **kw)
        other([tuple(g) for g in groups])
        for o in on:
            for a, g in zip(o, groups):
                assert np.array_equal(a.view(np.uint16), g[4].numpy().view(np.uint16)), kw
