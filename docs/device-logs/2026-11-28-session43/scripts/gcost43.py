"""Session 43: where the grouped cluster kernel's time goes beyond its units, under the whole-program build.

One group of N tokens (48 or 208) over 65 clusters of 2 (clusters=65), so every cluster runs the same whole tiles:
n = 65, 130, 260 tiles of 256 B rows at k = 2048 (8 units a tile), and 65 tiles at k = 4096 and 8192 (16, 32 units).
A whole call then costs F + t * P + u * U for t tiles and u units per cluster: U from the k series, P from the n
series, F (launches, the decode prepass, prologue, the last tile's drain) what is left.  Whole calls, L2 cleared,
launch phases spread, medians of 100, best of three rounds; every output checked against the float64 reference."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
from nvfp4rt import data, driver, reference  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402


def main():
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    for rows in (48, 208):
        cases = [(65, 2048), (130, 2048), (260, 2048), (65, 4096), (65, 8192)]
        best = {}
        runs = []
        for tiles, k in cases:
            shapes = [(rows, 256 * tiles, k)]
            d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
            groups = [tuple(g) for g in _device_groups(d)]
            p = GC.GroupedGemmClusterPlan(shapes, clusters=65)
            outs = p(groups)
            driver.call("cuCtxSynchronize")
            ok = reference.check(outs[0].numpy().transpose(1, 2, 0), reference.grouped_gemm_ref(d.groups)[0]).ok
            print(f"N {rows} tiles {tiles} k {k}: {p!r} reference ok {ok}", flush=True)
            runs.append(((tiles, k), lambda p=p, g=groups: p(g)))
        for _ in range(3):
            for key, fn in runs:
                t = time_op(fn).median_us
                best[key] = min(best.get(key, t), t)
        for key, t in best.items():
            print(f"N {rows} tiles/cluster {key[0] // 65} units/tile {key[1] // 256}: {t:7.2f} us", flush=True)
        u = (best[(65, 8192)] - best[(65, 2048)]) / 24  # per unit, per cluster
        p_tile = (best[(260, 2048)] - best[(65, 2048)]) / 3 - 8 * u
        f = best[(65, 2048)] - p_tile - 8 * u
        print(f"N {rows}: U {1000 * u:6.0f} ns a unit, P {1000 * p_tile:6.0f} ns a tile beyond its units, "
              f"F {f:6.2f} us a call", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
