"""Run every kernel on small shapes, for compute-sanitizer (memcheck / racecheck / synccheck).

    compute-sanitizer --tool memcheck --error-exitcode 9 python3 tools/sanitize_kernels.py [gemv gemm dual grouped]

Every plan class of every op runs (GEMV: the default, sm80 and TMA kernels; GEMM: the mma, wgmma and cluster
kernels; dual: the first kernel, the 256-row cluster kernel, its K split, the 128-row tiles; grouped: the first
kernel, the cluster kernel and the m-tile plan), on ragged shapes as well as whole tiles, each on fresh data
("wide": the full fp4 range, scales down to e4m3 subnormals) with NaN-poisoned outputs and checked against the
float64 reference, so a run that the sanitizer passes is also a correct one.  Exit code 1 on a wrong result.
The arguments pick ops (default: all).
"""
import sys

import numpy as np

import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.ops import gemv as gemv_mod


def gemv_case(m, k, l, variant):
    import dataclasses

    d = data.gemv_data(m, k, l, seed=None, distribution="wide")
    ref = reference.gemv_ref(d.a, d.b, d.sfa, d.sfb)
    views = {n: nvfp4rt.asarray(d.physical(n).view(np.uint8) if n.startswith("sf") else d.physical(n)).transpose(1, 2, 0)
             for n in ("a", "b", "sfa", "sfb")}
    c_phys = nvfp4rt.asarray(np.full((l, m, 1), np.nan, np.float16))
    if variant == "default":
        nvfp4rt.gemv_raw(views["a"], views["b"], views["sfa"], views["sfb"], c_phys.transpose(1, 2, 0))
    else:
        layout = dataclasses.replace(gemv_mod.GemvLayout.contiguous(m, k, l, b_rows=128), c_row=1, c_batch=m)
        gemv_mod.GemvPlan(m, k, l, layout, variant=variant)(views["a"], views["b"], views["sfa"], views["sfb"], c_phys)
    res = reference.check(c_phys.numpy().transpose(1, 2, 0), ref)
    print(f"gemv {variant:7s} m={m:5d} k={k:6d} l={l:2d}: {'ok' if res.ok else res}")
    return res.ok


