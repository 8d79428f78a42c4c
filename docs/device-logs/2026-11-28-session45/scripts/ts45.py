"""Session 45: session 44's ts44.py (each cluster's finish time, %globaltimer stamps at each CTA's entry and after its
last TMA store, 20 launches, L2 cleared before each) on competition case 2 under given builds: the committed kernel or
a probe, with the cut or the dealt schedule.  Per cluster: its units, its table entries' caller groups, the schedule
model's cost and its finish time after the earliest entry.
Usage: ts45.py NAME=PATH:SCHEDULE[,...]"""
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "docs/device-logs/2026-11-28-session44/scripts")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ptxsource import render  # noqa: E402
from ts44 import stamped  # noqa: E402

mods = {}


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    timer = DriverTimer(dev, None)
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    for spec in sys.argv[1].split(","):
        name, rest = spec.split("=", 1)
        path, schedule = rest.split(":")
        text = Path(path).read_text()

        @lru_cache(maxsize=None)
        def kernel(ordinal, constants, text=text, name=name):
            mods[name] = load(stamped(render(text, "sm_90a", dict(constants))), device=driver.Device(ordinal),
                              target="sm_90a")
            return mods[name].kernel(GC._ENTRY)
        GC._kernel = kernel
        p = GC.GroupedGemmClusterPlan(st.shapes, layouts, schedule=schedule)
        p(st.views)
        driver.call("cuCtxSynchronize")
        ptr, size = driver.call("cuModuleGetGlobal", mods[name].handle, b"nvfp4_ts")
        g = p.geometry
        stamps = []
        for _ in range(20):
            timer.clear_l2()
            p(st.views)
            driver.call("cuCtxSynchronize")
            buf = np.zeros(1024, np.uint64)
            driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
            ts = buf[:2 * g.grid].reshape(g.grid, 2).astype(np.int64)
            stamps.append(ts - ts[:, 0].min())
        s = np.median(np.stack(stamps), axis=0) / 1000.0  # us
        costs, firsts = GC.schedule_costs(g.groups)
        q = g.clusters
        ends = s[:, 1].reshape(q, g.cluster).max(axis=1)
        starts = s[:, 0].reshape(q, g.cluster).max(axis=1)
        model = GC.run_costs(costs, firsts, g.starts)
        first = g.first_entries + (len(g.groups),)
        print(f"{name} ({schedule}): {p!r}; entry spread {s[:, 0].max():.2f} us; finish min / median / max "
              f"{ends.min():.2f} / {np.median(ends):.2f} / {ends.max():.2f} us", flush=True)
        for i in np.argsort(ends):
            rows = [st.shapes[g.groups[j].source][0] for j in range(first[i], max(first[i + 1], first[i] + 1))]
            print(f"   cluster {i:3d} units {g.starts[i + 1] - g.starts[i]:3d} rows {rows} model {model[i]:6.2f} "
                  f"entry {starts[i]:5.2f} finish {ends[i]:6.2f}", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
