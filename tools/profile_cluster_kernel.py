"""Where the time goes inside a cluster kernel: %clock counters around every wait, wgmma issue and
epilogue phase, summed over all threads of a launch.

    PYTHONPATH=. python3 tools/profile_cluster_kernel.py grouped_gemm           # the competition cases
    PYTHONPATH=. python3 tools/profile_cluster_kernel.py dual_gemm --shapes 512,3072,7168
    PYTHONPATH=. python3 tools/profile_cluster_kernel.py gemm --runs 50
    PYTHONPATH=. python3 tools/profile_cluster_kernel.py grouped_gemm --ptx-out /tmp/prof.ptx   # CPU only

The three cluster kernels (ptx/gemm_nvfp4_wgmma_cluster.ptx, ptx/dual_gemm_nvfp4_wgmma_cluster.ptx,
ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx; the dual's 128-row plan runs the first one's DUAL = 1 build) share one
structure: consumer warpgroups run SEG_LOOP ->
UNIT_LOOP (-> UNIT_LOOP_N<N> in the grouped one) -> segment epilogue (partials, reduction, fp16 store)
-> NEXT_SEG; a B producer (B_LOOP) and an A16 producer (A_LOOP) feed them.  :func:`instrument` takes
the kernel's rendered PTX and adds, without changing what the kernel computes:

* consumers: the cycles spent spinning on the B-stage full barrier (C_WAIT_FULL*), on the A16 full
  barriers (C_WAIT_A*), in wgmma.wait_group, from wgmma.fence to wgmma.commit_group (issue; with
  ptxas's C7511 serialization this also holds each wgmma's completion), and in the segment epilogue,
  split into the stream-K partial write + counter, the reduction and the fp16 store (the GEMM's K-split
  epilogue, KSPLIT > 1, counts as reduction: its partials never leave shared memory);
* producers: their total time and the time spinning on their empty barriers; the A16 producer's
  griddepcontrol.wait (the decode prepass it depends on);

each thread adds its counters into the module global ``nvfp4_prof`` (u64[20]) with red.global.add at
its exit.  The op's own benchmark inputs (nvfp4rt.bench) drive it; the plan's kernel loader is swapped
for one that loads the instrumented text.  The numbers are shares of the consumers' own time (the
counters cost a few percent; compare shapes and builds with each other, not with bench timings).
"""
from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

#: u64 slots of nvfp4_prof (sums over threads and launches)
SLOTS = dict(c_total=0, c_bfull=1, c_afull=2, c_gwait=3, c_epilogue=4, c_threads=5, b_total=6, b_empty=7,
             b_threads=8, a_total=9, a_empty=10, a_pdl=11, a_threads=12, c_issue=13, e_partial=14,
             e_reduce=15, e_store=16)
NSLOTS = 20
GLOBAL = "nvfp4_prof"
#: the ops this tool can drive: bench op name -> (plan module, kernel file)
KERNELS = {
    "gemm": ("nvfp4rt.ops.gemm_wgmma_cluster", "gemm_nvfp4_wgmma_cluster.ptx"),
    "dual_gemm": ("nvfp4rt.ops.dual_gemm_cluster", "dual_gemm_nvfp4_wgmma_cluster.ptx"),
    "grouped_gemm": ("nvfp4rt.ops.grouped_gemm_cluster", "grouped_gemm_nvfp4_wgmma_cluster.ptx"),
}
#: more plan modules an op may run, each with the op whose kernel file it builds (the dual's 128-row tiles are the
#: cluster GEMM's DUAL = 1 build)
ALSO = {"dual_gemm": (("nvfp4rt.ops.dual_gemm_tiles", "gemm"),)}
#: the op layer module whose plan cache (``_cached_plan``) the bench's calls go through
OP_LAYERS = {"gemm": "nvfp4rt.ops.gemm", "dual_gemm": "nvfp4rt.ops.dual_gemm", "grouped_gemm": "nvfp4rt.ops.grouped_gemm"}
_REGS = ("%pc0", "%pc1", "%pe0", "%pt0", "%pi0", "%ps1", "%ps2", "%pf_b", "%pf_a", "%pf_g", "%pf_e", "%pf_i", "%pf_part",
         "%pf_red", "%pf_st", "%pf_pw", "%pf_pt")


class InstrumentError(ValueError):
    """The kernel text lacks a structure the instrumentation expects."""


def _red(slot: str, reg: str) -> str:
    return f"    cvt.u64.u32 %pq, {reg};\n    red.global.add.u64 [{GLOBAL}+{8 * SLOTS[slot]}], %pq;\n"


