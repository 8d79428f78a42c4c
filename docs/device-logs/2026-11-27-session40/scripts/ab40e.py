"""Session 40: after the A16 slices (23-ab40d.log: a unit at N = 64 now 1295 ns against 1965, at N = 160 1934
against 2524, but case 2's whole call level).  (1) The schedule's unit cost model, DECODE_COST + N/256, against the
new unit costs (about 490 + 9.6 N ns above N = 96, so DECODE_COST near 0.2): case 2 and the mixed-n problem with
DECODE_COST 0.6 (committed), 0.4, 0.3, 0.2, bits compared.  (2) Eight equal groups (m, 7168, 2048) for m from 40 to
224 on the kernel before the slices and after, bits compared.  Whole calls, L2 cleared, phases spread, medians of
100.  Usage: ab40e.py BEFORE_PTX [ROUNDS]"""
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

COMMITTED = GC._kernel


def use(build: str, before: str):
    if build == "slices":
        GC._kernel = COMMITTED
        return

    @lru_cache(maxsize=None)
    def kernel(ordinal, constants):
        return load(before, device=driver.Device(ordinal), target="sm_90a", constants=dict(constants)).kernel(GC._ENTRY)
    GC._kernel = kernel


def dev_problem(shapes):
    d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
    return [tuple(g) for g in _device_groups(d)], d.groups


def checked(label, p, views, host, layouts, bits):
    outs = p(views)
    driver.call("cuCtxSynchronize")
    ok = all(reference.check(o.numpy() if layouts else o.numpy().transpose(1, 2, 0), r).ok
             for o, r in zip(outs, reference.grouped_gemm_ref(host)))
    got = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
    same = bits.get(label[0]) is None or all(np.array_equal(a, b) for a, b in zip(got, bits[label[0]]))
    bits.setdefault(label[0], got)
    print(f"{label}: {p!r} reference ok {ok}, bits equal {same}", flush=True)


def main():
    before = Path(sys.argv[1]).read_text()
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    mixed = [(m, 4096 + 128 * i, 2048) for i, m in enumerate((80, 176, 128, 72, 64, 248, 96, 160))]
    mviews, mhost = dev_problem(mixed)
    problems = [("case 2", st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views, st.host.groups),
                ("mixed n", mixed, None, mviews, mhost)]
    bits, sweep, uniform = {}, [], []
    use("slices", before)
    for name, shapes, layouts, views, host in problems:
        for dc in (0.6, 0.4, 0.3, 0.2):
            p = GC.GroupedGemmClusterPlan(shapes, layouts, decode_cost=dc)
            checked((name, f"decode_cost {dc}"), p, views, host, layouts, bits)
            sweep.append((name, dc, lambda p=p, v=views: p(v)))
    for m in (40, 64, 96, 128, 160, 196, 224):
        shapes = [(m, 7168, 2048)] * 8
        views, host = dev_problem(shapes)
        for build in ("before", "slices"):
            use(build, before)
            p = GC.GroupedGemmClusterPlan(shapes)
            checked((f"8 x {m}", build), p, views, host, None, bits)
            uniform.append((m, build, lambda p=p, v=views: p(v)))
    for rnd in range(rounds):
        for name, dc, fn in sweep:
            t = time_op(fn)
            print(f"round {rnd}: {name} decode_cost {dc}: whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f})", flush=True)
    for rnd in range(2):
        for m, build, fn in uniform:
            t = time_op(fn)
            print(f"round {rnd}: 8 x ({m}, 7168, 2048) {build:6s} whole {t.median_us:7.2f}", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
