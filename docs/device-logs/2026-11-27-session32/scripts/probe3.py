"""Session 32, device run 3: why the grouped cluster kernel's 128-row unit costs more than the GEMM template's
(session 30: 1691 against 1251 ns on the same problem).

One problem, one group of m = 128, n = 7168, k = 8192 and 4096, whole tiles on 28 clusters of 2 (56 CTAs):
  T   the GEMM template's plan (GemmClusterPlan, cluster 2, one tile per CTA);
  G8  the grouped cluster kernel as committed (eight unit loops, N = 32..256; ptxas serialises its wgmmas, C7511);
  G1  the same generator's text with the N = 128 loop only (no C7511);
  G2  the N = 128 and N = 256 loops (no C7511);
  G4  the four loops N = 32..128 (no C7511).
For each: the kernel alone at both k (best of 3 medians of 40, L2 cleared), so the time per k256 unit and the fixed
part; outputs bit for bit the committed kernel's.  Then T, G8 and G1 run instrumented (tools/profile_cluster_kernel.py's
counters, summed over 10 launches per k), and the per-unit difference of each consumer counter between the two k gives
where a unit's cycles go.  Timing probe only: nothing here is in a kernel."""
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

M, N, KS = 128, 7168, (8192, 4096)
SETUP, LOOP, POST = gen.split_main_loop()


def grouped_text(variants) -> str:
    return (gen.HEADER + gen.SIGNATURE + gen.PARAMETERS + gen.dual.CARVE_UP + gen.CONSUMER_INTRO + SETUP
            + gen.seg_loop(variants) + gen.unit_loops(LOOP, variants) + POST + gen.segment_epilogue() + "\n"
            + gen.store_tile() + "\n" + gen.PRODUCERS)


TEXTS = {
    "T": (ptx_dir() / "gemm_nvfp4_wgmma_cluster.ptx").read_text(),
    "G8": grouped_text(gen.TOKEN_VARIANTS),
    "G1": grouped_text((128,)),
    "G2": grouped_text((128, 256)),
    "G4": grouped_text((32, 64, 96, 128)),
}
assert TEXTS["G8"] == (ptx_dir() / "grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text()
ENTRY = {"T": GCL._ENTRY}
ENTRY.update({k: GC._ENTRY for k in ("G8", "G1", "G2", "G4")})
INSTRUMENT_OP = {"T": "gemm", "G8": "grouped_gemm", "G1": "grouped_gemm"}


def source(name, constants, instrumented=False):
    text = render(TEXTS[name], "sm_90a", constants)
    return prof.instrument(text) if instrumented else text


if __name__ == "__main__" and "--offline" in sys.argv:
    # the texts render, instrument and assemble (no GPU): tools/ptxas_report.py on /tmp/s32/*.ptx
    consts = {"T": GCL.kernel_constants(2, 8), "G": GC.kernel_constants()}
    for name in TEXTS:
        c = consts["T" if name == "T" else "G"]
        for inst in (False, True) if name in INSTRUMENT_OP else (False,):
            path = f"/tmp/s32/{name}{'-prof' if inst else ''}.ptx"
            open(path, "w").write(source(name, c, inst))
            print(path)
    sys.exit(0)

wd = Watchdog(200)
keep = []
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def swap(p, name, instrumented=False):
    mod = load(source(name, p.constants, instrumented), target="sm_90a")
    kern = mod.kernel(ENTRY[name])
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}
    keep.append(mod)
    return mod


def make(name, k):
    """(plan, call, outputs) for kernel ``name`` at this k, on fresh competition-distribution inputs."""
    d, args, c = H.gemm_args(M, N, k, 1, "competition")
    if name == "T":
        p = GCL.GemmClusterPlan(M, N, k, 1, cluster=2, units_per_cluster=k // 256)
        call = (lambda p=p, a=args: p(*a))
    else:
        p = GC.GroupedGemmClusterPlan([(M, N, k)], [GG._raw_groups([args])[0][3]], clusters=28)
        call = (lambda p=p, a=args: p([a]))
    return p, call, c, args


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


FAILS = []
plans = {}
for k in KS:
    ref = None
    for name in TEXTS:
        p, call, c, args = make(name, k)
        if name not in ("T", "G8"):
            swap(p, name)
        c.fill(np.nan)
        wd.arm(f"{name} k={k}"); call(); driver.call("cuCtxSynchronize"); wd.disarm()
        out = c.numpy().copy()
        ref = out if ref is None else ref
        same = np.array_equal(out.view(np.uint16), ref.view(np.uint16))
        print(f"  k={k} {name}: bits {'equal to T' if same else 'DIFFER from T'}   {p!r}", flush=True)
        if not same:
            FAILS.append(f"{name} k={k}")
        plans[(name, k)] = (p, call)
times = {key: [] for key in plans}
for _ in range(3):
    for key, (p, call) in plans.items():
        times[key].append(best(lambda p=p: p._launch.launch()))
for name in TEXTS:
    (t1, t2) = (min(times[(name, KS[0])]), min(times[(name, KS[1])]))
    units = (KS[0] - KS[1]) // 256
    slope = (t1 - t2) / units
    print(f"{name:3s} kernel alone k={KS[0]}: {t1:7.2f} (rounds " + " ".join(f"{t:.2f}" for t in times[(name, KS[0])])
          + f")  k={KS[1]}: {t2:7.2f}  per unit {slope * 1000:7.1f} ns  fixed {t1 - slope * KS[0] // 256:6.2f} us",
          flush=True)

# ---- instrumented: where a unit's cycles go
timer = DriverTimer()
for name in INSTRUMENT_OP:
    per = {}
    for k in KS:
        p, call = plans[(name, k)]
        mod = swap(p, name, instrumented=True)
        wd.arm(f"prof {name}"); call(); driver.call("cuCtxSynchronize"); wd.disarm()
        ptr, size = driver.call("cuModuleGetGlobal", mod.handle, prof.GLOBAL.encode())
        total = np.zeros(prof.NSLOTS, np.uint64)
        runs = 10
        for _ in range(runs):
            timer.clear_l2()
            driver.call("cuMemsetD8", ptr, 0, size)
            wd.arm(f"prof {name}"); p._launch.launch(); driver.call("cuCtxSynchronize"); wd.disarm()
            buf = np.zeros(prof.NSLOTS, np.uint64)
            driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
            total += buf
        per[k] = total
        print(prof.report(total, f"{name} k={k}"), flush=True)
    units = (KS[0] - KS[1]) // 256
    thr = float(per[KS[0]][prof.SLOTS["c_threads"]]) / runs
    d = {s: (float(per[KS[0]][i]) - float(per[KS[1]][i])) / runs / thr / units for s, i in prof.SLOTS.items()
         if s.startswith("c_") and s != "c_threads"}
    other = d["c_total"] - d["c_bfull"] - d["c_afull"] - d["c_gwait"] - d["c_issue"] - d["c_epilogue"]
    print(f"{name:3s} per unit and consumer thread (clk): total {d['c_total']:.0f} | B full wait {d['c_bfull']:.0f} | "
          f"A16 full wait {d['c_afull']:.0f} | wait_group {d['c_gwait']:.0f} | fence..commit {d['c_issue']:.0f} | "
          f"other (decode, releases) {other:.0f}", flush=True)
print("FAILS:", FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
