"""Session 13: a per-CTA timeline of the GEMM cluster kernel (kernel alone, bench regime: one call after the L2
clearing memset): %globaltimer at entry, after the init cluster barrier, at SEG_LOOP, at KSPLIT_REDUCE, after the
K split's stores, and before ret (consumer thread 0 = tid 128 of each CTA)."""
import sys
import numpy as np
import nvfp4rt
from nvfp4rt import data, driver
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render

NAMES = ("entry", "init_done", "seg_loop", "reduce", "stored", "exit", "bar_sync", "parked", "cl_barrier")


def put(slot):
    return ("    mov.u32 %dbc, %tid.x;\n    setp.eq.u32 %pdbg, %dbc, 128;\n"
            "    mov.u64 %dbt, %globaltimer;\n    mov.u32 %dbc, %ctaid.x;\n"
            "    mul.wide.u32 %dbo, %dbc, 128;\n    mov.u64 %dba, s13_dbg;\n    add.u64 %dba, %dba, %dbo;\n"
            f"    @%pdbg st.global.u64 [%dba+{8 * slot}], %dbt;\n")


def rep1(t, old, new):
    assert t.count(old) == 1, old
    return t.replace(old, new)


def instrument(t):
    t = rep1(t, ".address_size 64\n", ".address_size 64\n.global .align 16 .u64 s13_dbg[4096];\n")
    i = t.index("    .reg ")
    t = t[:i] + "    .reg .pred %pdbg;\n    .reg .b64 %dbt, %dbo, %dba;\n    .reg .b32 %dbc;\n" + t[i:]
    t = rep1(t, "    mov.u32 %thread, %tid.x;\n", put(0) + "    mov.u32 %thread, %tid.x;\n")
    t = rep1(t, "    setp.lt.u32 %p_lead, %thread, 128;\n    @%p_lead bra PRODUCERS;\n",
             put(1) + "    setp.lt.u32 %p_lead, %thread, 128;\n    @%p_lead bra PRODUCERS;\n")
    t = rep1(t, "SEG_LOOP:\n", put(2) + "SEG_LOOP:\n")
    t = rep1(t, "KSPLIT_REDUCE:\n", "KSPLIT_REDUCE:\n" + put(3))
    t = rep1(t, "    bar.sync 1, 256;                // every consumer is past its last wgmma",
             put(6).join(["", ""]) if False else "    bar.sync 1, 256;                // every consumer is past its last wgmma")
    i = t.index("KSPLIT_REDUCE:")
    j = t.index("\n", t.index("bar.sync 1,", i)) + 1
    t = t[:j] + put(6) + t[j:]
    j = t.index("    barrier.cluster.arrive.release;           // every CTA's partial is in place", i)
    t = t[:j] + put(7) + t[j:]
    j = t.index("\n", t.index("barrier.cluster.wait.acquire;", j)) + 1
    t = t[:j] + put(8) + t[j:]
    t = rep1(t, "    bra.uni EXIT;                             // its cluster barrier keeps P alive",
             put(4) + "    bra.uni EXIT;                             // its cluster barrier keeps P alive")
    t = rep1(t, "    ret;\n}", put(5) + "    ret;\n}")
    return t


print(nvfp4rt.device().properties.name, flush=True)
base = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
for (m, n, k) in ((128, 7168, 16384), (128, 7168, 2048)):
    d = data.gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    p = GemmClusterPlan(m, n, k)
    p.run(*args)
    mod = load(instrument(render(base, "sm_90a", dict(p.constants))), target="sm_90a")
    kern = mod.kernel(GCm._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch = kern, None
    p.run(*args)
    for rnd in range(3):
        tb = time_op(p._launch.launch, iters=60).median_us   # the last timed call leaves its timeline
        ptr, size = driver.call("cuModuleGetGlobal", mod.handle, b"s13_dbg")
        buf = np.zeros(size // 8, np.uint64)
        driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
        g = p.geometry
        t = buf[:g.grid * 16].reshape(g.grid, 16)[:, :9].astype(np.int64)
        t0 = t[:, 0].min()
        rel = (t - t0) / 1000.0
        print(f"{m}x{n}x{k} {p!r} event-timed kernel {tb:6.2f} us; times from the first CTA's entry (us): "
              f"first/median/max per point", flush=True)
        for j, nm in enumerate(NAMES):
            col = rel[:, j]
            print(f"   {nm:10s} min {col.min():7.2f} med {np.median(col):7.2f} max {col.max():7.2f}", flush=True)
        dl = rel[:, 3] - rel[:, 2]
        print(f"   main loop per CTA: min {dl.min():6.2f} med {np.median(dl):6.2f} max {dl.max():6.2f}; "
              f"reduce+store {np.median(rel[:, 4] - rel[:, 3]):6.2f} med, {(rel[:, 4] - rel[:, 3]).max():6.2f} max; "
              f"stored->exit med {np.median(rel[:, 5] - rel[:, 4]):6.2f}", flush=True)
        for a, b in ((3, 6), (6, 7), (7, 8), (8, 4)):
            dd = rel[:, b] - rel[:, a]
            print(f"   {NAMES[a]:>10s} -> {NAMES[b]:10s} min {dd.min():6.2f} med {np.median(dd):6.2f} max {dd.max():6.2f}", flush=True)
