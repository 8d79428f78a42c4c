"""Session 18, device run 2: cycles per k256 unit and the SM clock inside the kernel (%clock64 and %globaltimer at
the main loop's start and end, consumer thread 0 of each CTA, kernel alone in the bench regime) for the dual's whole
128-row tiles, the GEMM's whole tiles on the same tiles (256x8192x7168) and the GEMM's K split (128x7168x16384);
and, for the dual, timing-only variants without B traffic and without A16 + B traffic (loads after the first lap
of each ring skipped; outputs wrong)."""
import sys, time
import numpy as np
sys.path.insert(0, "docs/device-logs/2026-11-22-session12/scripts")
import traffic
import nvfp4rt
from nvfp4rt import data, reference, driver
from nvfp4rt.bench import time_op
from nvfp4rt.array import asarray
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render


def put(slot):
    return ("    mov.u32 %dbc, %tid.x;\n    setp.eq.u32 %pdbg, %dbc, 128;\n"
            "    mov.u64 %dbt, %globaltimer;\n    mov.u64 %dbk, %clock64;\n    mov.u32 %dbc, %ctaid.x;\n"
            "    mul.wide.u32 %dbo, %dbc, 32;\n    mov.u64 %dba, s18_dbg;\n    add.u64 %dba, %dba, %dbo;\n"
            f"    @%pdbg st.global.v2.u64 [%dba+{16 * slot}], {{%dbt, %dbk}};\n")


def rep1(t, old, new):
    assert t.count(old) == 1, old
    return t.replace(old, new)


def instrument(t, ksplit):
    t = rep1(t, ".address_size 64\n", ".address_size 64\n.global .align 16 .u64 s18_dbg[1024];\n")
    i = t.index("    .reg ")
    t = t[:i] + "    .reg .pred %pdbg;\n    .reg .b64 %dbt, %dbk, %dbo, %dba;\n    .reg .b32 %dbc;\n" + t[i:]
    t = rep1(t, "SEG_LOOP:\n", put(0) + "SEG_LOOP:\n")
    if ksplit:
        t = rep1(t, "KSPLIT_REDUCE:\n", "KSPLIT_REDUCE:\n" + put(1))
    else:
        t = rep1(t, "STORE_TILE:\n", "STORE_TILE:\n" + put(1))
    return t


B_DUAL = ("    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n"
          "        [%addr], [%tm_b2, {%x, %n0, %batch}], [%bar];\n",
          "    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n"
          "        [%addr], [%tm_sfb2, {%y, %n0, %batch}], [%bar];\n")


def no_b(t):
    t = traffic.no_b(t)
    for s in B_DUAL:
        t = rep1(t, s, s.replace("    cp.async", "    @%p_ldb cp.async", 1))
    return t


def best(f, n=3, iters=60):
    return min(time_op(f, iters=iters).median_us for _ in range(n))


def swap(p, text):
    mod = load(render(text, "sm_90a", dict(p.constants)), target="sm_90a")
    kern = mod.kernel(GCm._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch = kern, None
    if hasattr(p, "_repeat"):
        p._repeat = None
    p._launched_maps = {}
    return mod


def cycles(tag, p, mod, units, rounds=3):
    for _ in range(rounds):
        tb = time_op(p._launch.launch, iters=60).median_us    # the last timed call leaves its numbers
        ptr, size = driver.call("cuModuleGetGlobal", mod.handle, b"s18_dbg")
        buf = np.zeros(size // 8, np.uint64)
        driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
        g = p.geometry
        t = buf[:g.grid * 4].reshape(g.grid, 4).astype(np.int64)
        ns, cyc = t[:, 2] - t[:, 0], t[:, 3] - t[:, 1]
        mhz = cyc / ns * 1000
        print(f"{tag:34s} kernel {tb:6.2f} us  main loop {np.median(ns) / 1000:6.2f} us (max {ns.max() / 1000:6.2f})"
              f"  {np.median(cyc) / units:6.0f} cycles/unit  clock {np.median(mhz):5.0f} MHz ({mhz.min():5.0f}-{mhz.max():5.0f})",
              flush=True)


dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
base = traffic.decl(open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read())
m, n, k = 256, 4096, 7168
d = data.dual_gemm_data(m, n, k, 1, seed=None)
dv = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
      for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c")}
dargs = tuple(dv[nm].transpose(1, 2, 0) for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c"))
plans = {}
for nm, text in (("committed", base), ("no_b", no_b(base)), ("no_a16_no_b", no_b(traffic.no_a16(base)))):
    p = DualGemmTilesPlan(m, n, k, 1)
    p(*dargs)
    mod = swap(p, instrument(text, False))
    p(*dargs); driver.call("cuCtxSynchronize")
    plans[f"dual 256x4096x7168 {nm}"] = (p, mod, 28)
for (gm, gn, gk) in ((256, 8192, 7168), (128, 7168, 16384)):
    g = data.gemm_data(gm, gn, gk, 1, seed=None)
    gv = {nm: asarray(g.physical(nm).view(np.uint8) if nm.startswith("sf") else g.physical(nm))
          for nm in ("a", "b", "sfa", "sfb", "c")}
    gargs = tuple(gv[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    p = GemmClusterPlan(gm, gn, gk)
    p.run(*gargs)
    ks = p.geometry.ksplit > 1
    mod = swap(p, instrument(base, ks))
    p.run(*gargs); driver.call("cuCtxSynchronize")
    units = p.geometry.k_stages // p.geometry.ksplit if ks else p.geometry.units_per_cluster
    plans[f"gemm {gm}x{gn}x{gk} {p.geometry.ksplit}"] = (p, mod, units)
    print(repr(p), units, flush=True)
for rnd in range(2):
    for tag, (p, mod, units) in plans.items():
        cycles(tag, p, mod, units, rounds=2)
