"""Session 40: the grouped cluster kernel with its maps as a kernel parameter (param_maps=True) under
compute-sanitizer: whole and split tiles, c with and without TMA maps, clusters of 2 and 4; each group checked against
the float64 reference."""
import sys

sys.path.insert(0, "tests")
sys.path.insert(0, ".")
from test_grouped_gemm import _run  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402

CASES = [
    ([(200, 520, 640), (300, 264, 1088), (64, 256, 256), (129, 1032, 512)], {}),
    ([(17, 520, 640), (300, 7, 1088), (129, 264, 512), (64, 129, 256)], dict(clusters=300)),  # c rows 14, 258 B
    ([(40, 1024, 512), (196, 1024, 512), (72, 1024, 512)], dict(cluster=4)),
]
bad = 0
for shapes, kw in CASES:
    results, plan, _ = _run(shapes, "wide", GC.GroupedGemmClusterPlan, param_maps=True, **kw)
    ok = all(r.ok for r in results) and plan.param_slots > 0
    bad += not ok
    print(plan, "ok" if ok else "FAIL", flush=True)
print("failures", bad)
sys.exit(1 if bad else 0)
