"""Session 18, device run 1: the dual GEMM's 128-row whole tiles.  (a) clusters of 1 (the plan's choice) against
clusters of 2 and 4 (A16 multicast along n, same whole tiles); (b) the timing-only variant whose A16 producer stops
loading after its first lap (no A16 L2 traffic; outputs wrong); (c) a per-CTA %globaltimer timeline of the
committed kernel (consumer thread 0 of each CTA).  Whole calls and kernel alone, L2 cleared, best of three medians."""
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
from nvfp4rt.ptxsource import render

NAMES = ("entry", "init_done", "seg_loop", "loop_end", "store_tile", "staged", "copied", "exit")


def put(slot):
    return ("    mov.u32 %dbc, %tid.x;\n    setp.eq.u32 %pdbg, %dbc, 128;\n"
            "    mov.u64 %dbt, %globaltimer;\n    mov.u32 %dbc, %ctaid.x;\n"
            "    mul.wide.u32 %dbo, %dbc, 128;\n    mov.u64 %dba, s18_dbg;\n    add.u64 %dba, %dba, %dbo;\n"
            f"    @%pdbg st.global.u64 [%dba+{8 * slot}], %dbt;\n")


def rep1(t, old, new):
    assert t.count(old) == 1, old
    return t.replace(old, new)


def instrument(t):
    t = rep1(t, ".address_size 64\n", ".address_size 64\n.global .align 16 .u64 s18_dbg[4096];\n")
    i = t.index("    .reg ")
    t = t[:i] + "    .reg .pred %pdbg;\n    .reg .b64 %dbt, %dbo, %dba;\n    .reg .b32 %dbc;\n" + t[i:]
    t = rep1(t, "    mov.u32 %thread, %tid.x;\n", put(0) + "    mov.u32 %thread, %tid.x;\n")
    t = rep1(t, "    setp.lt.u32 %p_lead, %thread, 128;\n    @%p_lead bra PRODUCERS;\n",
             put(1) + "    setp.lt.u32 %p_lead, %thread, 128;\n    @%p_lead bra PRODUCERS;\n")
    t = rep1(t, "SEG_LOOP:\n", put(2) + "SEG_LOOP:\n")
    t = rep1(t, "    // ================================================================== segment epilogue\n",
             put(3) + "    // ================================================================== segment epilogue\n")
    t = rep1(t, "STORE_TILE:\n", "STORE_TILE:\n" + put(4))
    t = rep1(t, "    // ---- copy out: 128 rows", put(5) + "    // ---- copy out: 128 rows")
    t = rep1(t, "NEXT_SEG:\n", "NEXT_SEG:\n" + put(6))
    t = rep1(t, "\nEXIT:\n", "\nEXIT:\n" + put(7))
    return t


def best(f, n=3, iters=60):
    return min(time_op(f, iters=iters).median_us for _ in range(n))


def swap(p, text):
    mod = load(render(text, "sm_90a", dict(p.constants)), target="sm_90a")
    kern = mod.kernel(GCm._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch = kern, None
    p._repeat, p._launched_maps = None, {}
    return mod


dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
base = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
runs = {}
timelines = []
for (m, n, k, clusters) in [(256, 4096, 7168, (1, 2)), (256, 3072, 4096, (1, 2, 4))]:
    d = data.dual_gemm_data(m, n, k, 1, seed=None)
    ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    dv = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
          for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c")}
    args = tuple(dv[nm].transpose(1, 2, 0) for nm in ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c"))
    sh = f"{m}x{n}x{k}"
    for cl in clusters:
        p = DualGemmTilesPlan(m, n, k, 1, cluster=cl, units_per_cluster=-(-k // 256))
        dv["c"].fill(np.nan); p(*args); driver.call("cuCtxSynchronize")
        res = reference.check(dv["c"].numpy().transpose(1, 2, 0), ref)
        print(f"dual {sh} cluster {cl}: {'OK' if res.ok else res} {p!r}", flush=True)
        runs[(sh, f"c{cl}")] = lambda p=p, args=args: p(*args)
        runs[(sh, f"c{cl} alone")] = lambda p=p: p._launch.launch()
    q = DualGemmTilesPlan(m, n, k, 1, cluster=1, units_per_cluster=-(-k // 256))
    q(*args)
    swap(q, traffic.no_a16(traffic.decl(base)))
    q(*args); driver.call("cuCtxSynchronize")
    runs[(sh, "c1 noA16 alone")] = lambda q=q: q._launch.launch()
    t = DualGemmTilesPlan(m, n, k, 1, cluster=1, units_per_cluster=-(-k // 256))
    t(*args)
    tmod = swap(t, instrument(base))
    dv["c"].fill(np.nan); t(*args); driver.call("cuCtxSynchronize")
    res = reference.check(dv["c"].numpy().transpose(1, 2, 0), ref)
    print(f"dual {sh} instrumented: {'OK' if res.ok else res}", flush=True)
    timelines.append((sh, t, tmod))
for rnd in range(2):
    for shape in dict.fromkeys(s for s, _ in runs):
        row = [f"{tag} {best(f):6.2f}" for (sh, tag), f in runs.items() if sh == shape]
        print(f"round {rnd} {shape}: " + "  ".join(row), flush=True)
for sh, t, tmod in timelines:
    for rnd in range(2):
        tb = time_op(t._launch.launch, iters=60).median_us
        ptr, size = driver.call("cuModuleGetGlobal", tmod.handle, b"s18_dbg")
        buf = np.zeros(size // 8, np.uint64)
        driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
        g = t.geometry
        tt = buf[:g.grid * 16].reshape(g.grid, 16)[:, :len(NAMES)].astype(np.int64)
        rel = (tt - tt[:, 0].min()) / 1000.0
        print(f"timeline {sh} {t!r} kernel alone {tb:6.2f} us; from the first CTA's entry (us):", flush=True)
        for j, nm in enumerate(NAMES):
            col = rel[:, j]
            print(f"   {nm:10s} min {col.min():7.2f} med {np.median(col):7.2f} max {col.max():7.2f}", flush=True)
        for a, b in ((2, 3), (3, 4), (4, 5), (5, 6), (6, 7)):
            dd = rel[:, b] - rel[:, a]
            print(f"   {NAMES[a]:>10s} -> {NAMES[b]:10s} min {dd.min():6.2f} med {np.median(dd):6.2f} max {dd.max():6.2f}",
                  flush=True)
