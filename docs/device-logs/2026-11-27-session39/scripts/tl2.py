"""Session 39 run 10: the m-tile GEMM's epilogue on competition cases 4 and 3, stamp by stamp (%globaltimer, per CTA,
consumer thread 0 unless noted; the instrumented build only adds the stamps; c checked against the float64
reference):
  entry   consumer thread 0 starts;        pdl     the A16 producer's griddepcontrol.wait returns;
  full    the first B stage seen full;     segend  the last unit's loop is left (before wgmma.wait_group 0);
  wgdone  after wgmma.wait_group 0;        store   STORE_TILE;
  alpha   after the first stmatrix (its operands need the tile's alpha, loaded from the m-tile table at STORE_TILE);
  staged  after the warpgroup's barrier that follows the staging and the proxy fence;
  issued  after the TMA store's commit_group;  exit  at EXIT, after wait_group.read 0.
Times in us from the launch's earliest entry: median over CTAs / latest CTA, then medians over CALLS calls, each
after the bench's L2 clear.  Usage: tl2.py [CALLS] [CASES...]"""
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

SLOTS = ["entry", "pdl", "full", "segend", "wgdone", "store", "alpha", "staged", "issued", "exit"]
PER_CTA = 16
NCTA = 264
_orig = CL.kernel_text


def stamp(slot, pred, op="st"):
    i = SLOTS.index(slot)
    inst = "st.global.u64" if op == "st" else "red.global.min.u64"
    return f"    mov.u64 %tl_t, %globaltimer;\n    @{pred} {inst} [%tl_a+{8 * i}], %tl_t;\n"


def once(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)


def after(text, old, add):
    return once(text, old, old + add)


def instrumented(cons):
    t = _orig(cons)
    t = once(t, ".visible .entry nvfp4_gemm_wgmma_cluster(",
             f".global .align 8 .u64 nvfp4_tl[{NCTA * PER_CTA}];\n\n.visible .entry nvfp4_gemm_wgmma_cluster(")
    t = after(t, "    .reg .f32   %acc<64>;\n", "    .reg .u64   %tl_t, %tl_a, %tl_b;\n    .reg .u32   %tl_c;\n"
              "    .reg .pred  %p_tl;\n")
    t = after(t, "    mov.u32 %thread, %tid.x;\n", f"    mov.u32 %tl_c, %ctaid.x;\n    mul.wide.u32 %tl_a, %tl_c, {8 * PER_CTA};\n"
              "    mov.u64 %tl_b, nvfp4_tl;\n    add.u64 %tl_a, %tl_a, %tl_b;\n    setp.eq.u32 %p_tl, %thread, 128;\n")
    t = after(t, "    sub.u32 %ct, %thread, 128;                // consumer thread 0..CONSUMERS-1\n", stamp("entry", "%p_tl"))
    t = after(t, "    griddepcontrol.wait;                      // the decode kernel is complete and A16 is visible (PDL)\n",
              f"    mov.u64 %tl_t, %globaltimer;\n    st.global.u64 [%tl_a+{8 * SLOTS.index('pdl')}], %tl_t;\n")
    assert re.search(r"\nC_FULL_OK\w*:\n", t)
    t = re.sub(r"\n(C_FULL_OK\w*:\n)", lambda m: "\n" + m.group(1) + stamp("full", "%p_tl", "min"), t)
    seg = "    // ================================================================== segment epilogue\n"
    t = after(t, seg, stamp("segend", "%p_tl"))
    i = t.index(seg)
    j = t.index("    wgmma.wait_group.sync.aligned 0;\n", i) + len("    wgmma.wait_group.sync.aligned 0;\n")
    t = t[:j] + stamp("wgdone", "%p_tl") + t[j:]
    t = after(t, "STORE_TILE:\n", stamp("store", "%p_tl"))
    first_st = "    stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%addr+0*{{STG_PITCH}}], {%x, %y, %z, %tmp2};\n"
    t = after(t, first_st, stamp("alpha", "%p_tl"))
    t = after(t, "    fence.proxy.async.shared::cta;            // this thread's stmatrix stores before the TMA engine's reads\n"
              "    bar.sync %wbar, 128;\n", stamp("staged", "%p_tl"))
    i = t.index("STORE_TILE:\n")
    j = t.index("    cp.async.bulk.commit_group;\n", i) + len("    cp.async.bulk.commit_group;\n")
    t = t[:j] + stamp("issued", "%p_tl") + t[j:]
    t = after(t, "    cp.async.bulk.wait_group.read 0;          // a warpgroup's storing thread: its TMA stores have read shared memory\n",
              stamp("exit", "%p_tl"))
    return t


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    cases = [int(c) for c in sys.argv[2:]] or [4, 3]
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    timer = DriverTimer(dev, None)
    gb = GroupedGemmBench()
    for case in cases:
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        CL.kernel_text = instrumented
        CL._kernel.cache_clear()
        p = GM.GroupedGemmMTilePlan(st.shapes, layouts)
        CL.kernel_text = _orig
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
            timer.clear_l2()
            p(st.views)
            driver.call("cuCtxSynchronize")
            a = np.empty(size // 8, np.uint64)
            driver.call("cuMemcpyDtoH", a.ctypes.data, ptr, size)
            a = a.reshape(-1, PER_CTA)[:grid, :len(SLOTS)].astype(np.int64)
            rel = (a - a[:, 0].min()) / 1000.0
            rows.append([f(rel[:, i]) for i in range(len(SLOTS)) for f in (np.median, np.max)])
        med = np.median(np.array(rows), axis=0)
        print(f"case {case} ({calls} calls, L2 cleared; us from the earliest entry, median over CTAs / latest CTA):")
        for i, s in enumerate(SLOTS):
            print(f"  {s:6s} {med[2 * i]:7.2f} / {med[2 * i + 1]:7.2f}")
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
