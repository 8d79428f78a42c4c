"""Session 37, device run 2: does the bench's order of measurement move the grouped cases' figures?

run_bench times ours first for each shape (after the check), then the API figure (back-to-back calls, no L2 clear),
then the peers.  Sessions 25 and 27 saw whole calls (decode + GEMM) time in one of two modes about 1 µs apart, set by
what ran before.  Here, per case and in one process, exactly the bench's sequence (make_inputs, check, measure ours,
the API figure, the per-group peer), and then ours and the peer again, alternated, with each run's p10 / median /
p90 and the share of samples above the run's own midpoint between p10 and p90."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import API_REPEATS, DriverTimer, get_op, measure, time_back_to_back  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402 (registers the op)


def fmt(label, t):
    s = np.asarray(t.samples)
    first, last = np.median(s[:20]), np.median(s[-20:])
    return (f"{label:22s} p10 {t.p10_us:6.2f}  median {t.median_us:6.2f}  p90 {t.p90_us:6.2f}  "
            f"first 20 {first:6.2f}  last 20 {last:6.2f}")


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    timer = DriverTimer(dev, None)
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    rng = np.random.default_rng()
    cases = [int(c) for c in sys.argv[1:]] or [3, 4]
    for case in cases:
        state = adapter.make_inputs({"case": case}, rng)
        adapter.check(state)
        ours = lambda: adapter.run(state)  # noqa: E731
        print(f"case {case}", flush=True)
        print(fmt("ours (bench order)", measure(ours, timer)), flush=True)
        api = float(np.median([time_back_to_back(ours, 50, synchronize=timer.synchronize)
                               for _ in range(API_REPEATS)]))
        print(f"  API {api:.1f} us/call", flush=True)
        peer = adapter.peers(state)["nvfp4rt_gemm_per_group"]
        print(fmt("gemm per group", measure(peer.fn, timer)), flush=True)
        for rnd in range(3):
            print(fmt(f"ours, round {rnd}", measure(ours, timer)), flush=True)
            print(fmt(f"gemm per group, round {rnd}", measure(peer.fn, timer)), flush=True)
        adapter.release(state)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
