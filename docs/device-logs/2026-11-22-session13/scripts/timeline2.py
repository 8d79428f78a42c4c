"""Session 13: per-CTA %globaltimer timeline of the K-split GEMM, pull (committed) against push, kernel alone and
whole call (decode + GEMM under PDL), shape 1 and 3.  Consumer thread 0 (tid 128) of each CTA writes each point."""
import subprocess
import numpy as np
import nvfp4rt
from nvfp4rt import data, driver
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render


def put(slot):
    return ("    mov.u32 %dbc, %tid.x;\n    setp.eq.u32 %pdbg, %dbc, 128;\n"
            "    mov.u64 %dbt, %globaltimer;\n    mov.u32 %dbc, %ctaid.x;\n"
            "    mul.wide.u32 %dbo, %dbc, 128;\n    mov.u64 %dba, s13_dbg;\n    add.u64 %dba, %dba, %dbo;\n"
            f"    @%pdbg st.global.u64 [%dba+{8 * slot}], %dbt;\n")


def at(t, anchor, slot, after=True, nth=0):
    i = -1
    for _ in range(nth + 1):
        i = t.index(anchor, i + 1)
    j = t.index("\n", i) + 1 if after else i
    return t[:j] + put(slot) + t[j:]


COMMON = [("entry", "    mov.u32 %thread, %tid.x;\n", False), ("init_done", "    setp.lt.u32 %p_lead, %thread, 128;\n    @%p_lead bra PRODUCERS;", False),
          ("seg_loop", "SEG_LOOP:\n", False), ("reduce", "KSPLIT_REDUCE:\n", True)]
PULL = COMMON + [("parked", "    barrier.cluster.arrive.release;           // every CTA's partial is in place", False),
                 ("exchanged", "    mapa.shared::cluster.u32 %pr0, %sm, 0;", False),
                 ("stored", "    bra.uni EXIT;                             // its cluster barrier keeps P alive", False),
                 ("exit", "    ret;\n}", False)]
PUSH = COMMON + [("parked", "    fence.proxy.async.shared::cta;            // the parked P", False),
                 ("exchanged", "    @!%p_ks0 bra KSP_ACKED;", False),
                 ("stored", "    @!%p_ks0 bra KSP_EXIT;", False),
                 ("exit", "KSP_EXIT:\n", True)]


def instrument(t, points):
    t = t.replace(".address_size 64\n", ".address_size 64\n.global .align 16 .u64 s13_dbg[4096];\n", 1)
    i = t.index("    .reg ")
    t = t[:i] + "    .reg .pred %pdbg;\n    .reg .b64 %dbt, %dbo, %dba;\n    .reg .b32 %dbc;\n" + t[i:]
    for slot, (nm, anchor, after) in enumerate(points):
        assert t.count(anchor) == 1, anchor
        t = at(t, anchor, slot, after)
    return t


old = subprocess.run(["git", "show", "HEAD:ptx/gemm_nvfp4_wgmma_cluster.ptx"], capture_output=True, text=True,
                     check=True).stdout
new = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
print(nvfp4rt.device().properties.name, flush=True)
for (m, n, k) in ((128, 7168, 16384), (128, 7168, 2048)):
    d = data.gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    p = GemmClusterPlan(m, n, k)
    p.run(*args)
    g = p.geometry
    for vname, txt, points in (("pull", old, PULL), ("push", new, PUSH)):
        mod = load(instrument(render(txt, "sm_90a", dict(p.constants)), points), target="sm_90a")
        kern = mod.kernel(GCm._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch = kern, None
        p.run(*args)
        for regime, fn in (("kernel", lambda: p._launch.launch()), ("whole", lambda: p.run(*args))):
            tb = min(time_op(fn, iters=60).median_us for _ in range(2))
            ptr, size = driver.call("cuModuleGetGlobal", mod.handle, b"s13_dbg")
            buf = np.zeros(size // 8, np.uint64)
            driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
            t = buf[:g.grid * 16].reshape(g.grid, 16)[:, :len(points)].astype(np.int64)
            rel = (t - t[:, 0].min()) / 1000.0
            line = " ".join(f"{nm}={np.median(rel[:, j]):.2f}/{rel[:, j].max():.2f}" for j, (nm, _, _) in enumerate(points))
            print(f"{m}x{n}x{k} {vname} {regime:6s} event {tb:6.2f} us | med/max from first entry: {line}", flush=True)
