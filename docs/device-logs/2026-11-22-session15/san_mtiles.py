"""compute-sanitizer target: the m-tile grouped GEMM on small groups, whole tiles and split tiles."""
import sys
sys.path.insert(0, "tests")
from test_grouped_gemm_mtiles import _run

for shapes, kw in [([(1, 200, 320), (129, 200, 320), (300, 200, 320)], dict(cluster=1)),
                   ([(1, 200, 320), (129, 200, 320), (300, 200, 320)], dict(cluster=2, units_per_cluster=2)),
                   ([(70, 130, 1088), (5, 130, 1088)], dict(cluster=2, units_per_cluster=3)),
                   ([(40, 300, 512), (200, 300, 512)], dict())]:
    for _ in range(2):
        results, plan, _ = _run(shapes, "wide", **kw)
    ok = all(r.ok for r in results)
    print(shapes, kw, plan, "ok" if ok else "FAIL", flush=True)
    assert ok
