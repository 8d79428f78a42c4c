"""Run every kernel on small shapes, for compute-sanitizer (memcheck / racecheck).

    compute-sanitizer --tool memcheck --error-exitcode 9 python3 tools/sanitize_kernels.py

Each kernel is checked against its reference too, so a run that the sanitizer
passes is also a correct one.  Exit code 1 on a wrong result.
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


def main() -> int:
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