def gemm_case(plan_class, m, n, k, l, **kwargs):
    from nvfp4rt.ops.gemm import GemmLayout

    d = data.gemm_data(m, n, k, l, seed=None, distribution="wide")
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    c = nvfp4rt.from_numpy(np.full((l, m, n), np.nan, dtype=np.float16))
    plan = plan_class(m, n, k, l, GemmLayout.contiguous(m, n, k, l), **kwargs)
    plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c) if hasattr(plan, "run") else \
        plan(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
    return _report(f"gemm {plan_class.__name__} {kwargs or ''} m={m} n={n} k={k} l={l}",
                   reference.check(c.numpy().transpose(1, 2, 0), ref))


def dual_case(plan_class, m, n, k, l, **kwargs):
    d = data.dual_gemm_data(m, n, k, l, seed=None, distribution="wide")
    ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    names = ("a", "b1", "b2", "sfa", "sfb1", "sfb2")
    dev = [nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in names]
    c = nvfp4rt.from_numpy(np.full((l, m, n), np.nan, dtype=np.float16))
    plan_class(m, n, k, l, **kwargs).run(*dev, c)
    return _report(f"dual {plan_class.__name__} {kwargs or ''} m={m} n={n} k={k} l={l}",
                   reference.check(c.numpy().transpose(1, 2, 0), ref))


def grouped_case(plan_class, shapes, **kwargs):
    d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
    refs = reference.grouped_gemm_ref(d.groups)
    groups = []
    for g in d.groups:
        arrs = [nvfp4rt.from_numpy(np.ascontiguousarray(g.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")]
        groups.append((*arrs, nvfp4rt.from_numpy(np.full((1, g.m, g.n), np.nan, dtype=np.float16))))
    plan_class(shapes, **kwargs).run(groups)
    results = [reference.check(g[4].numpy().transpose(1, 2, 0), r) for g, r in zip(groups, refs)]
    bad = [r for r in results if not r.ok]
    return _report(f"grouped {plan_class.__name__} {kwargs or ''} {shapes}", bad[0] if bad else results[0])


def _report(what: str, res) -> bool:
    print(f"{what}: {'ok' if res.ok else res}", flush=True)
    return res.ok


#: The GEMM, dual and grouped cases: (plan class as "module.Class" under nvfp4rt.ops, the problem, plan kwargs).  A
#: problem is (m, n, k, l), or a list of (m, n, k) groups.  tests/test_sanitize_cases.py checks each against its plan's
#: pure geometry, so a case the plan would refuse fails on the CPU, not in a device run.
GEMM_CASES = (
    [("gemm.GemmMmaPlan", mnkl, {}) for mnkl in [(37, 72, 192, 2), (128, 256, 512, 1)]]
    + [(cls, mnkl, {}) for cls in ("gemm_wgmma.GemmWgmmaPlan", "gemm_wgmma_cluster.GemmClusterPlan")
       for mnkl in [(128, 256, 1024, 1), (200, 130, 1088, 2), (1, 8, 64, 1)]])
DUAL_CASES = (
    [(cls, mnkl, {}) for cls in ("dual_gemm.DualGemmPlan", "dual_gemm_cluster.DualGemmClusterPlan",
                                 "dual_gemm_tiles.DualGemmTilesPlan")
     for mnkl in [(257, 65, 1088, 2), (300, 130, 320, 1), (512, 256, 2048, 1)]]
    + [("dual_gemm_cluster.DualGemmClusterPlan", (256, 128, 4096, 1), {"ksplit": 2})])
GROUPED_CASES = (
    [(cls, shapes, {}) for cls in ("grouped_gemm.GroupedGemmPlan", "grouped_gemm_cluster.GroupedGemmClusterPlan")
     for shapes in ([(80, 520, 640), (17, 200, 1088), (257, 264, 320)], [(1, 8, 64)], [(256, 512, 2048)] * 2)]
    # the dealt schedule over three runs: table entries that start inside a group (coordinates offset into the
    # group's maps; c pointers moved), with the maps by value (the default) and in the device buffer
    + [("grouped_gemm_cluster.GroupedGemmClusterPlan", shapes, {"schedule": "dealt", "clusters": 3})
       for shapes in ([(80, 520, 640), (17, 200, 1088), (257, 264, 320)], [(256, 512, 2048)] * 2)]
    + [("grouped_gemm_cluster.GroupedGemmClusterPlan", [(80, 520, 640), (17, 200, 1088), (257, 264, 320)],
        {"schedule": "dealt", "clusters": 3, "param_maps": False})]
    + [("grouped_gemm_mtiles.GroupedGemmMTilePlan", shapes, {})  # its groups share n and k
       for shapes in ([(80, 520, 640), (17, 520, 640), (257, 520, 640)], [(1, 8, 64)], [(256, 512, 2048)] * 2)])


def plan_class(name: str):
    """``"module.Class"`` -> the class ``nvfp4rt.ops.module.Class``."""
    import importlib

    module, cls = name.rsplit(".", 1)
    return getattr(importlib.import_module(f"nvfp4rt.ops.{module}"), cls)


def gemm_cases() -> bool:
    return all([gemm_case(plan_class(c), *mnkl, **kw) for c, mnkl, kw in GEMM_CASES])


def dual_cases() -> bool:
    return all([dual_case(plan_class(c), *mnkl, **kw) for c, mnkl, kw in DUAL_CASES])


def grouped_cases() -> bool:
    return all([grouped_case(plan_class(c), shapes, **kw) for c, shapes, kw in GROUPED_CASES])


def gemv_cases() -> bool:
    ok = True
    for m, k, l in [(1, 64, 1), (129, 96, 3), (37, 2048 + 64, 2), (64, 16384, 1), (9, 48, 2)]:
        ok &= gemv_case(m, k, l, "default")
    for m, k, l in [(129, 1024, 2), (8, 64, 1)]:
        ok &= gemv_case(m, k, l, "sm80")
    try:
        from nvfp4rt.ops import gemv_tma
        for m, k, l in [(129, 2048, 2), (8, 4096, 1)]:
            ok &= gemv_case_tma(gemv_tma, m, k, l)
    except ImportError:
        pass
    return ok


OPS = {"gemv": gemv_cases, "gemm": gemm_cases, "dual": dual_cases, "grouped": grouped_cases}


def main(argv=None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or list(OPS)
    unknown = [n for n in names if n not in OPS]
    if unknown:
        print(f"unknown op(s) {unknown}: pick from {list(OPS)}", file=sys.stderr)
        return 2
    ok = True
    for name in names:
        ok &= OPS[name]()
    nvfp4rt.device().synchronize()
    return 0 if ok else 1


def gemv_case_tma(mod, m, k, l):
    import dataclasses

    d = data.gemv_data(m, k, l, seed=None, distribution="wide")
    ref = reference.gemv_ref(d.a, d.b, d.sfa, d.sfb)
    arrs = {n: nvfp4rt.asarray(d.physical(n).view(np.uint8) if n.startswith("sf") else d.physical(n))
            for n in ("a", "b", "sfa", "sfb")}
    c_phys = nvfp4rt.asarray(np.full((l, m, 1), np.nan, np.float16))
    layout = dataclasses.replace(gemv_mod.GemvLayout.contiguous(m, k, l, b_rows=128), c_row=1, c_batch=m)
    mod.GemvTmaPlan(m, k, l, layout)(arrs["a"], arrs["b"], arrs["sfa"], arrs["sfb"], c_phys)
    res = reference.check(c_phys.numpy().transpose(1, 2, 0), ref)
    print(f"gemv tma     m={m:5d} k={k:6d} l={l:2d}: {'ok' if res.ok else res}")
    return res.ok


if __name__ == "__main__":
    sys.exit(main())
