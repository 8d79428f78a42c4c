"""Session 38: is the whole call's mode the stream's launch count modulo 4?

Run 1 (modeprobe.py) saw the mode of grouped case 4 and 3 flip with every second single launch between measurements,
whatever the launch's grid (spins of 1 to 265 CTAs, a stand-in grid, the decode alone) and with every whole call (two
launches).  A timed call of the bench is four launches (the L2 clear's memset, the spin, then the call's two), so its
phase modulo 4 never moves.  Here each measured "call" is two launches of some kind; before each measurement one
extra no-op launch moves the phase by one, eight times (two periods), so every kind is timed at each phase twice.
Kinds: two no-ops; decode + no-op; no-op + GEMM; GEMM + no-op; decode + GEMM (the call).  The no-op is the bench's
spin kernel with 0 ns (one CTA of 32 threads).  Medians of 100, L2 cleared before each call, as the bench times.
Usage: phase.py CASE"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, measure  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ptxsource import ptx_dir  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402


def main():
    case = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), "case", case, flush=True)
    timer = DriverTimer(dev, None)
    h = timer._h
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    state = adapter.make_inputs({"case": case}, np.random.default_rng())
    adapter.check(state)
    layouts = [GG._raw_groups([v])[0][3] for v in state.views]
    plan = GG.plan_grouped_gemm(state.shapes, layouts=layouts, variant=GG.variant_for(state.shapes))
    adapter.run(state)
    timer.synchronize()
    spin_k = load(ptx_dir() / "bench_spin.ptx", device=dev).kernel("bench_spin")
    noop_l = spin_k.prepare(0, grid=(1, 1, 1), block=(32, 1, 1), shared_mem=0, stream=h)
    noop = noop_l.launch
    dec = plan._decode._launch.launch
    gemm = plan._launch.launch

    kinds = {
        "noop+noop": lambda: (noop(), noop()),
        "decode+noop": lambda: (dec(), noop()),
        "noop+gemm": lambda: (noop(), gemm()),
        "gemm+noop": lambda: (gemm(), noop()),
        "decode+gemm": lambda: (dec(), gemm()),
    }
    rows = {k: [] for k in kinds}
    for rnd in range(2):
        for ph in range(4):
            for name, fn in kinds.items():
                t = measure(fn, timer)
                rows[name].append(t.median_us)
            noop()
            timer.synchronize()
    print("medians (us) at phase shift 0..3, then 0..3 again (one extra no-op launch between columns):")
    for name, vals in rows.items():
        print(f"{name:12s} " + " ".join(f"{v:6.2f}" for v in vals), flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
