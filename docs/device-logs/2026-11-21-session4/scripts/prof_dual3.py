import sys
sys.path.insert(0, "tools")
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import dual_gemm_cluster as DC
from dual_gemm_check import device_arrays, NAMES

V = {"old": open(".scratch/dual_old.ptx").read(), "new": open("ptx/dual_gemm_nvfp4_wgmma_cluster.ptx").read()}
dev = nvfp4rt.device()
print(dev.properties.name, flush=True)
for shape in [(256, 4096, 7168, 1), (512, 4096, 7168, 1), (256, 3072, 4096, 1), (512, 3072, 7168, 1)]:
    m, n, k, l = shape
    d = data.dual_gemm_data(m, n, k, l, seed=1)
    arr = device_arrays(d)
    args = [arr[x] for x in NAMES] + [arr["c"]]
    plan = DC.DualGemmClusterPlan(m, n, k, l)
    for rep in range(2):
        for name, text in V.items():
            plan.kernel = load(text, constants=plan.constants, device=dev, target="sm_90a").kernel(DC._ENTRY)
            plan.kernel.set_max_dynamic_shared(plan.shared_mem)
            plan._launch = None
            plan._launched_maps = {}
            plan(*args)
            ker = time_op(lambda: plan._launch.launch()).median_us
            full = time_op(lambda: plan(*args)).median_us
            print(f"{m}x{n}x{k} {name:4s} kernel {ker:6.1f} us  full {full:6.1f} us", flush=True)
