"""Session 39 runs 8 and 9: a timeline of the m-tile GEMM on competition case 4 (whole tiles, one per CTA), from
%globaltimer stamps that an instrumented build writes per CTA (the instructions only store times; c is checked
against the float64 reference):
  entry  consumer thread 0 starts (after the cluster barrier and the barrier inits);
  bprod  the B producer starts;            pdl   the A16 producer's griddepcontrol.wait returns (decode done);
  full   consumer thread 0 first sees a B stage full;
  store  consumer thread 0 reaches STORE_TILE (its last unit's wgmmas done);
  exit   consumer thread 0 at EXIT (its TMA stores have read shared memory).
Times in us from the launch's earliest entry, per call: the median over CTAs and the latest CTA, then medians over
CALLS calls (each after the bench's L2 clear).  Run 9 adds the build without C_PREFETCH ('nopf') and calls without
the L2 clear.  Usage: tl.py [CALLS] [CASES...]"""
import re
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import DriverTimer  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.ops import gemm_wgmma_cluster as CL  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

SLOTS = ["entry", "bprod", "pdl", "full", "store", "exit"]
NCTA = 264
_orig = CL.kernel_text
NOPF = [False]


def stamp(slot, pred, op="st"):
    i = SLOTS.index(slot)
    if op == "st":
        return (f"    mov.u64 %tl_t, %globaltimer;\n    @{pred} st.global.u64 [%tl_a+{8 * i}], %tl_t;\n")
    return f"    mov.u64 %tl_t, %globaltimer;\n    @{pred} red.global.min.u64 [%tl_a+{8 * i}], %tl_t;\n"


def once(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)


def instrumented(cons):
    t = _orig(cons)
    t = once(t, ".visible .entry nvfp4_gemm_wgmma_cluster(",
             f".global .align 8 .u64 nvfp4_tl[{NCTA * 8}];\n\n.visible .entry nvfp4_gemm_wgmma_cluster(")
    t = once(t, "    .reg .f32   %acc<64>;\n", "    .reg .f32   %acc<64>;\n    .reg .u64   %tl_t, %tl_a, %tl_b;\n"
             "    .reg .u32   %tl_c;\n    .reg .pred  %p_tl, %p_tl0;\n")
    t = once(t, "    mov.u32 %thread, %tid.x;\n", "    mov.u32 %thread, %tid.x;\n    mov.u32 %tl_c, %ctaid.x;\n"
             "    mul.wide.u32 %tl_a, %tl_c, 64;\n    mov.u64 %tl_b, nvfp4_tl;\n    add.u64 %tl_a, %tl_a, %tl_b;\n"
             "    setp.eq.u32 %p_tl, %thread, 128;\n    setp.eq.u32 %p_tl0, %thread, 0;\n")
    t = once(t, "    sub.u32 %ct, %thread, 128;                // consumer thread 0..CONSUMERS-1\n",
             "    sub.u32 %ct, %thread, 128;                // consumer thread 0..CONSUMERS-1\n" + stamp("entry", "%p_tl"))
    t = once(t, "B_PRODUCER:\n", "B_PRODUCER:\n" + stamp("bprod", "%p_tl0"))
    t = once(t, "    griddepcontrol.wait;                      // the decode kernel is complete and A16 is visible (PDL)\n",
             "    griddepcontrol.wait;                      // the decode kernel is complete and A16 is visible (PDL)\n"
             "    mov.u64 %tl_t, %globaltimer;\n    st.global.u64 [%tl_a+16], %tl_t;\n")
    n_full = len(re.findall(r"\nC_FULL_OK\w*:\n", t))
    assert n_full >= 1
    t = re.sub(r"\n(C_FULL_OK\w*:\n)", lambda m: "\n" + m.group(1) + stamp("full", "%p_tl", "min"), t)
    if NOPF[0]:
        t = once(t, "    @!%p_x bra C_PREFETCHED;", "    bra.uni C_PREFETCHED;")
    t = once(t, "STORE_TILE:\n", "STORE_TILE:\n" + stamp("store", "%p_tl"))
    t = once(t, "    cp.async.bulk.wait_group.read 0;          // a warpgroup's storing thread: its TMA stores have read shared memory\n",
             "    cp.async.bulk.wait_group.read 0;          // a warpgroup's storing thread: its TMA stores have read shared memory\n"
             + stamp("exit", "%p_tl"))
    return t


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    cases = [int(c) for c in sys.argv[2:]] or [4, 3]
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    timer = DriverTimer(dev, None)
    gb = GroupedGemmBench()
    for case, nopf, clear in [(c, v, cl) for c in cases for v in (False, True) for cl in (True, False)]:
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        CL.kernel_text = instrumented
        NOPF[0] = nopf
        CL._kernel.cache_clear()
        p = GM.GroupedGemmMTilePlan(st.shapes, layouts)
        CL.kernel_text = _orig
        NOPF[0] = False
        CL._kernel.cache_clear()
        outs = p(st.views)
        driver.call("cuCtxSynchronize")
        refs = reference.grouped_gemm_ref(st.host.groups)
        ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
        ptr, size = driver.call("cuModuleGetGlobal", p.kernel.module.handle, b"nvfp4_tl")
        grid = p.geometry.grid
        print(f"case {case}: {p!r}, reference ok {ok}", flush=True)
        rows = []
        for _ in range(calls):
            driver.call("cuMemsetD8", ptr, 0xFF, size)
            if clear:
                timer.clear_l2()
            p(st.views)
            driver.call("cuCtxSynchronize")
            a = np.empty(size // 8, np.uint64)
            driver.call("cuMemcpyDtoH", a.ctypes.data, ptr, size)
            a = a.reshape(-1, 8)[:grid, :len(SLOTS)].astype(np.int64)
            t0 = a[:, 0].min()
            rel = (a - t0) / 1000.0
            rows.append([f(rel[:, i]) for i in range(len(SLOTS)) for f in (np.median, np.max)])
        med = np.median(np.array(rows), axis=0)
        print(f"case {case} {'nopf' if nopf else 'C_PREFETCH'}, {'L2 cleared' if clear else 'no L2 clear'} "
              f"({calls} calls; us from the earliest entry, median over CTAs / latest CTA):")
        for i, s in enumerate(SLOTS):
            print(f"  {s:6s} {med[2 * i]:7.2f} / {med[2 * i + 1]:7.2f}")
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
