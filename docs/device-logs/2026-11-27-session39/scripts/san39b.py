"""Session 39 run 15: the m-tile plan with its maps as a kernel parameter (param_maps=True) under compute-sanitizer:
whole and split tiles, row classes, a ragged n, c without maps; each checked against the float64 reference."""
import sys

sys.path.insert(0, "tests")
sys.path.insert(0, ".")
from test_grouped_gemm import _run  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

CASES = [
    ([(192, 256, 1024), (320, 256, 1024)], {}),
    ([(17, 256, 512), (33, 256, 512), (200, 256, 512)], dict(cluster=2, split_cost=0.0)),
    ([(200, 200, 512), (5, 200, 512)], dict(cluster=1, row_classes=(112, 16))),
    ([(255, 130, 1088), (1, 130, 1088)], {}),  # c rows of 260 bytes: no c maps
]
bad = 0
for shapes, kw in CASES:
    results, plan, _ = _run(shapes, "wide", GM.GroupedGemmMTilePlan, param_maps=True, **kw)
    ok = all(r.ok for r in results) and plan.param_slots > 0
    bad += not ok
    print(plan, "param slots", plan.param_slots, "ok" if ok else "FAIL", flush=True)
print("failures", bad)
sys.exit(1 if bad else 0)
