"""Session 40 run 3: the cluster plan with the wide decode under compute-sanitizer: whole and split tiles, c with and
without TMA maps, clusters of 2 and 4, a k256 chunk of 2 pieces; each group checked against the float64 reference."""
import sys

sys.path.insert(0, "tests")
sys.path.insert(0, ".")
from test_grouped_gemm import _run  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402

CASES = [
    ([(200, 520, 640), (300, 264, 640), (64, 256, 640), (129, 1032, 640)], {}),
    ([(17, 520, 1088), (300, 7, 1088), (129, 264, 1088), (64, 129, 1088)], dict(clusters=300)),  # c rows 14, 258 B
    ([(40, 1024, 512), (196, 1024, 512), (72, 1024, 512)], dict(cluster=4)),
]
bad = 0
for shapes, kw in CASES:
    results, plan, _ = _run(shapes, "wide", GC.GroupedGemmClusterPlan, **kw)
    ok = all(r.ok for r in results) and plan._decode.wide
    bad += not ok
    print(plan, "ok" if ok else "FAIL", flush=True)
print("failures", bad)
sys.exit(1 if bad else 0)