def _since(start: str, into: str) -> str:
    """into += %clock - start."""
    return f"    mov.u32 %pc1, %clock;\n    sub.u32 %pc1, %pc1, {start};\n    add.u32 {into}, {into}, %pc1;\n"


def _once(text: str, old: str, new: str, what: str) -> str:
    n = text.count(old)
    if n != 1:
        raise InstrumentError(f"expected {what} once in the kernel, found it {n} times: {old.strip()!r}")
    return text.replace(old, new)


def _wrap_spins(text: str, label_re: str, into: str, what: str, required: bool = True) -> str:
    labels = sorted(set(re.findall(rf"^({label_re}):\n", text, flags=re.M)))
    if required and not labels:
        raise InstrumentError(f"no {what} spin loop ({label_re}) in the kernel")
    for lab in labels:
        text = _once(text, f"{lab}:\n", f"    mov.u32 %pc0, %clock;\n{lab}:\n", f"label {lab}")
        br = f"    @!%p_ready bra {lab};\n"
        text = _once(text, br, br + _since("%pc0", into), f"the branch back to {lab}")
    return text


def instrument(text: str) -> str:
    """The rendered PTX of a cluster kernel with the counters added (see the module doc)."""
    text = _once(text, ".address_size 64\n", f".address_size 64\n\n.global .align 8 .u64 {GLOBAL}[{NSLOTS}];\n",
                 ".address_size 64")
    first_reg = re.search(r"^\s*\.reg \.pred[^\n]*\n", text, flags=re.M)
    if first_reg is None:
        raise InstrumentError("no .reg .pred declaration in the kernel")
    decl = f"    .reg .b32   {', '.join(_REGS)};\n    .reg .u64   %pq;\n    .reg .pred  %pfq;\n"
    text = text[:first_reg.end()] + decl + text[first_reg.end():]

    # ---- consumers: counters start at the first SEG_LOOP, dump at its exit
    zero = "".join(f"    mov.u32 {r}, 0;\n" for r in ("%pf_b", "%pf_a", "%pf_g", "%pf_e", "%pf_i", "%pf_part",
                                                          "%pf_red", "%pf_st", "%ps2"))
    # (the GEMM's tail-helper branch renders to blank lines between the test and its branch: kept as they are)
    # (the grouped cluster kernel's consumers leave through C_EXIT, which waits for their TMA stores: the dump
    # goes there too)
    seg = re.findall(r"SEG_LOOP:\n    setp\.ge\.u32 %p_more, %u, %u_end;\n\n*    @%p_more bra (?:C_)?EXIT;\n", text)
    seg = seg[0] if len(seg) == 1 else "SEG_LOOP:\n    setp.ge.u32 %p_more, %u, %u_end;\n    @%p_more bra EXIT;\n"
    exit_label = "C_EXIT" if seg.endswith("bra C_EXIT;\n") else "EXIT"
    text = _once(text, seg, zero + "    mov.u32 %pt0, %clock;\n"
                 + seg.replace(f"bra {exit_label};", "bra PROF_CONSUMER_EXIT;"), "the consumers' SEG_LOOP exit test")
    dump = ("PROF_CONSUMER_EXIT:\n    mov.u32 %pc1, %clock;\n    sub.u32 %pt0, %pc1, %pt0;\n" + _red("c_total", "%pt0")
            + "".join(_red(s, r) for s, r in (("c_bfull", "%pf_b"), ("c_afull", "%pf_a"), ("c_gwait", "%pf_g"),
                                               ("c_epilogue", "%pf_e"), ("c_issue", "%pf_i"), ("e_partial", "%pf_part"),
                                               ("e_reduce", "%pf_red"), ("e_store", "%pf_st")))
            + "    mov.u32 %pc1, 1;\n" + _red("c_threads", "%pc1") + f"    bra.uni {exit_label};\n\n")
    text = _once(text, "PRODUCERS:\n", dump + "PRODUCERS:\n", "the PRODUCERS label")
    text = _wrap_spins(text, r"C_WAIT_FULL(?:_N\d+)?", "%pf_b", "B-stage full")
    text = _wrap_spins(text, r"C_WAIT_A\d(?:_N\d+)?", "%pf_a", "A16 full")
    text, n = re.subn(r"^(    wgmma\.wait_group\.sync\.aligned \d+;[^\n]*\n)",
                      lambda m: "    mov.u32 %pc0, %clock;\n" + m.group(1) + _since("%pc0", "%pf_g"), text, flags=re.M)
    if not n:
        raise InstrumentError("no wgmma.wait_group in the kernel")
    text = text.replace("    wgmma.fence.sync.aligned;\n", "    mov.u32 %pi0, %clock;\n    wgmma.fence.sync.aligned;\n")
    text = text.replace("    wgmma.commit_group.sync.aligned;\n",
                        "    wgmma.commit_group.sync.aligned;\n" + _since("%pi0", "%pf_i"))
    # ---- segment epilogue: from the end of a unit loop to the branch back to SEG_LOOP
    text, n = re.subn(r"^(    @%p_more bra UNIT_LOOP(?:_N\d+)?;\n)", r"\1    mov.u32 %pe0, %clock;\n", text, flags=re.M)
    if not n:
        raise InstrumentError("no unit loop end (@%p_more bra UNIT_LOOP) in the kernel")
    text = _once(text, "    bra.uni SEG_LOOP;\n", _since("%pe0", "%pf_e") + "    bra.uni SEG_LOOP;\n",
                 "the branch back to SEG_LOOP")
    whole = re.search(r"^    @%p_whole bra STORE_TILE;[^\n]*\n", text, flags=re.M)
    if whole is None:
        raise InstrumentError("no '@%p_whole bra STORE_TILE' in the kernel")
    text = text[:whole.end()] + "    mov.u32 %ps1, %clock;\n" + text[whole.end():]
    flag = "PART_FLAG_DONE:\n    bar.sync 1, 256;\n"
    text = _once(text, flag, flag + _since("%ps1", "%pf_part") + "    mov.u32 %ps1, %clock;\n", "PART_FLAG_DONE")
    # the fp16 store: from STORE_TILE to NEXT_SEG, which the stores reach by branches as well as by falling through
    # (%ps2: STORE_TILE's clock, odd so never 0; 0 where the segment did not store, e.g. a contributor's partial)
    text = _once(text, "STORE_TILE:\n", _since("%ps1", "%pf_red")
                 + "STORE_TILE:\n    mov.u32 %ps2, %clock;\n    or.b32 %ps2, %ps2, 1;\n", "STORE_TILE")
    text = _once(text, "NEXT_SEG:\n", "NEXT_SEG:\n    setp.ne.u32 %pfq, %ps2, 0;\n    mov.u32 %pc1, %clock;\n"
                 "    sub.u32 %pc1, %pc1, %ps2;\n    @%pfq add.u32 %pf_st, %pf_st, %pc1;\n    mov.u32 %ps2, 0;\n",
                 "NEXT_SEG")
    # the GEMM's K-split epilogue (KSPLIT > 1: partials parked in shared memory, reduced across the cluster)
    # leaves for EXIT directly: all of it counts as epilogue and reduction
    ks = re.search(r"^    bra\.uni EXIT;( +// its cluster barrier keeps P alive[^\n]*)\n", text, flags=re.M)
    # the dual's (rank 0 reduces, then STORE_TILE; the other ranks leave from the middle) likewise
    peer = re.search(r"^    @!%p_head bra EXIT;( +// EXIT's cluster barrier[^\n]*)\n", text, flags=re.M)
    if "KSPLIT_REDUCE:\n" in text:
        if ks is not None:
            text = (text[:ks.start()] + _since("%pe0", "%pf_e") + "    add.u32 %pf_red, %pf_red, %pc1;\n"
                    + f"    bra.uni PROF_CONSUMER_EXIT;{ks.group(1)}\n" + text[ks.end():])
        elif peer is not None:
            text = text[:peer.start()] + f"    @!%p_head bra PROF_KS_PEER_EXIT;{peer.group(1)}\n" + text[peer.end():]
            text = _once(text, "    bra.uni STORE_TILE;\n", _since("%pe0", "%pf_red") + "    bra.uni STORE_TILE;\n",
                         "the K-split reduction's branch to STORE_TILE")
            text = _once(text, "PROF_CONSUMER_EXIT:\n", "PROF_KS_PEER_EXIT:\n" + _since("%pe0", "%pf_e")
                         + "    add.u32 %pf_red, %pf_red, %pc1;\n    bra.uni PROF_CONSUMER_EXIT;\n"
                         + "PROF_CONSUMER_EXIT:\n", "PROF_CONSUMER_EXIT")
        elif "KSP_EXIT:\n    ret;\n" in text:
            # the K split's push exchange (KS_PUSH): its consumers leave with ret (they waited for the cluster
            # barrier's only phase already), so their dump ends with ret too
            text = _once(text, "KSP_EXIT:\n    ret;\n", "KSP_EXIT:\n" + _since("%pe0", "%pf_e")
                         + "    add.u32 %pf_red, %pf_red, %pc1;\n    bra.uni PROF_KSP_EXIT;\n", "KSP_EXIT")
            text = _once(text, "PRODUCERS:\n", dump.replace("PROF_CONSUMER_EXIT:", "PROF_KSP_EXIT:").replace(
                "    bra.uni EXIT;\n\n", "    ret;\n\n") + "PRODUCERS:\n", "the PRODUCERS label")
        else:
            raise InstrumentError("no exit branch at the end of the K-split epilogue")

    # ---- producers
    text = _wrap_spins(text, r"B_WAIT_EMPTY", "%pf_pw", "B empty")
    text = _wrap_spins(text, r"A_WAIT_EMPTY1?", "%pf_pw", "A16 empty")  # 1: the half ring's set 1 (grouped)
    for who, start, loop in (("b", "B_PRODUCER", "B_LOOP"), ("a", "A_PRODUCER", "A_LOOP")):
        test = f"{loop}:\n    setp.ge.u32 %p_more, %u, %u_end;\n    @%p_more bra EXIT;\n"
        text = _once(text, test, test.replace("bra EXIT;", f"bra PROF_{who.upper()}_EXIT;"), f"the {loop} exit test")
        out = (f"PROF_{who.upper()}_EXIT:\n    mov.u32 %pc1, %clock;\n    sub.u32 %pf_pt, %pc1, %pf_pt;\n"
               + _red(f"{who}_total", "%pf_pt") + _red(f"{who}_empty", "%pf_pw")
               + (_red("a_pdl", "%pe0") if who == "a" else "")
               + "    mov.u32 %pc1, 1;\n" + _red(f"{who}_threads", "%pc1") + "    bra.uni EXIT;\n")
        text = _once(text, "\nEXIT:\n", "\n" + out + "EXIT:\n", "the EXIT label")
        # %pe0: the A16 producer's wait for the decode, which a producer with no unit never reaches (the early lookup)
        zero_wait = "    mov.u32 %pe0, 0;\n" if who == "a" else ""
        text = _once(text, f"{start}:\n", f"{start}:\n    mov.u32 %pf_pw, 0;\n{zero_wait}    mov.u32 %pf_pt, %clock;\n",
                     start)
    # the A16 producer's wait for the decode prepass (programmatic dependent launch), into %pe0
    at = text.index("A_PRODUCER:\n")
    g = re.compile(r"^(    griddepcontrol\.wait;[^\n]*\n)", flags=re.M).search(text, at)
    if g is None:
        raise InstrumentError("no griddepcontrol.wait in the A16 producer")
    text = (text[:g.start()] + "    mov.u32 %pc0, %clock;\n" + g.group(1)
            + "    mov.u32 %pe0, %clock;\n    sub.u32 %pe0, %pe0, %pc0;\n    mov.u32 %pf_pt, %clock;\n" + text[g.end():])
    return text


