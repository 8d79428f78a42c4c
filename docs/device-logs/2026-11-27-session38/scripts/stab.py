"""Session 38: the launch phase, per stream or not, and what spreading the phases does to the bench's medians.

A. Two no-op launches timed as a call (phase steady within a measurement): between measurements one no-op on the
   timed stream (moves the phase, run 2), or one on another stream, or one on the legacy default stream.
B. Grouped case CASE, ours (decode + GEMM) and the per-group peer (nvfp4rt.gemm per group, four launches), each
   measured 8 times alternately with one no-op launch before each measurement, with the harness's phase spreading
   off (as the bench was) and on (measure(..., spread_phases=True), the new default).  Medians of 100.
Usage: stab.py CASE"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, measure  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ptxsource import ptx_dir  # noqa: E402


def main():
    case = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), "case", case, flush=True)
    timer = DriverTimer(dev, None)
    h = timer._h
    spin_k = load(ptx_dir() / "bench_spin.ptx", device=dev).kernel("bench_spin")
    other = driver.call("cuStreamCreate", 0)

    def noop_on(stream):
        spin_k(0, grid=(1, 1, 1), block=(32, 1, 1), shared_mem=0, stream=stream)

    # ---- A
    two = lambda: (noop_on(h), noop_on(h))  # noqa: E731
    line = []
    for where in ["same"] * 4 + ["other"] * 4 + ["legacy"] * 4:
        t = measure(two, timer, spread_phases=False)
        line.append(f"{t.median_us:.2f}")
        if where == "same":
            noop_on(h)
        elif where == "other":
            noop_on(other)
        else:
            noop_on(None)
        driver.call("cuCtxSynchronize")
    print("A two no-ops, medians; after each, one no-op on: same x4, other stream x4, legacy default x4")
    print("A " + " ".join(line), flush=True)
    t = measure(two, timer)
    print(f"A two no-ops with the phases spread: median {t.median_us:.2f} p10 {t.p10_us:.2f} p90 {t.p90_us:.2f}")

    # ---- B
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    state = adapter.make_inputs({"case": case}, np.random.default_rng())
    adapter.check(state)
    ours = lambda: adapter.run(state)  # noqa: E731
    peer = adapter.peers(state)["nvfp4rt_gemm_per_group"].fn
    for spread in (False, True):
        o, p = [], []
        for _ in range(8):
            o.append(measure(ours, timer, spread_phases=spread).median_us)
            noop_on(h)
            p.append(measure(peer, timer, spread_phases=spread).median_us)
            noop_on(h)
        r = [b / a for a, b in zip(o, p)]
        print(f"B spread_phases={spread}: ours {' '.join(f'{v:.2f}' for v in o)}  (range {max(o) - min(o):.2f})")
        print(f"B   peer {' '.join(f'{v:.2f}' for v in p)}  (range {max(p) - min(p):.2f})")
        print(f"B   ratio {' '.join(f'{v:.3f}' for v in r)}  ({min(r):.3f}-{max(r):.3f})", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
