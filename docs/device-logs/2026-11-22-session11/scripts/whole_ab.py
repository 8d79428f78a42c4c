"""The first grouped kernel, H100: whole tiles (one 16- or 28-unit tile per CTA, no exchange) against the even
share (every tile split) around WHOLE_TILE_SLACK.  Whole calls, best of three medians of 60, us; outputs checked."""
import sys
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import grouped_gemm as GG
from test_grouped_gemm import _device_groups
PROBLEMS = [[(192, 3072, 4096), (320, 3072, 4096)], [(128, 6400, 4096)] * 2, [(128, 5632, 4096)] * 2,
            [(128, 7680, 7168)] * 2, [(128, 4096, 4096)] * 3]
print(nvfp4rt.device().properties.name, flush=True)
for shapes in PROBLEMS:
    d = data.grouped_gemm_data(shapes, seed=None)
    groups = [tuple(g) for g in _device_groups(d)]
    refs = reference.grouped_gemm_ref(d.groups)
    sms = nvfp4rt.device().properties.multiprocessor_count if hasattr(nvfp4rt.device().properties, "multiprocessor_count") else 132
    units = GG.grouped_geometry(shapes, 132).units
    ks = shapes[0][2] // 256
    plans = {"default": GG.GroupedGemmPlan(shapes), "even share": GG.GroupedGemmPlan(shapes, units_per_cta=-(-units // 132)),
             "whole tiles": GG.GroupedGemmPlan(shapes, units_per_cta=ks)}
    ok = {}
    for nm, p in plans.items():
        for g in groups:
            g[4].fill(np.nan)
        p(groups)
        ok[nm] = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(groups, refs))
    t = {nm: min(time_op(lambda p=p: p(groups), iters=60).median_us for _ in range(3)) for nm, p in plans.items()}
    print(f"{shapes}: " + " | ".join(f"{nm} (upc {plans[nm].geometry.units_per_cta}, grid {plans[nm].geometry.grid}) "
                                     f"{t[nm]:6.2f}{'' if ok[nm] else ' FAIL'}" for nm in plans), flush=True)
