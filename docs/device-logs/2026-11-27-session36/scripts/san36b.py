"""Session 36: the m-tile plan with the A decode streamed beside the GEMM under compute-sanitizer (the streamed decode
kernel and the GEMM's A_FLAGS build), each checked against the float64 reference; repeated calls on one plan."""
import sys

sys.path.insert(0, "tests")
sys.path.insert(0, ".")
from test_grouped_gemm import _run  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

CASES = [
    ([(192, 256, 1024), (320, 256, 1024)], dict(stream_decode=True)),
    ([(255, 130, 1088), (1, 130, 1088), (300, 130, 1088)], dict(stream_decode=True)),
    ([(128, 4096, 1536), (384, 4096, 1536)], {}),                                    # competition case 4
    ([(17, 256, 512), (33, 256, 512), (200, 256, 512)], dict(stream_decode=True, cluster=2, units_per_cluster=1)),
]
bad = 0
for shapes, kw in CASES:
    results, plan, groups = _run(shapes, "wide", GM.GroupedGemmMTilePlan, **kw)
    for _ in range(2):
        plan([tuple(g) for g in groups])
    ok = all(r.ok for r in results) and plan.decode_ctas > 0
    bad += not ok
    print(plan, "ok" if ok else "FAIL", flush=True)
print("failures", bad)
sys.exit(1 if bad else 0)
