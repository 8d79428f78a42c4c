"""Y1 = X2 without the div.u64; Y2 = X2 without the strong load (timing only).  F1 = the full FUSED_A kernel with the
launch index by 16-bit long division (real: correctness checked, then timed as a whole call)."""
import sys
from pathlib import Path
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s22")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H
wd = Watchdog(90); H.wd = wd
dev = nvfp4rt.device()
VARS = {n: Path(f".scratch/s22/{n}.src.ptx").read_text() for n in ("Y1", "Y2", "F1")}
def best(f, n=3, iters=40):
    wd.arm("t"); r = min(time_op(f, iters=iters).median_us for _ in range(n)); wd.disarm(); return r
def swap(p, text):
    kk = load(text, constants=p.constants, device=dev, target="sm_90a").kernel("nvfp4_gemm_wgmma_cluster")
    kk.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat, p._launched_maps = kk, None, None, {}
for (m, n, k), kw in [((128, 7168, 16384), {}), ((200, 1000, 576), {}), ((77, 513, 320), dict(ksplit=2)), ((640, 3072, 4096), {})]:
    p = GemmClusterPlan(m, n, k, 2 if m == 200 else 1, fused_a=True, **kw); swap(p, VARS["F1"])
    H.check_gemm(p, m, n, k, 2 if m == 200 else 1, f"F1 {m}x{n}x{k} {kw}")
    H.check_gemm(p, m, n, k, 2 if m == 200 else 1, f"F1 {m}x{n}x{k} {kw} again")
print("FAILS", H.FAILS, flush=True)
for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048), (256, 4096, 7168)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    pre = GemmClusterPlan(m, n, k, 1, fused_a=False)
    plans = {"prepass": pre}
    for name, text in VARS.items():
        if name != "F1" and m != 128:
            continue
        p = GemmClusterPlan(m, n, k, 1, fused_a=True); swap(p, text); plans[name] = p
    for name, p in plans.items():
        wd.arm(name); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    for rnd in range(2):
        row = [f"prepass whole {best(lambda: pre(*args)):.2f}", f"prepass alone {best(lambda: pre._launch.launch()):.2f}"]
        row += [f"{nm} {best(lambda: p(*args)):.2f}" for nm, p in plans.items() if nm != "prepass"]
        print(f"  {m}x{n}x{k} round {rnd}: " + ";  ".join(row), flush=True)
