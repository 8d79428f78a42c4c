"""The three cluster kernels on small split schedules (head check on, polling and not), for compute-sanitizer.
Each result is checked against the float64 reference; exit 1 on a wrong result."""
import sys
sys.path.insert(0, "tests")
from nvfp4rt.ops import gemm_wgmma_cluster as CL, dual_gemm_cluster as DC, grouped_gemm_cluster as GC
from test_gemm_wgmma import _run_case as gemm_case
from test_dual_gemm import _run_case as dual_case
from test_grouped_gemm import _run as grouped_run

ok = True
for kw in (dict(), dict(head_wait=0)):
    for upc in (1, 3):
        res, plan, *_ = gemm_case(130, 384, 1024, 1, "wide", plan_class=CL.GemmClusterPlan, units_per_cluster=upc, **kw)
        print("gemm", upc, kw, res.ok, flush=True); ok &= res.ok
        res, plan, *_ = dual_case(300, 192, 1024, 1, "wide", plan_class=DC.DualGemmClusterPlan, units_per_cluster=upc, **kw)
        print("dual", upc, kw, res.ok, flush=True); ok &= res.ok
    results, plan, _ = grouped_run([(80, 256, 1024), (40, 128, 1536)], "wide", GC.GroupedGemmClusterPlan, clusters=12, **kw)
    print("grouped", kw, [r.ok for r in results], plan.geometry.split_tiles, flush=True); ok &= all(r.ok for r in results)
sys.exit(0 if ok else 1)
