"""Stream-K over K-split pairs (ks_stream): correctness on many shapes (both distributions, NaN-poisoned c),
bit-identity across head_check / head_wait builds and repeats; then timing A/B against the default plan.
usage: kss_check.py [check|time|small]"""
import sys
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.bench import time_op
from nvfp4rt.ops import gemm_wgmma_cluster as CL

mode = sys.argv[1] if len(sys.argv) > 1 else "check"
print(nvfp4rt.device().properties.name, mode, flush=True)


def operands(m, n, k, l, dist):
    d = data.gemm_data(m, n, k, l, seed=None, distribution=dist)
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    return dev, ref


def run(p, dev, m, n, l):
    cc = nvfp4rt.from_numpy(np.full((l, m, n), np.nan, np.float16))
    p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], cc)
    return cc.numpy()


if mode in ("check", "small"):
    shapes = [(128, 7168, 16384, 1, None), (128, 4096, 7168, 1, None), (128, 7168, 2048, 1, None),
              (64, 7168, 4096, 1, None), (256, 4096, 7168, 1, None), (100, 1000, 1024, 3, None),
              (200, 333, 2048, 2, None), (128, 2048, 7168, 1, None), (300, 520, 4096, 1, 3), (17, 130, 1536, 1, 1),
              (128, 256, 2048, 1, 1), (129, 129, 768, 2, 2), (1, 64, 512, 1, None), (512, 3072, 7168, 1, None)]
    if mode == "small":
        shapes = [(100, 200, 1024, 2, None), (17, 130, 1536, 1, 1), (129, 129, 768, 1, 2)]
    bad = 0
    for m, n, k, l, upc in shapes:
        for dist in ("competition", "wide"):
            dev, ref = operands(m, n, k, l, dist)
            outs = {}
            for name, kw in (("default", {}), ("no_head_check", {"head_check": False}), ("head_wait0", {"head_wait": 0})):
                p = CL.GemmClusterPlan(m, n, k, l, ks_stream=True, units_per_cluster=upc, **kw)
                o1, o2 = run(p, dev, m, n, l), run(p, dev, m, n, l)
                ok = reference.check(o1.transpose(1, 2, 0), ref).ok
                same = np.array_equal(o1.view(np.uint16), o2.view(np.uint16))
                outs[name] = o1
                bad += (not ok) + (not same)
                if name == "default":
                    g = p.geometry
                    desc = f"upc {g.units_per_cluster} pairs {g.clusters} kb {g.k_stages}"
                print(f"{m}x{n}x{k} l{l} {dist:11s} {name:13s} {desc}: {'ok' if ok else 'FAIL'}"
                      f"{'' if same else ' REPEAT-DIFFERS'}", flush=True)
                if mode == "small":
                    break
            for name, o in outs.items():
                if not np.array_equal(o.view(np.uint16), outs["default"].view(np.uint16)):
                    print(f"   {name} bits differ from default", flush=True)
                    bad += 1
    print("FAILURES", bad, flush=True)
else:
    ROUNDS = 3
    shapes = [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048), (64, 7168, 4096), (128, 2048, 7168),
              (128, 4096, 4096), (256, 7168, 2048)]
    for m, n, k in shapes:
        dev, ref = operands(m, n, k, 1, "competition")
        plans = {"auto": CL.GemmClusterPlan(m, n, k, 1), "ksplit2": CL.GemmClusterPlan(m, n, k, 1, ksplit=2)
                 if (k // 256) % 2 == 0 else None, "ks_stream": CL.GemmClusterPlan(m, n, k, 1, ks_stream=True)}
        kb = k // 256
        for upc in sorted({kb // 2 + 1, (3 * kb) // 4, kb - 1}):
            if 0 < upc <= kb and upc != plans["ks_stream"].geometry.units_per_cluster:
                try:
                    plans[f"kss_upc{upc}"] = CL.GemmClusterPlan(m, n, k, 1, ks_stream=True, units_per_cluster=upc)
                except ValueError as e:
                    print("skip", upc, e)
        plans = {v: p for v, p in plans.items() if p is not None}
        ok = {v: reference.check(run(p, dev, m, n, 1).transpose(1, 2, 0), ref).ok for v, p in plans.items()}
        c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
        t = {v: [] for v in plans}
        for _ in range(ROUNDS):
            for v, p in plans.items():
                t[v].append(time_op(lambda: p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c), iters=60).median_us)
        print(f"gemm {m}x{n}x{k} (auto: {plans['auto']!r}): " + " | ".join(
            f"{v} {min(x):6.2f}{'' if ok[v] else ' FAIL'}" for v, x in t.items()), flush=True)
