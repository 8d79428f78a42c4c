"""Session 29, device run 16: where the whole call's time goes beside the GEMM kernel: whole call, the GEMM kernel alone
(its prepared launch replayed, A16 already decoded) and the decode prepass alone, L2 cleared, best of 3 medians of 40,
two rounds; grouped cases 1-4 (m-tile plans; case 2 the cluster plan), the four dual shapes and the three GEMM shapes."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s29")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
import exp1h as H
import s28h

wd = Watchdog(150)
H.wd = s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def report(name, p, whole):
    p_dec = p._decode
    res = []
    for rnd in range(2):
        res.append((s28h.best(whole), s28h.best(lambda: p._launch.launch()), s28h.best(lambda: p_dec._launch.launch())))
    print(f"  {name:22s} whole / GEMM alone / decode alone: " + "   ".join(f"{a:.2f} / {b:.2f} / {c:.2f}" for a, b, c in res),
          flush=True)


bench = get_op("grouped_gemm")(device=dev)
for case in (1, 2, 3, 4):
    state = bench.make_inputs({"case": case}, np.random.default_rng())
    p = GG.plan_grouped_gemm(state.shapes, layouts=[GG._raw_groups([vw])[0][3] for vw in state.views])
    wd.arm("g"); p(state.views); driver.call("cuCtxSynchronize"); wd.disarm()
    report(f"grouped case {case} {type(p).__name__[:18]}", p, lambda p=p, s=state: p(s.views))
for (m, n, k) in [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    p = DualGemmTilesPlan(m, n, k, 1)
    wd.arm("d"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    report(f"dual {m}x{n}x{k}", p, lambda p=p, a=args: p(*a))
for (m, n, k) in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    p = GemmClusterPlan(m, n, k, 1)
    wd.arm("m"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    report(f"gemm {m}x{n}x{k}", p, lambda p=p, a=args: p(*a))
print("done", time.strftime("%H:%M:%S"), flush=True)
