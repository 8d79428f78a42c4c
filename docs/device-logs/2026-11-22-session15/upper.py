"""Session 15: the cluster GEMM on the 'virtual' shapes of the grouped cases (groups' rows padded to 128 and
stacked) and of the dual shapes (B1 and B2 stacked): how fast would those problems run on the GEMM's loop?"""
import time
import numpy as np
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))
SHAPES = [("grouped case 1", 1408, 4096, 7168), ("grouped case 2", 1664, 7168, 2048),
          ("grouped case 3", 640, 3072, 4096), ("grouped case 4", 512, 4096, 1536),
          ("dual 1", 256, 8192, 7168), ("dual 2", 512, 8192, 7168),
          ("dual 3", 256, 6144, 4096), ("dual 4", 512, 6144, 7168),
          ("gemm 1", 128, 7168, 16384)]
for name, m, n, k in SHAPES:
    d = data.gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    p = GemmClusterPlan(m, n, k)
    p.run(*args)
    w = best(lambda: p.run(*args)); kk = best(p._launch.launch)
    print(f"{name:15s} {m}x{n}x{k}: {p!r}\n    whole {w:7.2f} kernel {kk:7.2f}  "
          f"{2*m*n*k/w/1e6:5.0f} TFLOP/s (virtual)", flush=True)
