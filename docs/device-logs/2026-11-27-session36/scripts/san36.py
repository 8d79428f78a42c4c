"""Session 36: the m-tile plan's default schedule where whole tiles fit one wave (one row class, the largest, in the
build) under compute-sanitizer, each checked against the float64 reference; the row classes beside them as before."""
import sys

sys.path.insert(0, "tests")
sys.path.insert(0, ".")
from test_grouped_gemm import _run  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

CASES = [
    ([(192, 256, 1024), (320, 256, 1024)], {}),            # tiles of 96 and 107 rows: class 112 alone
    ([(20, 256, 512), (70, 256, 512)], {}),                # tiles of 20 and 70 rows: class 80 alone
    ([(192, 3072, 4096), (320, 3072, 4096)], {}),          # competition case 3
    ([(17, 256, 512), (33, 256, 512), (200, 256, 512)], dict(cluster=2, split_cost=0.0)),  # several classes, split
]
bad = 0
for shapes, kw in CASES:
    results, plan, _ = _run(shapes, "wide", GM.GroupedGemmMTilePlan, **kw)
    ok = all(r.ok for r in results)
    bad += not ok
    print(plan, plan.row_classes, plan.tile_classes, "ok" if ok else "FAIL", flush=True)
print("failures", bad)
sys.exit(1 if bad else 0)
