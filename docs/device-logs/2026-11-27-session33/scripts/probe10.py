"""Session 33, device run 10: the cluster kernel's schedule costs after the cheaper epilogue (case 2).  The host cuts
the unit runs by a cost model (nvfp4rt.ops.grouped_gemm_cluster.schedule_costs): a unit costs DECODE_COST + N/256 and a
tile's first unit EPILOGUE_COST * N/256 more; (0.8, 6) was fitted in session 30, when a tile's epilogue cost more.
Every plan is checked against the reference; whole call, L2 cleared, best of 3 medians of 40, three interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
from hang_watchdog import Watchdog  # noqa: E402
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import get_op, time_op  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402

wd = Watchdog(200)
print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f):
    wd.arm("timing")
    r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
    wd.disarm()
    return r


bench = get_op("grouped_gemm")()
st = bench.make_inputs({"case": 2}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in st.views]
plans = {}
for dc in (0.6, 0.8, 1.0):
    for ec in (2.0, 4.0, 6.0, 8.0):
        p = GC.GroupedGemmClusterPlan(st.shapes, layouts, decode_cost=dc, epilogue_cost=ec)
        for arrs in st.dev:
            arrs["c"].fill(np.nan)
        wd.arm(f"{dc} {ec}"); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
        bad = [i for i, (arrs, g) in enumerate(zip(st.dev, st.host.groups))
               if not reference.check(arrs["c"].numpy().transpose(1, 2, 0),
                                      reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok]
        print(f"  ({dc}, {ec}): reference {'OK' if not bad else 'FAIL ' + str(bad)}  split_tiles={p.geometry.split_tiles}",
              flush=True)
        plans[(dc, ec)] = p
res = {k: [] for k in plans}
for rnd in range(3):
    for k, p in plans.items():
        res[k].append(best(lambda p=p: p(st.views)))
for k in plans:
    print(f"  case 2 DECODE_COST {k[0]} EPILOGUE_COST {k[1]}: whole " + " ".join(f"{w:7.2f}" for w in res[k])
          + ("   (default)" if k == (GC.DECODE_COST, GC.EPILOGUE_COST) else ""), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
