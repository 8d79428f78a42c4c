"""Run the %clock-instrumented grouped cluster kernel (.scratch/gp_A.ptx) and print where consumer and
producer time goes, per workload (averages per thread over 20 launches, L2 cleared before each)."""
import sys, pathlib, numpy as np
sys.path.insert(0, "tests")
sys.path.insert(0, ".scratch")
import nvfp4rt
from nvfp4rt import data, driver
from nvfp4rt.bench import DriverTimer, time_op
from nvfp4rt.module import load
from nvfp4rt.ops import grouped_gemm_cluster as GC
from test_grouped_gemm import _device_groups
from prof_transform import SLOTS
from cuda.bindings import driver as cu

print(nvfp4rt.device().properties.name, flush=True)
name = sys.argv[1] if len(sys.argv) > 1 else "A"
mods = {}
def k(ordinal, constants):
    if constants not in mods:
        mods[constants] = load(pathlib.Path(f".scratch/gp_{name}.ptx"), device=driver.Device(ordinal), target="sm_90a",
                               constants=dict(constants))
    return mods[constants].kernel("nvfp4_grouped_gemm_wgmma_cluster")
GC._kernel = k
timer = DriverTimer()
CASES = {
    "N=32 k4096 1 tile/cluster": ([(32, 256 * 66, 4096)], dict(clusters=66)),
    "N=128 k4096 1 tile/cluster": ([(128, 256 * 66, 4096)], dict(clusters=66)),
    "N=256 k4096 1 tile/cluster": ([(256, 256 * 66, 4096)], dict(clusters=66)),
    "case 1": ([(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)], {}),
    "case 2": ([(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)], {}),
    "case 3": ([(192, 3072, 4096), (320, 3072, 4096)], {}),
}
for label, (shapes, kw) in CASES.items():
    d = data.grouped_gemm_data(shapes, seed=1)
    groups = [tuple(g) for g in _device_groups(d)]
    plan = GC.GroupedGemmClusterPlan(shapes, **kw)
    plan(groups)
    mod = next(iter(mods.values()))
    err, dptr, size = cu.cuModuleGetGlobal(mod.handle, b"nvfp4_prof")
    assert err == cu.CUresult.CUDA_SUCCESS, err
    tot = np.zeros(20, np.uint64)
    for _ in range(20):
        timer.clear_l2()
        cu.cuMemsetD8(dptr, 0, size)
        plan(groups)
        nvfp4rt.device().synchronize()
        buf = np.zeros(20, np.uint64)
        cu.cuMemcpyDtoH(buf.ctypes.data, dptr, size)
        tot += buf
    t_full = time_op(lambda: plan(groups)).median_us
    s = {kk: float(tot[v]) for kk, v in SLOTS.items()}
    cn, bn, an = max(s["c_n"], 1), max(s["b_n"], 1), max(s["a_n"], 1)
    ct = s["c_tot"] / cn
    pct = lambda x: 100 * x / s["c_tot"] if s["c_tot"] else 0
    print(f"{label}: full call {t_full:.1f} us; consumer {ct:,.0f} clk/thread: B-full wait {pct(s['c_bwait']):4.1f}%  "
          f"A16-full wait {pct(s['c_await']):4.1f}%  wgmma wait {pct(s['c_gwait']):4.1f}%  epilogue {pct(s['c_epi']):4.1f}%  "
          f"fence..commit {pct(s['c_issue']):4.1f}%  (rest {100 - pct(s['c_bwait']) - pct(s['c_await']) - pct(s['c_gwait']) - pct(s['c_epi']) - pct(s['c_issue']):4.1f}%)", flush=True)
    print(f"    epilogue: partial write+flag {pct(s['e_part']):4.1f}%  reduction {pct(s['e_red']):4.1f}%  fp16 store {pct(s['e_store']):4.1f}%", flush=True)
    print(f"    B producer {s['b_tot'] / bn:,.0f} clk, empty wait {100 * s['b_wait'] / max(s['b_tot'], 1):4.1f}%;  "
          f"A16 producer {s['a_tot'] / an:,.0f} clk after PDL wait ({s['a_pdl'] / an:,.0f} clk), empty wait "
          f"{100 * s['a_wait'] / max(s['a_tot'], 1):4.1f}%   [threads c/b/a {cn:.0f}/{bn:.0f}/{an:.0f} over 20 runs]", flush=True)
