"""Session 27 runs 02-05 (RUN=..): per-CTA %globaltimer timeline (consumer thread 0 = tid 128) of the default K split against the
tail helpers on 128x7168x16384, kernel alone, plus the whole call's time.  Pairs (cta < 2*tiles) and helpers apart."""
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
from probes27 import less_a  # (run 04 ran this script's own copy of it, with other scratch register names)

wd = Watchdog(120)
H.wd = wd
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
POINTS = [("entry", "    mov.u32 %thread, %tid.x;\n", False), ("loop", "    setp.eq.u32 %p_l0, %lane, 0;\n", True),
          ("reduce", "KSPLIT_REDUCE:\n", True), ("wS", "HELP_MAIN_ARRIVE:\n", True), ("pexit", "KSP_EXIT:\n", True),
          ("hwrite", "HELP_WRITE:\n", True), ("hend", "HELP_RUN_END:\n", True), ("exit", "\nEXIT:\n", True)]


def put(slot):
    return ("    mov.u32 %dbc, %tid.x;\n    setp.eq.u32 %pdbg, %dbc, 128;\n"
            "    mov.u64 %dbt, %globaltimer;\n    mov.u32 %dbc, %ctaid.x;\n"
            "    mul.wide.u32 %dbo, %dbc, 128;\n    mov.u64 %dba, s27_dbg;\n    add.u64 %dba, %dba, %dbo;\n"
            f"    @%pdbg st.global.u64 [%dba+{8 * slot}], %dbt;\n"
            "    mov.u64 %dbt, %clock64;\n"
            f"    @%pdbg st.global.u64 [%dba+{8 * slot + 64}], %dbt;\n")


HR = "    min.u32 %u_end, %u_end, %tmp;\nHELP_RANGE_DONE:\n"


def idle_helpers(t):
    """timing probe: every helper's run is empty (wrong results; the pairs never wait for helpers)"""
    assert t.count(HR) == 1
    return t.replace(HR, "    min.u32 %u_end, %u_end, %tmp;\n    mov.u32 %u_end, %u;\nHELP_RANGE_DONE:\n")


def instrument(t):
    t = t.replace(".address_size 64\n", ".address_size 64\n.global .align 16 .u64 s27_dbg[4096];\n", 1)
    i = t.index("    .reg ")
    t = t[:i] + "    .reg .pred %pdbg;\n    .reg .b64 %dbt, %dbo, %dba;\n    .reg .b32 %dbc;\n" + t[i:]
    used = []
    for slot, (nm, anchor, after) in enumerate(POINTS):
        if t.count(anchor) != 1:
            continue
        i = t.index(anchor)
        j = i + len(anchor) if after else i
        t = t[:j] + put(slot) + t[j:]
        used.append((slot, nm))
    return t, used


def main():
    print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    m, n, k = map(int, os.environ.get("SHAPE", "128x7168x16384").split("x"))
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    keep = []
    # the variants of each device run (RUN=02 .. 05; 02 printed no clock lines yet)
    RUNS = {
        "02": [(dict(), 0), (dict(help_tail=4), 0), (dict(help_tail=6), 0), (dict(help_tail=8), 0)],
        "03": [(dict(), 0), (dict(help_tail=4), 0), (dict(help_tail=6), 0), (dict(help_tail=8), 0)],
        "04": [(dict(), 0), (dict(), 1), (dict(), 3), (dict(help_tail=6), 0), (dict(help_tail=6), 1), (dict(help_tail=6), 3),
               (dict(help_tail=8), 1)],
        "05": [(dict(), 0), (dict(help_tail=6), 0), (dict(help_tail=6), "idle"), (dict(), 0), (dict(help_tail=6), 0),
               (dict(help_tail=6), "idle"), (dict(help_tail=2), "idle")],
    }
    VARIANTS = RUNS[os.environ.get("RUN", "05")]
    for kw, mask in VARIANTS:
        p = GemmClusterPlan(m, n, k, 1, **kw)
        g = p.geometry
        rt = render(TEXT, "sm_90a", p.constants)
        txt, used = instrument(idle_helpers(rt) if mask == "idle" else less_a(rt, mask) if mask else rt)
        mod = load(txt, target="sm_90a")
        kern = mod.kernel(G._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
        keep.append((mod, p))
        if not mask:
            H.check_gemm(p, m, n, k, 1, f"{kw}", dists=("competition",))
        wd.arm("run"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        wd.arm("t")
        tw = min(time_op(lambda: p(*args), iters=40).median_us for _ in range(2))
        tk = min(time_op(lambda: p._launch.launch(), iters=40).median_us for _ in range(2))
        wd.disarm()
        ptr, size = driver.call("cuModuleGetGlobal", mod.handle, b"s27_dbg")
        buf = np.zeros(size // 8, np.uint64)
        driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
        t = buf[:g.grid * 16].reshape(g.grid, 16).astype(np.int64)
        t0 = t[:, 0].min()
        tiles = (g.grid - (p.geometry.helpers if kw else 0)) // 2
        print(f"{kw or 'default'} A16 copies skipped on sub-steps j & {mask}: grid {g.grid}, whole {tw:.2f}, kernel alone {tk:.2f} us", flush=True)
        for role, sel in (("pairs", slice(0, 2 * tiles)), ("helpers", slice(2 * tiles, g.grid))):
            r = t[sel]
            if len(r) == 0:
                continue
            parts = []
            for slot, nm in used:
                col = r[:, slot]
                ok = col > 0
                if ok.sum() == 0 or nm == "entry" and False:
                    continue
                rel = (col[ok] - t0) / 1000.0
                parts.append(f"{nm}[{ok.sum()}]={np.median(rel):.2f}/{rel.min():.2f}/{rel.max():.2f}")
            print(f"  {role:8s} med/min/max us from first entry: " + " ".join(parts), flush=True)
            end = 2 if role == "pairs" else 6
            ok = r[:, end] > 0
            mhz = (r[ok, 8 + end] - r[ok, 9]) / (r[ok, end] - r[ok, 1]) * 1000.0
            print(f"  {role:8s} SM clock loop->{'reduce' if end == 2 else 'hend'}: median {np.median(mhz):.0f} MHz (min {mhz.min():.0f}, max {mhz.max():.0f})", flush=True)
    print("FAILS", H.FAILS)


if __name__ == "__main__":
    main()
