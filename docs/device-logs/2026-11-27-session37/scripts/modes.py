"""Session 37, device runs 3 and 4: what flips the whole call's mode?

Run 2 (order.py) saw grouped case 3's whole call (decode + GEMM, two launches) time 30.5 or 31.8 µs, steady within a
measurement of 100 calls, and flip once the per-group peer's plans were built.  Here one process keeps one plan and
measures it again and again, with something between measurements:
  alloc X:  a new device allocation of X bytes, kept alive;
  calls N:  N more whole calls, untimed (N odd or even);
  free:     the allocations released;
  spin / memset / event / gemm / decode: one more of that alone (the bench's spin kernel, a 4 KB memset, an event
            record, the plan's GEMM launch (programmatic), the plan's decode launch).
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
    steps = ["calls 1", "calls 1", "calls 2", "alloc 2097152", "alloc 2097152", "alloc 67108864",
             "alloc 4096", "alloc 4096", "calls 1", "alloc 1073741824", "free", "calls 3", "calls 1"]
    if len(sys.argv) > 2 and sys.argv[2] == "ops":
        steps = ["spin", "spin", "memset", "memset", "event", "event", "gemm", "gemm", "decode", "decode",
                 "calls 1", "spin", "gemm", "decode", "calls 1"]
    from nvfp4rt.bench import spin
    from nvfp4rt.ops import grouped_gemm as GG
    layouts = [GG._raw_groups([v])[0][3] for v in state.views]
    plan = GG.plan_grouped_gemm(state.shapes, layouts=layouts, variant=GG.variant_for(state.shapes))
    print(f"the bench call's plan: {plan!r}, launched before: {plan._launch is not None}", flush=True)
    scratch = DeviceAllocation(4096, dev)
    ev = driver.call("cuEventCreate", driver.raw.CUevent_flags.CU_EVENT_DEFAULT)
    for step in steps:
        kind, _, arg = step.partition(" ")
        if kind == "calls":
            for _ in range(int(arg)):
                ours()
            timer.synchronize()
        elif kind == "alloc":
            kept.append(DeviceAllocation(int(arg), dev))
        elif kind == "free":
            kept.clear()
        elif kind == "spin":
            spin(timer._h, dev, 1000)
        elif kind == "memset":
            driver.call("cuMemsetD8Async", scratch.ptr, 1, 4096, timer._h)
        elif kind == "event":
            driver.call("cuEventRecord", ev, timer._h)
        elif kind == "gemm":
            plan._launch.launch()
        elif kind == "decode":
            plan._decode._launch.launch()
        if kind in ("spin", "memset", "event", "gemm", "decode"):
            timer.synchronize()
        show(step)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