def default_constants(op: str) -> dict:
    """The template constants the op's kernel file declares in its ``// nvfp4rt:`` header."""
    from nvfp4rt.assemble import declared_variants
    from nvfp4rt.ptxsource import ptx_dir

    (variant,) = declared_variants(ptx_dir() / KERNELS[op][1])
    return dict(variant.constants)


def instrumented_source(op: str, constants: dict) -> str:
    """The op's cluster kernel rendered with ``constants`` (the plan's) and instrumented."""
    from nvfp4rt.ptxsource import ptx_dir, render

    text = (ptx_dir() / KERNELS[op][1]).read_text()
    return instrument(render(text, "sm_90a", constants))


def report(counters, label: str) -> str:
    """The shares of time, from the summed counters (a sequence indexed by SLOTS)."""
    s = {k: float(counters[v]) for k, v in SLOTS.items()}
    total = s["c_total"] or 1.0
    pct = {k: 100 * s[k] / total for k in ("c_bfull", "c_afull", "c_gwait", "c_issue", "c_epilogue", "e_partial",
                                           "e_reduce", "e_store")}
    rest = 100 - sum(pct[k] for k in ("c_bfull", "c_afull", "c_gwait", "c_issue", "c_epilogue"))
    per = s["c_total"] / max(s["c_threads"], 1)
    lines = [
        f"{label}: consumer thread {per:,.0f} clk: wait B full {pct['c_bfull']:4.1f}% | wait A16 full "
        f"{pct['c_afull']:4.1f}% | wgmma.wait_group {pct['c_gwait']:4.1f}% | wgmma fence..commit {pct['c_issue']:4.1f}% "
        f"| epilogue {pct['c_epilogue']:4.1f}% | other (decode, releases, loop) {rest:4.1f}%",
        f"    epilogue: partial + counter {pct['e_partial']:4.1f}% | reduction {pct['e_reduce']:4.1f}% | fp16 store "
        f"{pct['e_store']:4.1f}% | the rest (last wgmma, tile lookups, head check) "
        f"{pct['c_epilogue'] - pct['e_partial'] - pct['e_reduce'] - pct['e_store']:4.1f}%",
        f"    B producer: waits for an empty stage {100 * s['b_empty'] / max(s['b_total'], 1):4.1f}% of its time; "
        f"A16 producer: waits for an empty buffer {100 * s['a_empty'] / max(s['a_total'], 1):4.1f}%, for the decode "
        f"prepass {s['a_pdl'] / max(s['a_threads'], 1):,.0f} clk",
    ]
    return "\n".join(lines)


