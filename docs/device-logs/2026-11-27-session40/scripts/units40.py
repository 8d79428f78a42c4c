"""Session 40: the cluster kernel's cost per k256 unit by token count N, on today's kernel (wide decode).  One group
of N rows, n = 65 cluster tiles of 256 columns (one whole tile per cluster on the H100's 65 clusters), k = 4096 and
8192: (t(8192) - t(4096)) / 16 is a unit's cost at that N, fixed costs cancelled.  Whole calls, L2 cleared, phases
spread, medians of 100, best of ROUNDS.  Then competition case 2's sum of its units' costs over the 65 clusters:
what its kernel would take with no epilogue, reduction, start or imbalance.  Usage: units40.py [ROUNDS]"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
from nvfp4rt import data, driver  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402

N_VALUES = (64, 96, 128, 160, 192, 224, 256)
CASE2 = (40, 76, 168, 72, 164, 148, 196, 160)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    runs = {}
    for n_tok in N_VALUES:
        for k in (4096, 8192):
            shapes = [(n_tok, 65 * 256, k)]
            d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
            groups = [tuple(g) for g in _device_groups(d)]
            p = GC.GroupedGemmClusterPlan(shapes)
            p(groups)
            runs[(n_tok, k)] = (p, groups)
            print(f"N={n_tok} k={k}: {p!r}", flush=True)
    best = {}
    for rnd in range(rounds):
        for key, (p, groups) in runs.items():
            t = time_op(lambda p=p, g=groups: p(g)).median_us
            best[key] = min(best.get(key, t), t)
            print(f"round {rnd}: N={key[0]} k={key[1]} whole {t:7.2f}", flush=True)
    unit = {}
    for n_tok in N_VALUES:
        unit[n_tok] = (best[(n_tok, 8192)] - best[(n_tok, 4096)]) / 16
    for n_tok in N_VALUES:
        print(f"N={n_tok}: {1000 * unit[n_tok]:6.0f} ns, {unit[256] * n_tok / 256 / unit[n_tok]:.2f} of N=256's rate",
              flush=True)
    total = sum(224 * unit[GC.tokens(m)] for m in CASE2) / 65
    ideal = sum(224 * unit[256] * GC.tokens(m) / 256 for m in CASE2) / 65
    print(f"case 2: its 1792 units at these costs over 65 clusters: {total:.1f} us; at N=256's rate: {ideal:.1f} us",
          flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
