import sys, numpy as np
sys.path.insert(0, "tools")
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.bench import time_op
from nvfp4rt.launch import _stream_handle
from nvfp4rt.ops import dual_gemm_cluster as DC
from dual_gemm_check import device_arrays, NAMES

def run(shape, upcs):
    m, n, k, l = shape
    d = data.dual_gemm_data(m, n, k, l, seed=1)
    arr = device_arrays(d)
    args = [arr[x] for x in NAMES] + [arr["c"]]
    for upc in upcs:
        plan = DC.DualGemmClusterPlan(m, n, k, l, units_per_cluster=upc)
        plan(*args)
        full = time_op(lambda: plan(*args)).median_us
        h = _stream_handle(None, plan.device)
        pa, psf = arr["a"].ptr, arr["sfa"].ptr
        dec = time_op(lambda: plan._decode.launch_pointers(pa, psf, plan._a16.ptr, h)).median_us
        ker = time_op(lambda: plan._launch.launch()).median_us
        g = plan.geometry
        print(f"{m}x{n}x{k} upc={g.units_per_cluster:3d} grid={g.grid:3d}: full {full:6.1f}  decode {dec:5.1f}  kernel {ker:6.1f} us", flush=True)

print(nvfp4rt.device().properties.name)
run((256, 3072, 4096, 1), [None, 16, 8, 4])
run((256, 4096, 7168, 1), [None, 28, 7])
run((512, 3072, 7168, 1), [None, 28, 14])
run((512, 4096, 7168, 1), [None])
