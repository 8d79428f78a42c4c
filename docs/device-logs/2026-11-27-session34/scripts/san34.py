"""Session 34 sanitizer cases: the grouped cluster kernel under the new schedule (groups launched most rows first,
runs cut by cut_runs).  Each plan's output is checked against the float64 reference.  Groups given in ascending
rows (so the launch order reverses them), TMA stores and the copy-out in one launch, the default runs (mostly whole
tiles), many runs (clusters=300: split tiles) and few (clusters=5: long runs over several tiles)."""
import sys

sys.path.insert(0, "tests")
from nvfp4rt.ops.grouped_gemm_cluster import GroupedGemmClusterPlan  # noqa: E402
from test_grouped_gemm import _run as run_grouped  # noqa: E402

FAILS = []
for shapes in ([(63, 200, 320), (129, 7, 256), (200, 130, 1088), (300, 520, 640)],
               [(17, 520, 640), (64, 129, 256), (129, 264, 512), (300, 7, 1088)]):
    for kw in ({}, dict(clusters=300), dict(clusters=5)):
        res, p, _ = run_grouped(shapes, "wide", GroupedGemmClusterPlan, alphas=[0.5, -2.0, 1.0, 0.25], **kw)
        ok = all(r.ok for r in res)
        print(f"  {shapes} {kw} order {p.geometry.order} {p!r}: {'OK' if ok else 'FAIL'}", flush=True)
        if not ok:
            FAILS.append((shapes, kw))
print("FAILS", FAILS, flush=True)
sys.exit(1 if FAILS else 0)
