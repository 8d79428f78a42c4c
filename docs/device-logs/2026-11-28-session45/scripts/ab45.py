"""Session 45: session 44's ab44.py, whose build options also take sched=cut|dealt|auto (the plan's schedule) and
sw=S (the dealt schedule's SWITCH_COST, default the module's):
whole calls of the given builds of the grouped cluster kernel on case 2, the mixed-n problem, ragged rows, 8 x 40, 8 x 196 and case 1's shapes
on the cluster plan; L2 cleared, launch phases spread, medians of 100; bits compared with the first build's and every
group checked against the float64 reference.
Usage: ab45.py [ROUNDS] [NAME=PATH[:KEY=V...],...]"""
import os
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
from nvfp4rt import data, driver, reference  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402

SCHED = "auto"
DEFAULT_SWITCH_COST = GC.SWITCH_COST  # runs 1-7 ran with SWITCH_COST = 0 in the module: their sw default was 0
BUILDS = dict(a.split("=", 1) for a in (sys.argv[2].split(",") if len(sys.argv) > 2 else ["base=.probe/base.ptx", "ud=.probe/ud.ptx"]))


def use(build: str):
    """BUILDS[build] is PATH[:KEY=V[:KEY=V]]: step=S sets the host's token step, sched=S the plan's schedule, other
    keys override constants."""
    global SCHED
    path, *opts = BUILDS[build].split(":")
    text = Path(path).read_text()
    over = dict(o.split("=") for o in opts)
    SCHED = over.pop("sched", "auto")
    GC.SWITCH_COST = float(over.pop("sw", DEFAULT_SWITCH_COST))
    over = {k: int(v) for k, v in over.items()}
    GC.TOKEN_STEP = over.pop("step", 16)
    GC.FINE_STEP = over.pop("fine", 8)

    @lru_cache(maxsize=None)
    def kernel(ordinal, constants):
        return load(text, device=driver.Device(ordinal), target="sm_90a",
                    constants={**dict(constants), **over}).kernel(GC._ENTRY)
    GC._kernel = kernel


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
    only = [x for x in os.environ.get("AB_ONLY", "").split(",") if x]  # problem names, default all
    problems = [p for p in problems if not only or p[0] in only]
    runs, bits = [], {}
    for build in BUILDS:
        use(build)
        for name, shp, layouts, views, host in problems:
            p = GC.GroupedGemmClusterPlan(shp, layouts, schedule=SCHED)
            outs = p(views)
            driver.call("cuCtxSynchronize")
            refs = reference.grouped_gemm_ref(host)
            ok = all(reference.check(o.numpy() if layouts else o.numpy().transpose(1, 2, 0), r).ok
                     for o, r in zip(outs, refs))
            got = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
            same = name not in bits or all(np.array_equal(a, b) for a, b in zip(got, bits[name]))
            bits.setdefault(name, got)
            print(f"{build:6s} {name}: {p!r} {p.geometry.schedule} entries {len(p.geometry.groups)} reference ok {ok}, "
                  f"bits equal {same}", flush=True)
            runs.append((build, name, lambda p=p, v=views: p(v)))
    for rnd in range(rounds):
        for build, name, fn in runs:
            t = time_op(fn)
            print(f"round {rnd}: {name:13s} {build:6s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f})", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
