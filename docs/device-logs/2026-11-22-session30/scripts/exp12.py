"""Session 30, device run 14: the grouped cluster kernel's schedule costs on case 2 at 49d7343 (DECODE_COST,
EPILOGUE_COST were fitted in session 9, before sessions 26-30 sped up the loop and the hand-off).  Whole call, L2
cleared, best of 3 medians of 40, three interleaved rounds; every plan checked against the reference."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s30")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver, reference
from nvfp4rt.bench import get_op
from nvfp4rt.ops import grouped_gemm as GG, grouped_gemm_cluster as GC
import s28h

wd = Watchdog(150)
s28h.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
COSTS = [(0.8, 4.0), (0.5, 2.0), (0.65, 3.0), (0.8, 2.0), (0.8, 6.0), (1.0, 4.0), (0.6, 4.0), (1.0, 6.0)]
bench = get_op("grouped_gemm")(device=dev)
state = bench.make_inputs({"case": 2}, np.random.default_rng())
layouts = [GG._raw_groups([vw])[0][3] for vw in state.views]
refs = [reference.gemm_ref(g.a, g.b, g.sfa, g.sfb) for g in state.host.groups]
plans = {}
for dc, ec in COSTS:
    p = GC.GroupedGemmClusterPlan(state.shapes, layouts, decode_cost=dc, epilogue_cost=ec)
    for arrs in state.dev:
        arrs["c"].fill(np.nan)
    wd.arm("p"); p(state.views); driver.call("cuCtxSynchronize"); wd.disarm()
    ok = all(reference.check(arrs["c"].numpy().transpose(1, 2, 0), r).ok for arrs, r in zip(state.dev, refs))
    print(f"  ({dc}, {ec}) {'OK' if ok else 'FAIL'} {p!r}", flush=True)
    plans[(dc, ec)] = p
res = {k: [] for k in plans}
for rnd in range(3):
    for k, p in plans.items():
        res[k].append(s28h.best(lambda p=p: p(state.views)))
for k in plans:
    print(f"  case 2 costs {str(k):12s} whole " + " ".join(f"{a:.2f}" for a in res[k]), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
