"""Session 30: one call of each plan for ncu (grouped case 1 default and c1 upc84; the K-split GEMM 128x7168x16384)."""
import sys
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s30")
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import get_op
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H
dev = nvfp4rt.device()
which = sys.argv[1]
if which.startswith("case"):
    bench = get_op("grouped_gemm")(device=dev)
    state = bench.make_inputs({"case": int(which[4])}, np.random.default_rng())
    layouts = [GG._raw_groups([vw])[0][3] for vw in state.views]
    kw = {"c1": dict(cluster=1, units_per_cluster=84)}.get(sys.argv[2] if len(sys.argv) > 2 else "", None)
    p = GroupedGemmMTilePlan(state.shapes, layouts, **kw) if kw else GG.plan_grouped_gemm(state.shapes, layouts=layouts)
    p(state.views)
else:
    m, n, k = map(int, which.split("x"))
    p = GemmClusterPlan(m, n, k, 1)
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    p(*args)
driver.call("cuCtxSynchronize")
print(repr(p))
