"""Session 33 sanitizer cases: the grouped cluster kernel's two epilogues.  Each plan's output is checked against the
float64 reference.  TMA stores only (n a multiple of 8: c rows 16-byte aligned), copy-out only (odd n), and both in one
launch, with whole and split tiles (clusters=300), tiles past 128 rows and ragged m."""
import sys

sys.path.insert(0, "tests")
from nvfp4rt.ops.grouped_gemm_cluster import GroupedGemmClusterPlan  # noqa: E402
from test_grouped_gemm import _run as run_grouped  # noqa: E402

FAILS = []
for shapes in ([(72, 512, 1024), (300, 520, 1024)],          # every c by TMA
               [(63, 201, 320), (129, 7, 256)],              # no c map: the copy-out
               [(63, 200, 320), (129, 7, 256), (200, 130, 1088), (300, 520, 640)]):  # both in one launch
    for kw in ({}, dict(clusters=300)):
        res, p, _ = run_grouped(shapes, "wide", GroupedGemmClusterPlan, **kw)
        ok = all(r.ok for r in res)
        print(f"  {shapes} {kw} {p!r}: {'OK' if ok else 'FAIL'}", flush=True)
        if not ok:
            FAILS.append((shapes, kw))
print("FAILS", FAILS, flush=True)
sys.exit(1 if FAILS else 0)
