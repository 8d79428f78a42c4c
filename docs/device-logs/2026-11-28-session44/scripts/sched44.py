"""Session 44: the grouped cluster kernel at 230ae6a (the half ring, steps of 8 tokens above N = 128) under other
values of the schedule's costs (DECODE_COST, EPILOGUE_COST, SPLIT_COST; 0.6, 1.0, 2.5 fitted in session 34): the
three whose case 2 cut had the lowest costliest cluster under per-tile times read off ts44.py's finish times (log 08).  Whole calls, L2 cleared,
launch phases spread, medians of 100, ROUNDS rounds; every group of every variant checked against the float64
reference."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
from nvfp4rt import data, driver, reference  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402

ADDITIVE = GC.unit_cost
VARIANTS = {f"d{d}e{e}s{sp}": (ADDITIVE, dict(decode_cost=d, epilogue_cost=e, split_cost=sp))
            for d, e, sp in ((0.6, 1.0, 2.5), (0.85, 3.0, 2.5), (0.8, 1.5, 2.0), (0.7, 0.25, 2.5))}


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    problems = [("case 2", st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views, st.host.groups)]
    for name, shapes in (
            ("mixed n", [(m, 4096 + 128 * i, 2048) for i, m in enumerate((80, 176, 128, 72, 64, 248, 96, 160))]),
            ("ragged rows", [(m, 7168, 2048) for m in (17, 45, 100, 130, 200, 250, 33, 77)]),
            ("8 x 40", [(40, 7168, 2048)] * 8),
            ("8 x 196", [(196, 7168, 2048)] * 8),
            ("case 1 shapes", [(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)])):
        d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
        problems.append((name, shapes, None, [tuple(g) for g in _device_groups(d)], d.groups))
    runs = []
    for vname, (form, kw) in VARIANTS.items():
        GC.unit_cost = form
        for name, shp, layouts, views, host in problems:
            p = GC.GroupedGemmClusterPlan(shp, layouts, **kw)
            outs = p(views)
            driver.call("cuCtxSynchronize")
            refs = reference.grouped_gemm_ref(host)
            ok = all(reference.check(o.numpy() if layouts else o.numpy().transpose(1, 2, 0), r).ok
                     for o, r in zip(outs, refs))
            print(f"{vname:14s} {name}: {p!r} reference ok {ok}", flush=True)
            runs.append((vname, name, lambda p=p, v=views: p(v)))
    GC.unit_cost = ADDITIVE
    best = {}
    for rnd in range(rounds):
        for vname, name, fn in runs:
            t = time_op(fn).median_us
            best.setdefault((name, vname), []).append(t)
    for name, *_ in problems:
        print(f"{name:13s} " + " | ".join(f"{v} {min(best[(name, v)]):6.2f}-{max(best[(name, v)]):6.2f}"
                                          for v in VARIANTS), flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
