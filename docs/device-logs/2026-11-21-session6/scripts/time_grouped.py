import sys, numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.launch import _stream_handle
from nvfp4rt.ops import grouped_gemm as GG, grouped_gemm_cluster as GC
from test_grouped_gemm import _device_groups

CASES = [
    [(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)],
    [(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)],
    [(192, 3072, 4096), (320, 3072, 4096)],
    [(128, 4096, 1536), (384, 4096, 1536)],
]
print(nvfp4rt.device().properties.name, flush=True)
extra = [dict(), dict(cluster=4)]
for ci, shapes in enumerate(CASES, 1):
    d = data.grouped_gemm_data(shapes, seed=1)
    groups = [tuple(g) for g in _device_groups(d)]
    refs = reference.grouped_gemm_ref(d.groups)
    flops = sum(2 * m * n * k for m, n, k in shapes)
    old = GG.GroupedGemmPlan(shapes)
    old(groups)
    t_old = time_op(lambda: old(groups)).median_us
    print(f"case {ci}: first kernel {t_old:7.1f} us", flush=True)
    for kw in extra:
        plan = GC.GroupedGemmClusterPlan(shapes, **kw)
        plan(groups)
        ok = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(groups, refs))
        full = time_op(lambda: plan(groups)).median_us
        h = _stream_handle(None, plan.device)
        dec = time_op(lambda: plan._decode.launch(plan._decode_table.ptr, plan._a16.ptr, h)).median_us
        ker = time_op(lambda: plan._launch.launch()).median_us
        g = plan.geometry
        print(f"case {ci} {kw}: ok={ok} full {full:7.1f} us ({flops / full / 1e6:5.0f} TFLOP/s)  decode {dec:5.1f}  "
              f"kernel {ker:7.1f}  clusters={g.clusters} split={g.split_tiles}/{g.tiles}", flush=True)
