"""Session 29, device run 11: the decode kernels' carveout (now 100 by default) against the driver's default (-1) on
the dual tiles and the grouped m-tile plans; whole call, L2 cleared, best of 3 medians of 40, four interleaved rounds
(the carveout is set on the shared kernel object before each timing block)."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s29")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
import exp1h as H
import s28h

wd = Watchdog(150)
H.wd = s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def ab(name, p, call):
    kern = p._decode.kernel
    res = {cv: [] for cv in (-1, 100)}
    for rnd in range(4):
        for cv in res:
            kern.set_shared_carveout(cv)
            res[cv].append(s28h.best(call))
    kern.set_shared_carveout(100)
    for cv in res:
        print(f"  {name:22s} carveout {cv:4d} whole " + " ".join(f"{a:.2f}" for a in res[cv]), flush=True)


for (m, n, k) in [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    p = DualGemmTilesPlan(m, n, k, 1)
    wd.arm("dual"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    ab(f"dual {m}x{n}x{k}", p, lambda p=p, a=args: p(*a))
bench = get_op("grouped_gemm")(device=dev)
for case in (1, 3, 4):
    state = bench.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([vw])[0][3] for vw in state.views]
    p = GroupedGemmMTilePlan(state.shapes, layouts)
    wd.arm("grouped"); p(state.views); driver.call("cuCtxSynchronize"); wd.disarm()
    ab(f"grouped case {case}", p, lambda p=p, s=state: p(s.views))
print("done", time.strftime("%H:%M:%S"), flush=True)
