"""Session 39: the m-tile plan's epilogue under compute-sanitizer: TMA stores (aligned c, split and whole tiles, tiles
whose box is taller than their rows, a ragged n) and the copy-out (tma_store=False, and c rows not 16-byte aligned),
each checked against the float64 reference."""
import sys

sys.path.insert(0, "tests")
sys.path.insert(0, ".")
from test_grouped_gemm import _run  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

CASES = [
    ([(192, 256, 1024), (320, 256, 1024)], {}),
    ([(17, 256, 512), (33, 256, 512), (200, 256, 512)], dict(cluster=2, split_cost=0.0)),
    ([(200, 200, 512), (5, 200, 512)], dict(cluster=1, row_classes=(112, 16))),
    ([(17, 256, 512), (200, 256, 512)], dict(cluster=2, units_per_cluster=3, tma_store=False)),
    ([(255, 130, 1088), (1, 130, 1088)], {}),  # c rows of 260 bytes: the copy-out
]
bad = 0
for shapes, kw in CASES:
    results, plan, _ = _run(shapes, "wide", GM.GroupedGemmMTilePlan, **kw)
    ok = all(r.ok for r in results)
    bad += not ok
    print(plan, "c maps", sum(m is not None for m in plan._c_maps), "of", len(plan.tiles), "ok" if ok else "FAIL",
          flush=True)
print("failures", bad)
sys.exit(1 if bad else 0)
