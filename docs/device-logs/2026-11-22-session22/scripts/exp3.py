"""Timing-only variants (same inputs every call): W1 = FUSED_A without the consumers' decode block at all (producer
waits skipped as in V2), against the prepass kernel alone."""
import sys, time
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
def nowait(t):
    old = "    @%p_faall bra FA_READY;\n    shl.b32 %fa_x, %kb, 2;"
    assert t.count(old) == 1
    return t.replace(old, "    bra.uni FA_READY;\n    shl.b32 %fa_x, %kb, 2;")
VARS = {n: nowait(Path(f".scratch/s22/{n}.src.ptx").read_text()) for n in ("W1", "W2", "W3", "W4")}
def best(f, n=3, iters=40):
    wd.arm("t"); r = min(time_op(f, iters=iters).median_us for _ in range(n)); wd.disarm(); return r
for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    plans = {"prepass": GemmClusterPlan(m, n, k, 1, fused_a=False)}
    for name, text in VARS.items():
        p = GemmClusterPlan(m, n, k, 1, fused_a=True)
        kk = load(text, constants=p.constants, device=dev, target="sm_90a").kernel("nvfp4_gemm_wgmma_cluster")
        kk.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch, p._repeat, p._launched_maps = kk, None, None, {}
        plans[name] = p
    for name, p in plans.items():
        wd.arm(name); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    for rnd in range(2):
        row = [f"prepass kernel alone {best(lambda: plans['prepass']._launch.launch()):.2f}"]
        row += [f"{name} {best(lambda: p(*args)):.2f}" for name, p in plans.items() if name != "prepass"]
        print(f"  {m}x{n}x{k} round {rnd}: " + ";  ".join(row), flush=True)
