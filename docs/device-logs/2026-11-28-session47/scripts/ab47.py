"""Session 47 (session 46's ab46.py with "+sS": the plan's B ring stages = S): whole calls of the grouped cluster plan, one tree per process (the repository root, or an older
revision's nvfp4rt/, ptx/ and tests/ extracted under .probe/, whose host and kernel go together), on case 2, the
mixed-n problem, ragged rows and case 1's shapes (env AB_ONLY: a comma list of those names); each VARIANT is
SCHEDULE[+buffer][+swS][+dcD][+fit][+sS] ("buffer": param_maps=False, in trees that have it; "swS": the deal's
SWITCH_COST = S; "dcD": the plan's decode_cost = D; "fit": the schedule's unit costs interpolated from measured k256
unit times by N, FIT_NS, scaled so that N = 256 costs what the model gives it; "kPATH": the kernel built from the PTX
file PATH instead of the tree's).  L2 cleared, launch phases spread, medians of 100; every group checked against the float64
reference; each call's output bits hashed so that runs of two trees can be compared.
Usage (from the repository root): ab47.py TREE ROUNDS VARIANT[,VARIANT...]"""
import hashlib
import os
import sys
import time

tree = sys.argv[1]
sys.path.insert(0, os.path.join(tree, "tests"))
sys.path.insert(0, tree)
import numpy as np  # noqa: E402

from nvfp4rt import data, driver, reference  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402


#: k256 unit times by N (ns, H100): sessions 43 (N <= 128, whole-program build) and 42 (N >= 208), 176 between
FIT_NS = {32: 1300, 48: 1323, 80: 1340, 128: 1430, 176: 2150, 208: 2544, 256: 2966}
_MODEL_UNIT_COST = GC.unit_cost
_TREE_KERNEL = GC._kernel


def kernel_from(path: str):
    """GC._kernel for the PTX file ``path`` (the plan's constants)."""
    from functools import lru_cache
    from pathlib import Path

    from nvfp4rt.module import load
    text = Path(path).read_text()

    @lru_cache(maxsize=None)
    def kernel(ordinal, constants):
        return load(text, device=driver.Device(ordinal), target="sm_90a", constants=dict(constants)).kernel(GC._ENTRY)
    return kernel


def fitted_unit_cost(rows, decode_cost=GC.DECODE_COST):
    n = GC.tokens(rows)
    ns = float(np.interp(n, list(FIT_NS), list(FIT_NS.values())))
    return ns / FIT_NS[256] * _MODEL_UNIT_COST(256, decode_cost)


def main():
    rounds, variants = int(sys.argv[2]), sys.argv[3].split(",")
    dev = driver.device()
    print(tree, dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng(46))
    problems = [("case 2", st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views, st.host.groups)]
    for name, shapes in (
            ("mixed n", [(m, 4096 + 128 * i, 2048) for i, m in enumerate((80, 176, 128, 72, 64, 248, 96, 160))]),
            ("ragged rows", [(m, 7168, 2048) for m in (17, 45, 100, 130, 200, 250, 33, 77)]),
            ("case 1 shapes", [(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)])):
        d = data.grouped_gemm_data(shapes, seed=46, distribution="wide")
        problems.append((name, shapes, None, [tuple(g) for g in _device_groups(d)], d.groups))
    only = [x for x in os.environ.get("AB_ONLY", "").split(",") if x]
    problems = [p for p in problems if not only or p[0] in only]
    runs, switch_cost = [], GC.SWITCH_COST
    for v in variants:
        sched, *opt = v.split("+")
        kw = {"schedule": sched}
        if "buffer" in opt:
            kw["param_maps"] = False
        GC.SWITCH_COST = next((float(o[2:]) for o in opt if o.startswith("sw")), switch_cost)
        kw.update({"decode_cost": float(o[2:]) for o in opt if o.startswith("dc")})
        kw.update({"stages": int(o[1:]) for o in opt if o.startswith("s") and o[1:].isdigit()})
        GC.unit_cost = fitted_unit_cost if "fit" in opt else _MODEL_UNIT_COST
        GC._kernel = next((kernel_from(o[1:]) for o in opt if o.startswith("k")), _TREE_KERNEL)
        for name, shp, layouts, views, host in problems:
            p = GC.GroupedGemmClusterPlan(shp, layouts, **kw)
            outs = p(views)
            driver.call("cuCtxSynchronize")
            refs = reference.grouped_gemm_ref(host)
            ok = all(reference.check(o.numpy() if layouts else o.numpy().transpose(1, 2, 0), r).ok
                     for o, r in zip(outs, refs))
            h = hashlib.sha1(b"".join(np.asarray(o.numpy()).view(np.uint16).tobytes() for o in outs)).hexdigest()[:12]
            print(f"{v:13s} {name}: {p!r} {p.geometry.schedule} entries {len(p.geometry.groups)} "
                  f"reference ok {ok}, bits {h}", flush=True)
            runs.append((v, name, lambda p=p, v=views: p(v)))
    for rnd in range(rounds):
        for v, name, fn in runs:
            t = time_op(fn)
            print(f"round {rnd}: {name:13s} {v:13s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f})", flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    main()