def collect(op: str, shapes=None, runs: int = 20):
    """Yield ``(shape label, summed counters, None or a message)`` per shape: ``runs`` launches of the op's
    benchmark call with the instrumented kernel, L2 cleared before each (None: the shape runs another kernel; a
    message: its build cannot be instrumented)."""
    import numpy as np

    import nvfp4rt
    from nvfp4rt import driver
    from nvfp4rt.bench import DriverTimer, get_op
    from nvfp4rt.module import load

    patched = [(importlib.import_module(KERNELS[op][0]), op)]
    patched += [(importlib.import_module(mod), source_op) for mod, source_op in ALSO.get(op, ())]
    modules = {}

    def loader(source_op):
        def instrumented_kernel(ordinal, constants):
            key = (source_op, constants)
            if key not in modules:
                modules[key] = load(instrumented_source(source_op, dict(constants)), device=driver.Device(ordinal),
                                    target="sm_90a")
            return modules[key].kernel(next(iter(modules[key].entries)))
        return instrumented_kernel

    # the op layer caches plans (per shape, and per kind of raw operands), and a cached plan keeps the kernel it
    # was built with: drop them on the way in (so the bench's calls build plans with the instrumented kernel) and
    # on the way out (so none leaks)
    op_layer = importlib.import_module(OP_LAYERS[op])

    def clear_plan_caches():
        for cache in ("_cached_plan", "_raw_plan"):
            getattr(op_layer, cache).cache_clear()

    saved = [mod._kernel for mod, _ in patched]
    for mod, source_op in patched:
        mod._kernel = loader(source_op)
    clear_plan_caches()
    try:
        dev = nvfp4rt.device()
        bench = get_op(op)(device=dev)
        timer = DriverTimer()
        rng = np.random.default_rng()
        for shape in bench.parse_shapes(shapes):
            modules.clear()
            state = bench.make_inputs(shape, rng)
            try:
                bench.run(state)
            except InstrumentError as e:  # a build whose epilogue the counters do not know (the stream-K pairs)
                yield bench.shape_label(shape), f"its build cannot be instrumented: {e}"
                continue
            dev.synchronize()
            if not modules:
                yield bench.shape_label(shape), None
                continue
            total = np.zeros(NSLOTS, np.uint64)
            for mod in modules.values():
                ptr, size = driver.call("cuModuleGetGlobal", mod.handle, GLOBAL.encode())
                for _ in range(runs):
                    timer.clear_l2()
                    driver.call("cuMemsetD8", ptr, 0, size)
                    bench.run(state)
                    dev.synchronize()
                    buf = np.zeros(NSLOTS, np.uint64)
                    driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
                    total += buf
            yield bench.shape_label(shape), total
    finally:
        for (mod, _), kernel in zip(patched, saved):
            mod._kernel = kernel
        clear_plan_caches()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("op", choices=sorted(KERNELS))
    ap.add_argument("--shapes", nargs="+", help="as nvfp4rt bench --shapes (default: the competition shapes)")
    ap.add_argument("--runs", type=int, default=20, help="launches summed per shape (default 20)")
    ap.add_argument("--ptx-out", help="write the instrumented PTX (header constants) here and stop: no GPU needed")
    args = ap.parse_args(argv)
    if args.ptx_out:
        Path(args.ptx_out).write_text(instrumented_source(args.op, default_constants(args.op)))
        print(f"wrote {args.ptx_out}")
        return 0
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    import nvfp4rt

    print(f"{nvfp4rt.device().properties.name}: {args.op}, {args.runs} launches per shape, L2 cleared before each",
          flush=True)
    for label, counters in collect(args.op, args.shapes, args.runs):
        if counters is None:
            print(f"{label}: runs another kernel than the cluster one", flush=True)
        elif isinstance(counters, str):
            print(f"{label}: {counters}", flush=True)
        else:
            print(report(counters, label), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
