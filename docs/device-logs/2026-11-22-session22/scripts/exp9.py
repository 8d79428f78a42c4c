"""Decompose the local unit's cost (timing only where marked; same inputs every call, so A16 of the previous call is
valid).  L1 = committed fused with FA_LOCAL=1 (real); L0 = FA_LOCAL=0 with the warp-2 publisher (real);
Va = FA_LOCAL=1, producer never waits; Vc = Va and the consumers skip their chunks (only the local unit)."""
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
SRC = Path("ptx/gemm_nvfp4_wgmma_cluster.ptx").read_text()
def sub(t, a, b):
    assert t.count(a) == 1, a
    return t.replace(a, b)
Va = sub(SRC, "    @%p_faall bra FA_READY;\n    shl.b32 %fa_x, %kb, 2;", "    bra.uni FA_READY;\n    shl.b32 %fa_x, %kb, 2;")
Vc = sub(Va, "    setp.lt.u32 %p_famore, %fa_c, %fa_nc;\n", "    setp.lt.u32 %p_famore, %fa_nc, 0;\n")
def best(f, n=3, iters=40):
    wd.arm("t"); r = min(time_op(f, iters=iters).median_us for _ in range(n)); wd.disarm(); return r
def swap(p, text, **cons):
    c = {**p.constants, **cons}
    kk = load(text, constants=c, device=dev, target="sm_90a").kernel("nvfp4_gemm_wgmma_cluster")
    kk.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat, p._launched_maps = kk, None, None, {}
for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    pre = GemmClusterPlan(m, n, k, 1)
    plans = {"prepass": pre, "L1": GemmClusterPlan(m, n, k, 1, fused_a=True)}
    p = GemmClusterPlan(m, n, k, 1, fused_a=True); swap(p, SRC, FA_LOCAL=0); plans["L0"] = p
    p = GemmClusterPlan(m, n, k, 1, fused_a=True); swap(p, Va); plans["Va"] = p
    p = GemmClusterPlan(m, n, k, 1, fused_a=True); swap(p, Vc); plans["Vc"] = p
    for name, p in plans.items():
        wd.arm(name); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    H.check_gemm(plans["L0"], m, n, k, 1, f"L0 {m}x{n}x{k}")
    for rnd in range(2):
        row = [f"prepass alone {best(lambda: pre._launch.launch()):.2f}"]
        row += [f"{nm} {best(lambda: p(*args)):.2f}" for nm, p in plans.items()]
        print(f"  {m}x{n}x{k} round {rnd}: " + ";  ".join(row), flush=True)
