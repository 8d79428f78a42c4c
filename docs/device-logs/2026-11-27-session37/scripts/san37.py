"""Session 37: both grouped plans that run the decode prepass under compute-sanitizer, each checked against the
float64 reference: the m-tile plan, whose decode lists its table as an L2 warm-up region (run 7: the committed
code), and the cluster plan (it listed four regions in run 6; since run 7 none)."""
import sys

sys.path.insert(0, "tests")
sys.path.insert(0, ".")
from test_grouped_gemm import _run  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

CASES = [
    (GM.GroupedGemmMTilePlan, [(192, 256, 1024), (320, 256, 1024)], {}),
    (GM.GroupedGemmMTilePlan, [(17, 256, 512), (33, 256, 512), (200, 256, 512)], dict(cluster=2, split_cost=0.0)),
    (GC.GroupedGemmClusterPlan, [(40, 384, 512), (300, 256, 1024), (1, 8, 64)], {}),
]
bad = 0
for cls, shapes, kw in CASES:
    results, plan, _ = _run(shapes, "wide", cls, **kw)
    ok = all(r.ok for r in results) and (len(plan._l2_warm) > 0) == (cls is GM.GroupedGemmMTilePlan)
    bad += not ok
    print(plan, len(plan._l2_warm), "warm regions", "ok" if ok else "FAIL", flush=True)
print("failures", bad)
sys.exit(1 if bad else 0)
