"""Session 42: the cluster plan under compute-sanitizer with the unit drain (a wgmma.wait_group 0 before every unit
loop's stage release): whole and split tiles, every unit loop, c with and without TMA maps, clusters of 2 and 4; each
group checked against the float64 reference."""
import sys

sys.path.insert(0, "tests")
sys.path.insert(0, ".")
from test_grouped_gemm import _run  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402

EVERY = [(r, 200, 320) for r in (1, 17, 33, 48, 49, 65, 80, 95, 112, 127, 143, 160, 161, 176, 200, 208, 223, 240, 256,
                                  257)]
CASES = [
    (EVERY, {}),
    (EVERY[::2], dict(clusters=300)),
    ([(17, 520, 1088), (300, 7, 1088), (129, 264, 1088), (64, 129, 1088)], dict(clusters=300)),  # c rows 14, 258 B
    ([(40, 1024, 512), (196, 1024, 512), (72, 1024, 512)], dict(cluster=4)),
]
bad = 0
for shapes, kw in CASES:
    results, plan, _ = _run(shapes, "wide", GC.GroupedGemmClusterPlan, **kw)
    ok = all(r.ok for r in results)
    bad += not ok
    print(plan, "ok" if ok else "FAIL", flush=True)
print("failures", bad)
sys.exit(1 if bad else 0)
