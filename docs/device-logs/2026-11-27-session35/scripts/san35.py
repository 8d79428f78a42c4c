"""Session 35: the m-tile plan's row classes under compute-sanitizer (small problems, so the tools finish): tiles of
several row classes in one launch, whole tiles and split runs, clusters of 1, 2 and 4; each checked against the
float64 reference."""
import sys

sys.path.insert(0, "tests")
sys.path.insert(0, ".")
from test_grouped_gemm import _run  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

CASES = [
    ([(17, 256, 512), (33, 256, 512), (200, 256, 512)], dict(cluster=2, split_cost=0.0)),
    ([(17, 256, 512), (33, 256, 512), (200, 256, 512)], dict(cluster=4, row_classes=(128, 64, 32))),
    ([(255, 130, 1088), (1, 130, 1088), (300, 130, 1088)], dict(cluster=1, row_classes=(128, 112, 16),
                                                                units_per_cluster=3)),
    ([(250, 384, 2048), (90, 384, 2048), (9, 384, 2048)], dict(cluster=2)),
    ([(192, 256, 1024), (320, 256, 1024)], dict(cluster=1)),
]
bad = 0
for shapes, kw in CASES:
    results, plan, _ = _run(shapes, "wide", GM.GroupedGemmMTilePlan, **kw)
    ok = all(r.ok for r in results)
    bad += not ok
    print(plan, plan.tile_classes, "ok" if ok else "FAIL", flush=True)
print("failures", bad)
sys.exit(1 if bad else 0)
