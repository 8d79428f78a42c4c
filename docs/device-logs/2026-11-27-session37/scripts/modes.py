"""Session 37, device run 3: what flips the whole call's mode?

Run 2 (order.py) saw grouped case 3's whole call (decode + GEMM, two launches) time 30.5 or 31.8 µs, steady within a
measurement of 100 calls, and flip once the per-group peer's plans were built.  Here one process keeps one plan and
measures it again and again, with something between measurements:
  alloc X:  a new device allocation of X bytes, kept alive;
  calls N:  N more whole calls, untimed (N odd or even);
  free:     the allocations released.
Each line: whole-call p10 / median / p90 (100 calls, L2 cleared)."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, measure  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.memory import DeviceAllocation  # noqa: E402


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    timer = DriverTimer(dev, None)
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    case = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    state = adapter.make_inputs({"case": case}, np.random.default_rng())
    adapter.check(state)
    ours = lambda: adapter.run(state)  # noqa: E731
    kept = []

    def show(what):
        t = measure(ours, timer)
        print(f"{what:28s} whole p10 {t.p10_us:6.2f} median {t.median_us:6.2f} p90 {t.p90_us:6.2f}", flush=True)

    show("start")
    show("again")
    for step in ["calls 1", "calls 1", "calls 2", "alloc 2097152", "alloc 2097152", "alloc 67108864",
                 "alloc 4096", "alloc 4096", "calls 1", "alloc 1073741824", "free", "calls 3", "calls 1"]:
        kind, _, arg = step.partition(" ")
        if kind == "calls":
            for _ in range(int(arg)):
                ours()
            timer.synchronize()
        elif kind == "alloc":
            kept.append(DeviceAllocation(int(arg), dev))
        elif kind == "free":
            kept.clear()
        show(step)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
