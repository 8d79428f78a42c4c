"""A/B: the stream-K head check polling for 0 / 16384 / 32768 clocks, and off, whole calls (decode + kernel), L2 cleared, median us.
Same inputs for both plans; the outputs of the two builds are compared bit for bit on every shape."""
import sys, numpy as np
sys.path.insert(0, "tests")
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.bench import time_op
from nvfp4rt.ops import gemm_wgmma_cluster as CL, dual_gemm_cluster as DC, grouped_gemm_cluster as GC
from test_grouped_gemm import _device_groups

print(nvfp4rt.device().properties.name, flush=True)
ops = sys.argv[1].split(",") if len(sys.argv) > 1 else ["gemm", "dual", "grouped"]
ROUNDS = 3

VARIANTS = {"wait0": dict(head_wait=0), "wait16k": dict(head_wait=16384), "wait32k": dict(head_wait=32768),
            "off": dict(head_check=False)}

def ab(label, make, run, out):
    plans = {v: make(kw) for v, kw in VARIANTS.items()}
    bits = {}
    for hc, p in plans.items():
        run(p); bits[hc] = out()
    same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for v in bits for a, b in zip(bits[v], bits["off"]))
    t = {v: [] for v in plans}
    for _ in range(ROUNDS):
        for v, p in plans.items():
            t[v].append(time_op(lambda: run(p), iters=60).median_us)
    print(f"{label}: " + " | ".join(f"{v} {min(x):7.2f}" for v, x in t.items()) + f" us (best of {ROUNDS} medians) | same bits {same}", flush=True)

if "gemm" in ops:
    for m, n, k in [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]:
        d = data.gemm_data(m, n, k, 1, seed=1)
        dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
        c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
        ab(f"gemm {m}x{n}x{k}", lambda kw: CL.GemmClusterPlan(m, n, k, 1, **kw),
           lambda p: p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c), lambda: [c.numpy().copy()])
if "dual" in ops:
    for m, n, k in [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)]:
        d = data.dual_gemm_data(m, n, k, 1, seed=1)
        dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8))
               for x in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")}
        c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
        args = [dev[x] for x in ("a", "b1", "b2", "sfa", "sfb1", "sfb2")]
        ab(f"dual {m}x{n}x{k}", lambda kw: DC.DualGemmClusterPlan(m, n, k, 1, **kw),
           lambda p: p.run(*args, c), lambda: [c.numpy().copy()])
if "grouped" in ops:
    for ci, shapes in enumerate([[(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)],
                                 [(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)],
                                 [(192, 3072, 4096), (320, 3072, 4096)],
                                 [(128, 4096, 1536), (384, 4096, 1536)]], 1):
        d = data.grouped_gemm_data(shapes, seed=1)
        groups = [tuple(g) for g in _device_groups(d)]
        ab(f"grouped case {ci} (cluster kernel)", lambda kw: GC.GroupedGemmClusterPlan(shapes, **kw),
           lambda p: p(groups), lambda: [g[4].numpy().copy() for g in groups])
