import sys, numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.bench import time_op
from nvfp4rt.launch import _stream_handle
from nvfp4rt.ops import grouped_gemm_cluster as GC
from nvfp4rt.ops.decode_a16 import DecodeA16Plan
from test_grouped_gemm import _device_groups

print(nvfp4rt.device().properties.name, flush=True)
# unit cost per N: one whole tile per cluster (66 clusters), two k lengths
for N in (32, 64, 128, 192, 256):
    res = []
    for k in (1024, 4096):
        shapes = [(N, 256 * 66, k)]
        d = data.grouped_gemm_data(shapes, seed=1)
        groups = [tuple(g) for g in _device_groups(d)]
        plan = GC.GroupedGemmClusterPlan(shapes, clusters=66)
        plan(groups)
        assert plan.geometry.split_tiles == 0
        ker = time_op(lambda: plan._launch.launch()).median_us
        res.append(ker)
    per_unit = (res[1] - res[0]) / 12
    print(f"N={N:3d}: k1024 {res[0]:6.1f} us  k4096 {res[1]:6.1f} us  -> per unit {per_unit:5.2f} us, fixed {res[0] - 4 * per_unit:5.1f} us", flush=True)
# a tile split over 2 and 3 clusters (reduction cost): m=256, n=256*22, k=4096 (16 units), 44 / 66 clusters
for cl in (22, 44, 66):
    shapes = [(256, 256 * 22, 4096)]
    d = data.grouped_gemm_data(shapes, seed=1)
    groups = [tuple(g) for g in _device_groups(d)]
    plan = GC.GroupedGemmClusterPlan(shapes, clusters=cl)
    plan(groups)
    ker = time_op(lambda: plan._launch.launch()).median_us
    print(f"split: 22 tiles of 16 units N=256 over {cl} clusters: {ker:6.1f} us (split {plan.geometry.split_tiles})", flush=True)
# decode: plain vs grouped for 1024 x 7168
shapes = [(m, 64, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)]
d = data.grouped_gemm_data(shapes, seed=1)
groups = [tuple(g) for g in _device_groups(d)]
plan = GC.GroupedGemmClusterPlan(shapes)
plan(groups)
h = _stream_handle(None, plan.device)
print(f"grouped decode 8 groups 1024x7168: {time_op(lambda: plan._decode.launch(plan._decode_table.ptr, plan._a16.ptr, h)).median_us:5.1f} us", flush=True)
print(f"  without L2 clear: {time_op(lambda: plan._decode.launch(plan._decode_table.ptr, plan._a16.ptr, h), clear_l2=False).median_us:5.1f} us", flush=True)
one = DecodeA16Plan(1024, 7168, 1, 3584, 3584 * 1024, 448, 448 * 1024)
a = nvfp4rt.from_numpy(np.zeros(1024 * 3584, np.uint8)); sf = nvfp4rt.from_numpy(np.zeros(1024 * 448, np.uint8))
out = nvfp4rt.from_numpy(np.zeros(1024 * 7168, np.float16))
one(a, sf, out)
print(f"plain decode 1024x7168: {time_op(lambda: one(a, sf, out)).median_us:5.1f} us; no L2 clear {time_op(lambda: one(a, sf, out), clear_l2=False).median_us:5.1f}", flush=True)
