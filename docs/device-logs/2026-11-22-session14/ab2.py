"""Session 14: tail helpers against the default schedule, interleaved, two rounds (whole call / kernel alone, us)."""
import time
import numpy as np
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))
for (m, n, k), kws in [((128, 7168, 16384), [{}, {"help_tail": 6}, {"help_tail": 8}]),
                       ((128, 4096, 7168), [{}, {"help_tail": 10}, {"help_tail": 12}]),
                       ((256, 7168, 16384), [{}, {"help_tail": 4}])]:
    d = data.gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    plans = [GemmClusterPlan(m, n, k, **kw) for kw in kws]
    for p in plans:
        p.run(*args)
    for rnd in range(2):
        for kw, p in zip(kws, plans):
            print(f"round {rnd} {m}x{n}x{k} {kw}: {p!r} whole {best(lambda: p.run(*args)):7.2f} "
                  f"kernel {best(p._launch.launch):7.2f}", flush=True)
