"""Per-unit cost per N for experimental builds of the grouped cluster kernel (.scratch/gx_*.ptx)."""
import sys, pathlib, numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data, driver, reference
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import grouped_gemm_cluster as GC
from test_grouped_gemm import _device_groups

print(nvfp4rt.device().properties.name, flush=True)
BUILDS = {"A": (32, 64, 96, 128, 160, 192, 224, 256), "B": (32, 64, 96, 128), "C": (32, 64, 96, 128),
          "D": (256,), "F": (32, 64, 96, 128, 160, 192, 224), "P": (32, 64, 96, 128, 160, 192, 224, 256)}
if len(sys.argv) > 1:
    BUILDS = {b: BUILDS[b] for b in sys.argv[1].split(",")}
orig = GC._kernel
cache = {}
for name, ns in BUILDS.items():
    def k(ordinal, constants, _name=name):
        key = (_name, constants)
        if key not in cache:
            cache[key] = load(pathlib.Path(f".scratch/gx_{_name}.ptx"), device=driver.Device(ordinal), target="sm_90a",
                              constants=dict(constants)).kernel("nvfp4_grouped_gemm_wgmma_cluster")
        return cache[key]
    GC._kernel = k
    for N in (32, 64, 128, 192, 256):
        if N not in ns:
            continue
        res = []
        for kk in (1024, 4096):
            shapes = [(N, 256 * 66, kk)]
            d = data.grouped_gemm_data(shapes, seed=1)
            groups = [tuple(g) for g in _device_groups(d)]
            plan = GC.GroupedGemmClusterPlan(shapes, clusters=66)
            plan(groups)
            if kk == 1024:
                refs = reference.grouped_gemm_ref(d.groups)
                ok = all(reference.check(g[4].numpy().transpose(1, 2, 0), r).ok for g, r in zip(groups, refs))
            res.append(time_op(lambda: plan._launch.launch()).median_us)
        per_unit = (res[1] - res[0]) / 12
        print(f"build {name} N={N:3d}: ok={ok} k1024 {res[0]:6.1f} us  k4096 {res[1]:6.1f} us -> per unit {per_unit:5.2f} us", flush=True)
    for ci, shapes in enumerate([[(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)],
                                 [(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)],
                                 [(192, 3072, 4096), (320, 3072, 4096)]], 1):
        d = data.grouped_gemm_data(shapes, seed=1)
        groups = [tuple(g) for g in _device_groups(d)]
        plan = GC.GroupedGemmClusterPlan(shapes)
        plan(groups)
        print(f"build {name} case {ci}: full {time_op(lambda: plan(groups)).median_us:6.1f} us", flush=True)
GC._kernel = orig
