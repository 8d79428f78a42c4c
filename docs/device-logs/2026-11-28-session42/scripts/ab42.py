"""Session 42 run 1: the grouped cluster kernel with its wgmmas drained at the end of every unit.

Offline, ptxas serialises every wgmma of the committed kernel (C7511) and its register demand grows with the number
of unit loops: five copies of one N = 32 loop already spill.  A `wgmma.wait_group 0` before each loop's stage release
(no wgmma group pending across the back edge) removes both: no C7511, no spills, all 15 loops.  Builds
(.probe/*.ptx, written from tools/gen_grouped_gemm_cluster_ptx.generate()):
  base   the committed kernel;
  ud     that, with the unit drain.
Whole calls, L2 cleared, launch phases spread, medians of 100; bits compared with base's and every group with the
float64 reference.  Then the cost of a k256 unit by N for both.
Run 2 adds (same script, builds given on the command line):
  w3     ud with WG_WAIT=3 (three wgmma groups in flight; A_UNIT=0, and the segment epilogue releases both pending
         a16 buffers), which ptxas serialised before the drain;
  ud8    ud in steps of 8 tokens (29 loops; the host's step 8).
Usage: ab42.py [ROUNDS] [NAME=PATH[:KEY=V...],...]"""
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

BUILDS = dict(a.split("=", 1) for a in (sys.argv[2].split(",") if len(sys.argv) > 2 else ["base=.probe/base.ptx", "ud=.probe/ud.ptx"]))
UNIT_N = (48, 80, 128, 176, 208, 256)


def use(build: str):
    """BUILDS[build] is PATH[:KEY=V[:KEY=V]]: step=S sets the host's token step, other keys override constants."""
    path, *opts = BUILDS[build].split(":")
    text = Path(path).read_text()
    over = {k: int(v) for k, v in (o.split("=") for o in opts)}
    GC.TOKEN_STEP = over.pop("step", 16)

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
    units = {}
    for n_tok in UNIT_N:
        for k in (4096, 8192):
            sh = [(n_tok, 65 * 256, k)]
            dd = data.grouped_gemm_data(sh, seed=None, distribution="wide")
            units[(n_tok, k)] = (sh, [tuple(g) for g in _device_groups(dd)])
    runs, uruns, bits = [], {}, {}
    for build in BUILDS:
        use(build)
        for name, shp, layouts, views, host in problems:
            p = GC.GroupedGemmClusterPlan(shp, layouts)
            outs = p(views)
            driver.call("cuCtxSynchronize")
            refs = reference.grouped_gemm_ref(host)
            ok = all(reference.check(o.numpy() if layouts else o.numpy().transpose(1, 2, 0), r).ok
                     for o, r in zip(outs, refs))
            got = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
            same = name not in bits or all(np.array_equal(a, b) for a, b in zip(got, bits[name]))
            bits.setdefault(name, got)
            print(f"{build:6s} {name}: {p!r} reference ok {ok}, bits equal {same}", flush=True)
            runs.append((build, name, lambda p=p, v=views: p(v)))
        for key, (sh, groups) in units.items():
            p = GC.GroupedGemmClusterPlan(sh)
            p(groups)
            uruns[(build,) + key] = (p, groups)
    best = {}
    for rnd in range(rounds):
        for build, name, fn in runs:
            t = time_op(fn)
            print(f"round {rnd}: {name:13s} {build:6s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f})", flush=True)
        for key, (p, groups) in uruns.items():
            t = time_op(lambda p=p, g=groups: p(g)).median_us
            best[key] = min(best.get(key, t), t)
    for build in BUILDS:
        costs = [1000 * (best[(build, n, 8192)] - best[(build, n, 4096)]) / 16 for n in UNIT_N]
        print(f"{build:6s} ns per unit at N = {UNIT_N}: " + " ".join(f"{c:5.0f}" for c in costs), flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
