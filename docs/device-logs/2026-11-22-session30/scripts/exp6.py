"""Session 30, device run 6: whole call against the kernel alone and the decode alone, grouped cases 1-4 (default plans)
and case 1 on cluster-1 / cluster-2 whole-tile runs (bench inputs); L2 cleared, best of 3 medians of 40, two rounds."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s30")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
import s28h

wd = Watchdog(200)
s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
bench = get_op("grouped_gemm")(device=dev)
for case in (1, 2, 3, 4):
    state = bench.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([vw])[0][3] for vw in state.views]
    plans = {"default": GG.plan_grouped_gemm(state.shapes, layouts=layouts)}
    if case == 1:
        plans["c1 upc84"] = GroupedGemmMTilePlan(state.shapes, layouts, cluster=1, units_per_cluster=84)
        plans["c2 upc84"] = GroupedGemmMTilePlan(state.shapes, layouts, cluster=2, units_per_cluster=84)
    for nm, p in plans.items():
        wd.arm(nm); p(state.views); driver.call("cuCtxSynchronize"); wd.disarm()
    for rnd in range(2):
        for nm, p in plans.items():
            p(state.views); driver.call("cuCtxSynchronize")
            w = s28h.best(lambda p=p: p(state.views))
            k = s28h.best(lambda p=p: p._launch.launch())
            dec = s28h.best(lambda p=p: p._decode._launch.launch()) if getattr(p._decode, "_launch", None) else float("nan")
            print(f"  case {case} {nm:9s} whole {w:7.2f}  kernel alone {k:7.2f}  decode alone {dec:6.2f}  {p!r}", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
