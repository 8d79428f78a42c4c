"""Session 43: a grouped cluster call's two launches apart.  For three problems (competition case 2, and one group of
48 or 208 tokens over 65 tiles at k = 2048, where run 11 put about 12 us of the call outside its units and tiles):
the whole call (the decode prepass, then the GEMM by programmatic dependent launch), the decode alone, the GEMM alone
(after a whole call, so A16 holds the decoded A), each with L2 cleared before every call and without; medians of
100, launch phases spread, best of three rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
from nvfp4rt import data, driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    problems = [("case 2", GC.GroupedGemmClusterPlan(st.shapes, [GG._raw_groups([v])[0][3] for v in st.views]),
                 st.views)]
    for rows in (48, 208):
        shapes = [(rows, 256 * 65, 2048)]
        d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
        problems.append((f"1 x ({rows}, 65 tiles, 2048)", GC.GroupedGemmClusterPlan(shapes, clusters=65),
                         [tuple(g) for g in _device_groups(d)]))
    for name, p, views in problems:
        p(views)
        driver.call("cuCtxSynchronize")
        parts = {"whole": lambda p=p, v=views: p(v), "decode": p._decode._launch.launch, "gemm": p._launch.launch}
        for clear in (True, False):
            best = {}
            for _ in range(3):
                for part, fn in parts.items():
                    t = time_op(fn, clear_l2=clear).median_us
                    best[part] = min(best.get(part, t), t)
            print(f"{name:24s} L2 {'cleared' if clear else 'warm   '}: " + " | ".join(f"{k} {v:6.2f}" for k, v in
                                                                                     best.items()), flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
