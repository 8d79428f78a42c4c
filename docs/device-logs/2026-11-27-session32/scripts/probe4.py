"""Session 32, device run 4: which sets of unit loops keep the grouped cluster kernel's loops fast.

probe3 found the committed kernel's 128-row unit at 1677 ns against the GEMM template's 1265, the N = 128 loop alone at
1381, the four loops N <= 128 at 1327, and the N = 128 and N = 256 loops together (no ptxas warning) at 1617.  Here
the loop sets are built with the accumulators past N/2 defined (zeroed after a wait_group 0) at each smaller loop's
exit ("d"), so that they are dead inside it:
  G8 committed (eight loops, C7511) | G2 {128, 256} | G2d | G3d {64, 128, 256} | Q4d {64, 128, 192, 256} |
  G256 {256} | T the GEMM template (m = 128 only).
Problems: one group of m rows (128, 256 and 192), n = 7168, k = 8192 and 4096, 28 clusters of 2, whole tiles; the kernel
alone at both k (best of 3 medians of 40, L2 cleared, three rounds), so the time per k256 unit; every output bit for
bit the committed kernel's.  Then G2d and G3d instrumented on m = 128 (tools/profile_cluster_kernel.py's counters)."""
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
sys.path.insert(0, "docs/device-logs/2026-11-22-session27/scripts")
from hang_watchdog import Watchdog  # noqa: E402
import gen_grouped_gemm_cluster_ptx as gen  # noqa: E402
import profile_cluster_kernel as prof  # noqa: E402
import nvfp4rt  # noqa: E402
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, time_op  # noqa: E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ops import gemm_wgmma_cluster as GCL  # noqa: E402
from nvfp4rt.ptxsource import ptx_dir, render  # noqa: E402
import exp1h as H  # noqa: E402

N, KS = 7168, (8192, 4096)
SETUP, LOOP, POST = gen.split_main_loop()


def loops(variants, dead):
    parts = []
    for n in variants:
        parts.append(gen.unit_loop_variant(LOOP, n))
        if dead and n < 2 * gen.ACC:
            parts.append("    wgmma.wait_group.sync.aligned 0;\n")
            parts.append("".join(f"    mov.f32 %acc{i}, 0f00000000;\n" for i in range(n // 2, gen.ACC)))
        parts.append("    bra.uni SEG_DONE;\n")
    return "".join(parts) + "SEG_DONE:\n"


def grouped_text(variants, dead=False) -> str:
    return (gen.HEADER + gen.SIGNATURE + gen.PARAMETERS + gen.dual.CARVE_UP + gen.CONSUMER_INTRO + SETUP
            + gen.seg_loop(variants) + (loops(variants, True) if dead else gen.unit_loops(LOOP, variants)) + POST + gen.segment_epilogue() + "\n"
            + gen.store_tile() + "\n" + gen.PRODUCERS)


TEXTS = {
    "G8": grouped_text(gen.TOKEN_VARIANTS),
    "G2": grouped_text((128, 256)),
    "G2d": grouped_text((128, 256), True),
    "G3d": grouped_text((64, 128, 256), True),
    "Q4d": grouped_text((64, 128, 192, 256), True),
    "G256": grouped_text((256,)),
    "T": (ptx_dir() / "gemm_nvfp4_wgmma_cluster.ptx").read_text(),
}
assert TEXTS["G8"] == (ptx_dir() / "grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text()
wd = Watchdog(200)
keep = []
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def swap(p, name, instrumented=False):
    text = render(TEXTS[name], "sm_90a", p.constants)
    mod = load(prof.instrument(text) if instrumented else text, target="sm_90a")
    kern = mod.kernel(GCL._ENTRY if name == "T" else GC._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}
    keep.append(mod)
    return mod


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


FAILS = []
for m, names in [(128, ("G8", "G2", "G2d", "G3d", "Q4d", "T")), (256, ("G8", "G2", "G2d", "G3d", "Q4d", "G256")),
                 (192, ("G8", "Q4d"))]:
    plans = {}
    for k in KS:
        d, args, c = H.gemm_args(m, N, k, 1, "competition")
        ref = None
        for name in names:
            if name == "T":
                p = GCL.GemmClusterPlan(m, N, k, 1, cluster=2, units_per_cluster=k // 256)
                call = (lambda p=p, a=args: p(*a))
            else:
                p = GC.GroupedGemmClusterPlan([(m, N, k)], [GG._raw_groups([args])[0][3]], clusters=28)
                call = (lambda p=p, a=args: p([a]))
                if name != "G8":
                    swap(p, name)
            c.fill(np.nan)
            wd.arm(f"{name} m={m} k={k}"); call(); driver.call("cuCtxSynchronize"); wd.disarm()
            out = c.numpy().copy()
            ref = out if ref is None else ref
            same = np.array_equal(out.view(np.uint16), ref.view(np.uint16))
            if name != "T" and not same:
                FAILS.append(f"{name} m={m} k={k}")
            print(f"  m={m} k={k} {name}: bits {'equal to G8' if same else 'DIFFER from G8'}   {p!r}", flush=True)
            plans[(name, k)] = (p, call)
    times = {key: [] for key in plans}
    for _ in range(3):
        for key, (p, call) in plans.items():
            times[key].append(best(lambda p=p: p._launch.launch()))
    for name in names:
        t1, t2 = min(times[(name, KS[0])]), min(times[(name, KS[1])])
        units = (KS[0] - KS[1]) // 256
        slope = (t1 - t2) / units
        print(f"m={m} {name:4s} kernel alone k={KS[0]}: {t1:7.2f} (rounds " + " ".join(f"{t:.2f}" for t in times[(name, KS[0])])
              + f")  k={KS[1]}: {t2:7.2f}  per unit {slope * 1000:7.1f} ns  fixed {t1 - slope * KS[0] // 256:6.2f} us",
              flush=True)
    if m != 128:
        continue
    timer = DriverTimer()
    for name in ("G2", "G2d", "G3d"):
        per, runs = {}, 10
        for k in KS:
            p, call = plans[(name, k)]
            mod = swap(p, name, instrumented=True)
            wd.arm(f"prof {name}"); call(); driver.call("cuCtxSynchronize"); wd.disarm()
            ptr, size = driver.call("cuModuleGetGlobal", mod.handle, prof.GLOBAL.encode())
            total = np.zeros(prof.NSLOTS, np.uint64)
            for _ in range(runs):
                timer.clear_l2()
                driver.call("cuMemsetD8", ptr, 0, size)
                wd.arm(f"prof {name}"); p._launch.launch(); driver.call("cuCtxSynchronize"); wd.disarm()
                buf = np.zeros(prof.NSLOTS, np.uint64)
                driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
                total += buf
            per[k] = total
        thr = float(per[KS[0]][prof.SLOTS["c_threads"]]) / runs
        units = (KS[0] - KS[1]) // 256
        dd = {s: (float(per[KS[0]][i]) - float(per[KS[1]][i])) / runs / thr / units for s, i in prof.SLOTS.items()
              if s.startswith("c_") and s != "c_threads"}
        other = dd["c_total"] - dd["c_bfull"] - dd["c_afull"] - dd["c_gwait"] - dd["c_issue"] - dd["c_epilogue"]
        print(f"{name:4s} per unit and consumer thread (clk): total {dd['c_total']:.0f} | B full wait {dd['c_bfull']:.0f} | "
              f"A16 full wait {dd['c_afull']:.0f} | wait_group {dd['c_gwait']:.0f} | fence..commit {dd['c_issue']:.0f} | "
              f"other (decode, releases) {other:.0f}", flush=True)
print("FAILS:", FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
