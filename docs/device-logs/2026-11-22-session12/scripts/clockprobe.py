"""Session 12: the SM clock the GEMM's consumers really run at, and their cycles per unit, read inside the kernel
(%clock64 and %globaltimer at the main loop's start and at the K split's reduction, consumer thread 0 of each CTA),
after ~2 s of back-to-back launches (steady power).  Committed kernel and the variant without A16/B traffic."""
import re, sys, time
import numpy as np
sys.path.insert(0, ".scratch/s12")
import traffic
import nvfp4rt
from nvfp4rt import data, driver
from nvfp4rt.array import asarray
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render


def put(slot):
    return ("    mov.u64 %dbt, %globaltimer;\n    mov.u64 %dbk, %clock64;\n    mov.u32 %dbc, %ctaid.x;\n"
            "    mul.wide.u32 %dbo, %dbc, 32;\n    mov.u64 %dba, s12_dbg;\n    add.u64 %dba, %dba, %dbo;\n"
            f"    @%pdbg st.global.v2.u64 [%dba+{16 * slot}], {{%dbt, %dbk}};\n")


def instrument(t):
    t = t.replace(".address_size 64\n", ".address_size 64\n.global .align 16 .u64 s12_dbg[1024];\n", 1)
    i = t.index("    .reg ")
    t = t[:i] + "    .reg .pred %pdbg;\n    .reg .b64 %dbt, %dbk, %dbo, %dba;\n    .reg .b32 %dbc;\n" + t[i:]
    assert t.count("SEG_LOOP:\n") == 1 and t.count("KSPLIT_REDUCE:\n") == 1
    t = t.replace("SEG_LOOP:\n", "    setp.eq.u32 %pdbg, %ct, 0;\n" + put(0) + "SEG_LOOP:\n")
    t = t.replace("KSPLIT_REDUCE:\n", "KSPLIT_REDUCE:\n" + put(1))
    return t


print(nvfp4rt.device().properties.name, flush=True)
base = traffic.decl(open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read())
texts = {"committed": base, "no_a16_no_b": traffic.no_b(traffic.no_a16(base))}
m, n, k = 128, 7168, 16384
d = data.gemm_data(m, n, k, 1, seed=None)
devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
        for nm in ("a", "b", "sfa", "sfb", "c")}
args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
p = GemmClusterPlan(m, n, k)
p.run(*args)
g = p.geometry
units = g.k_stages // g.ksplit
from nvfp4rt.bench import time_op
for warm in (False, True, "bench"):
    for nm, txt in texts.items():
        mod = load(instrument(render(txt, "sm_90a", dict(p.constants))), target="sm_90a")
        kern = mod.kernel(GCm._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch = kern, None
        p.run(*args)
        if warm == "bench":
            tb = min(time_op(p._launch.launch, iters=60).median_us for _ in range(3))
            print(f"bench-regime kernel {tb:6.2f} us (the last call below)", flush=True)
        elif warm:
            t0 = time.time()
            while time.time() - t0 < 2.0:
                for _ in range(50):
                    p._launch.launch()
        if warm != "bench":
            p._launch.launch()
        driver.call("cuCtxSynchronize")
        ptr, size = driver.call("cuModuleGetGlobal", mod.handle, b"s12_dbg")
        buf = np.zeros(size // 8, np.uint64)
        driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
        t = buf[:g.grid * 4].reshape(g.grid, 4).astype(np.int64)
        ns = t[:, 2] - t[:, 0]
        cyc = t[:, 3] - t[:, 1]
        mhz = cyc / ns * 1000
        print(f"{({False: 'cold', True: 'steady'}.get(warm, warm)):6s} {nm:12s} main loop {np.median(ns) / 1000:6.2f} us (max {ns.max() / 1000:6.2f}) "
              f"{np.median(cyc) / units:7.0f} cycles/unit  clock {np.median(mhz):6.0f} MHz (min {mhz.min():5.0f} max {mhz.max():5.0f})",
              flush=True)
