"""Session 27: the K split's prologue, per CTA (%globaltimer; first visit of each point only), 128x7168x16384 and
128x7168x2048, kernel alone and whole call.  Slots: thread 0 (B producer / barrier init), 32 (A16 producer), 128
(consumer 0)."""
import os, sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s27")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H

wd = Watchdog(120)
H.wd = wd
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
POINTS = [  # name, tid, anchor, after
    ("t0.entry", 0, "    mov.u32 %thread, %tid.x;\n", False),
    ("c.entry", 128, "    mov.u32 %thread, %tid.x;\n", False),
    ("t0.inited", 0, "    fence.mbarrier_init.release.cluster;      // the inits are visible to the copy engine and to the peers\n", True),
    ("c.synced", 128, "    bar.sync 0;                               // K split's exchange); this CTA's threads see the inits at once\n", True),
    ("b.tma1", 0, "        [%slot_addr], [%tm_b, {%x, %n0, %batch}], [%bar];\n", True),
    ("a.gdwait", 32, "    griddepcontrol.wait;                      // the decode kernel is complete and A16 is visible (PDL)\n", True),
    ("a.tma1", 32, "        [%addr], [%tm_a16, {%kel, %m0, %batch}], [%bar];\n", True),
    ("c.loop", 128, "    setp.eq.u32 %p_l0, %lane, 0;\n", True),
    ("c.full1", 128, "C_FULL_OK:\n", True),
    ("c.afull1", 128, "C_AOK0:\n", True),
    ("c.reduce", 128, "KSPLIT_REDUCE:\n", True),
    ("c.exit", 128, "KSP_EXIT:\n", True),
]


def put(slot, tid):
    return (f"    mov.u32 %dbc, %tid.x;\n    setp.eq.u32 %pdbg, %dbc, {tid};\n    and.pred %pdbg, %pdbg, %pf{slot};\n"
            "    mov.u64 %dbt, %globaltimer;\n    mov.u32 %dbc, %ctaid.x;\n"
            "    mul.wide.u32 %dbo, %dbc, 128;\n    mov.u64 %dba, s27_dbg;\n    add.u64 %dba, %dba, %dbo;\n"
            f"    @%pdbg st.global.u64 [%dba+{8 * slot}], %dbt;\n    @%pdbg setp.ne.u32 %pf{slot}, 0, 0;\n")


def instrument(t):
    t = t.replace(".address_size 64\n", ".address_size 64\n.global .align 16 .u64 s27_dbg[8192];\n", 1)
    i = t.index("    .reg ")
    n = len(POINTS)
    t = (t[:i] + "    .reg .pred %pdbg, " + ", ".join(f"%pf{s}" for s in range(n)) + ";\n    .reg .b64 %dbt, %dbo, %dba;\n"
         "    .reg .b32 %dbc;\n" + t[i:])
    j = t.index("    ld.param.u32 %m, [m];\n")
    t = t[:j] + "".join(f"    setp.eq.u32 %pf{s}, 0, 0;\n" for s in range(n)) + t[j:]
    for slot, (nm, tid, anchor, after) in enumerate(POINTS):
        assert t.count(anchor) == 1, anchor
        i = t.index(anchor)
        j = i + len(anchor) if after else i
        t = t[:j] + put(slot, tid) + t[j:]
    return t


if __name__ == "__main__":
    print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    keep = []
    for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048)]:
        d, args, c = H.gemm_args(m, n, k, 1, "competition")
        p = GemmClusterPlan(m, n, k, 1)
        g = p.geometry
        mod = load(instrument(render(TEXT, "sm_90a", p.constants)), target="sm_90a")
        kern = mod.kernel(G._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
        keep.append((mod, p))
        H.check_gemm(p, m, n, k, 1, f"{m}x{n}x{k}", dists=("competition",))
        wd.arm("run"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        ptr, size = driver.call("cuModuleGetGlobal", mod.handle, b"s27_dbg")
        for regime, fn in (("kernel", lambda: p._launch.launch()), ("whole", lambda: p(*args))):
            for rep in range(2):
                wd.arm("t")
                tb = time_op(fn, iters=40).median_us
                wd.disarm()
                buf = np.zeros(size // 8, np.uint64)
                driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
                t = buf[:g.grid * 16].reshape(g.grid, 16)[:, :len(POINTS)].astype(np.int64)
                t0 = t[:, 0].min()
                rel = (t - t0) / 1000.0
                line = " ".join(f"{nm}={np.median(rel[:, j]):.2f}/{rel[:, j].max():.2f}" for j, (nm, _, _, _) in enumerate(POINTS))
                print(f"{m}x{n}x{k} {regime:6s} {tb:6.2f} us | med/max from first entry: {line}", flush=True)
    print("FAILS", H.FAILS)
