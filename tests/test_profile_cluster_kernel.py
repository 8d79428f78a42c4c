"""tools/profile_cluster_kernel.py: the %clock instrumentation of the three cluster kernels.

CPU: for each kernel, removing what the instrumentation added gives back the kernel line for line (it
changes no computation), every spin loop and wgmma.wait_group is timed, and the result assembles
without spills; a kernel without the expected structure is refused with a message.  GPU: the counters
of real launches add up (thread counts match the grid, the parts fit in the totals).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from nvfp4rt.ptxsource import ptx_dir, render

from conftest import requires_gpu

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import profile_cluster_kernel as P  # noqa: E402

_PROF_REG = re.compile(r"%(?:pc0|pc1|pe0|pt0|pi0|ps1|ps2|pf_\w+|pfq|pq)\b")


#: kernels under test: the three ops' defaults, and the GEMM built with its K-split epilogue
_BUILDS = {**{op: {} for op in P.KERNELS}, "gemm_ksplit": {"CLUSTER": 1, "KSPLIT": 2},
           "dual_gemm_ksplit": {"CLUSTER": 1, "KSPLIT": 2},
           "gemm_ksplit_push": {"CLUSTER": 1, "KSPLIT": 2, "KS_PUSH": 1, "C_PITCH": 0, "A_BUFS": 10},
           "gemm_dual": {"CLUSTER": 1, "DUAL": 1}}


def _rendered(build):
    op = build.split("_ksplit")[0].split("_dual")[0]
    constants = {**P.default_constants(op), **_BUILDS[build]}
    return render((ptx_dir() / P.KERNELS[op][1]).read_text(), "sm_90a", constants)


def _strip(text):
    """Undo the instrumentation: drop the added lines and PROF_* blocks, restore the exits."""
    text = text.replace(f"\n.global .align 8 .u64 {P.GLOBAL}[{P.NSLOTS}];\n", "")
    text = text.replace("    bra.uni PROF_KSP_EXIT;\n", "    ret;\n")  # the push build's consumers leave with ret
    # the consumers' dump ends by going where their exit test went (C_EXIT in the grouped cluster kernel)
    consumer_exit = re.search(r"^PROF_CONSUMER_EXIT:\n(?:(?!    bra\.uni \w+;\n).*\n)*    bra\.uni (\w+);\n", text, flags=re.M)
    text = re.sub(r"^PROF_\w+:\n(?:(?!    (?:bra\.uni (?:C_)?EXIT|ret);\n).*\n)*    (?:bra\.uni (?:C_)?EXIT|ret);\n\n?", "",
                  text, flags=re.M)
    if consumer_exit:
        text = re.sub(r"bra(\.uni)? PROF_CONSUMER_EXIT;", rf"bra\1 {consumer_exit.group(1)};", text)
    text = re.sub(r"bra(\.uni)? PROF_\w+_EXIT;", r"bra\1 EXIT;", text)
    return "\n".join(ln for ln in text.split("\n") if not _PROF_REG.search(ln))


@pytest.mark.parametrize("op", sorted(_BUILDS))
def test_instrumentation_only_adds_counters(op):
    original = _rendered(op)
    inst = P.instrument(original)
    assert _strip(inst) == original
    spins = re.findall(r"^(C_WAIT_FULL\w*|C_WAIT_A\d\w*|B_WAIT_EMPTY|A_WAIT_EMPTY):", original, flags=re.M)
    assert spins and all(f"    mov.u32 %pc0, %clock;\n{lab}:\n" in inst for lab in spins)
    waits = len(re.findall(r"^    wgmma\.wait_group", original, flags=re.M))
    assert waits and len(re.findall(r"    mov.u32 %pc0, %clock;\n    wgmma\.wait_group", inst)) == waits
    for slot in P.SLOTS.values():  # every counter is written out
        assert f"[{P.GLOBAL}+{8 * slot}]" in inst
    if "KSPLIT_REDUCE:" in original:  # every way out of the K-split epilogue goes through the counters' dump
        assert re.search(r"^\s*(@\S+ )?bra(\.uni)? EXIT;", inst[inst.index("KSPLIT_REDUCE:"):inst.index("\nPROF_", inst.index("KSPLIT_REDUCE:"))],
                         flags=re.M) is None


def test_a_kernel_without_the_structure_is_refused():
    with pytest.raises(P.InstrumentError, match="SEG_LOOP"):
        P.instrument(".address_size 64\n.visible .entry k()\n{\n    .reg .pred %p;\n    ret;\n}\n")


def test_the_stream_k_pairs_build_is_refused_by_name():
    """The pairs (KS_STREAM = 1, the plan of GEMM 128 x 4096 x 7168) branch from the tile's end to their own
    reduction, so the epilogue split does not know them: the instrumenter says which marker is missing (and
    collect() reports the shape instead of stopping)."""
    constants = {**P.default_constants("gemm"), "CLUSTER": 1, "KSPLIT": 2, "KS_STREAM": 1, "KS_ROWMAJOR": 1,
                 "C_PITCH": 0}
    with pytest.raises(P.InstrumentError, match="STORE_TILE"):
        P.instrument(render((ptx_dir() / P.KERNELS["gemm"][1]).read_text(), "sm_90a", constants))


_HAVE_PTXAS = __import__("nvfp4rt.assemble", fromlist=["find_ptxas"]).find_ptxas() is not None


@pytest.mark.skipif(not _HAVE_PTXAS, reason="ptxas not found")
@pytest.mark.parametrize("op", sorted(_BUILDS))
def test_instrumented_kernel_assembles_without_spills(op):
    from nvfp4rt.assemble import assemble

    res = assemble(P.instrument(_rendered(op)), "sm_90a", {})
    (fn,) = res.functions.values()
    assert not fn.spills and fn.local_bytes == 0


def test_report_names_every_share():
    counters = [0] * P.NSLOTS
    counters[P.SLOTS["c_total"]], counters[P.SLOTS["c_threads"]] = 1000, 1
    counters[P.SLOTS["c_afull"]], counters[P.SLOTS["c_epilogue"]], counters[P.SLOTS["e_store"]] = 250, 100, 60
    text = P.report(counters, "x")
    assert "wait A16 full 25.0%" in text and "epilogue 10.0%" in text and "fp16 store  6.0%" in text
    assert "the rest (last wgmma, tile lookups, head check)  4.0%" in text
    assert "other (decode, releases, loop) 65.0%" in text


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("op, shapes", [("gemm", ["small"]), ("grouped_gemm", ["2"]), ("dual_gemm", ["256,4096,7168"]),
                                       ("dual_gemm", ["512,3072,7168"])])  # the 128-row DUAL build, the cluster kernel
def test_counters_of_real_launches_add_up(op, shapes):
    import nvfp4rt
    from nvfp4rt.bench import get_op

    bench = get_op(op)(device=nvfp4rt.device())
    for shape in bench.parse_shapes(shapes):  # the op layer's plan caches now hold plans with the plain kernels
        state = bench.make_inputs(shape, np.random.default_rng())
        bench.run(state)
        bench.release(state)
    runs = 3
    results = list(P.collect(op, shapes, runs))
    assert results and all(c is not None for _, c in results), results
    for label, c in results:
        s = {k: int(c[v]) for k, v in P.SLOTS.items()}
        assert s["c_threads"] > 0 and s["c_threads"] % (256 * runs) == 0, label
        ctas = s["c_threads"] // (256 * runs)
        assert s["b_threads"] == s["a_threads"] == ctas * runs, label
        parts = s["c_bfull"] + s["c_afull"] + s["c_gwait"] + s["c_issue"] + s["c_epilogue"]
        assert 0 < parts < s["c_total"], label
        assert s["e_partial"] + s["e_reduce"] + s["e_store"] <= s["c_epilogue"], label
        if op != "gemm":  # (the GEMM's small shape runs a K split, whose store counts as reduction: module doc)
            assert s["e_store"] > 0, label  # the TMA stores reach NEXT_SEG by a branch, and are counted
        assert s["b_empty"] < s["b_total"] and s["a_empty"] < s["a_total"], label
