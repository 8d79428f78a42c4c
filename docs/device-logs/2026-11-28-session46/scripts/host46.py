"""Session 46: the host time of one grouped cluster plan call on competition case 2 (perf_counter around the call,
the device synchronized before each, so only host work is timed), for the cut and the dealt schedule, when the
call's buffers are the last call's (the repeat path), when only c moved, and when b, sfb and c moved (two buffer
sets used in turn); medians of 40 calls.
Usage: host46.py"""
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
from nvfp4rt import data, driver  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    shapes = [(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)]
    sets = [[tuple(g) for g in _device_groups(data.grouped_gemm_data(shapes, seed=s, distribution="wide"))]
            for s in (1, 2)]
    for schedule in ("cut", "dealt"):
        plan = GC.GroupedGemmClusterPlan(shapes, schedule=schedule)
        print(plan, flush=True)
        for what in ("same buffers", "new c", "new b, sfb, c"):
            times = []
            for i in range(41):
                if what == "same buffers":
                    groups = sets[0]
                elif what == "new c":
                    groups = [g[:4] + (sets[i % 2][j][4],) for j, g in enumerate(sets[0])]
                else:
                    groups = [(g[0], sets[i % 2][j][1], g[2], sets[i % 2][j][3], sets[i % 2][j][4])
                              for j, g in enumerate(sets[0])]
                driver.call("cuCtxSynchronize")
                t0 = time.perf_counter()
                plan(groups)
                times.append(time.perf_counter() - t0)
            print(f"{schedule:5s} {what:14s} host us per call: median {1e6 * statistics.median(times[1:]):7.1f} "
                  f"min {1e6 * min(times[1:]):7.1f}", flush=True)
    driver.call("cuCtxSynchronize")


if __name__ == "__main__":
    main()
