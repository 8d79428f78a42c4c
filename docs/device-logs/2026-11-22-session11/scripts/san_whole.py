"""compute-sanitizer target: the first grouped kernel in whole tiles (the WHOLE_TILE_SLACK rule) and with the
even share on the same small problem; every output checked."""
import sys
import numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.ops import grouped_gemm as GG
from test_grouped_gemm import _device_groups
shapes = [(64, 256, 512), (200, 130, 512), (1, 7, 512)]
for upc in (None, 1):
    d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
    refs = reference.grouped_gemm_ref(d.groups)
    groups = [tuple(g) for g in _device_groups(d)]
    plan = GG.GroupedGemmPlan(shapes, units_per_cta=upc)
    plan(groups)
    ok = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(groups, refs))
    print(plan.geometry.units_per_cta, plan.geometry.grid, plan.geometry.split_tiles, "ok" if ok else "MISMATCH", flush=True)
    assert ok
