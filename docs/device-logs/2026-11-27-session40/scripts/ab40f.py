"""Session 40: the A16 slices (the working tree's kernel, 'slices') against the kernel before them ('before',
.probe/cluster_before.ptx) on the cluster plan, whole calls: the four competition cases (cases 1, 3 and 4 are the
m-tile plan's in the API; here the cluster plan runs them, as the bench's cluster-kernel peer does) and three long-k
problems whose tiles have an all-fill slice before: (64, 16640, 8192), 4 x (40, 7168, 8192), 3 x (160, 4096, 7168).
Bits compared, float64 reference; L2 cleared, phases spread, medians of 100.  Usage: ab40f.py BEFORE_PTX [ROUNDS]"""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from ab40e import checked, dev_problem, use  # noqa: E402
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402


def main():
    before = Path(sys.argv[1]).read_text()
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    problems = []
    for case in (1, 2, 3, 4):
        st = adapter.make_inputs({"case": case}, np.random.default_rng())
        problems.append((f"case {case}", st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views,
                         st.host.groups))
    for shapes in ([(64, 16640, 8192)], [(40, 7168, 8192)] * 4, [(160, 4096, 7168)] * 3):
        views, host = dev_problem(shapes)
        problems.append((f"{len(shapes)} x {shapes[0]}", shapes, None, views, host))
    runs, bits = [], {}
    for build in ("before", "slices"):
        use(build, before)
        for name, shapes, layouts, views, host in problems:
            p = GC.GroupedGemmClusterPlan(shapes, layouts)
            checked((name, build), p, views, host, layouts, bits)
            runs.append((name, build, lambda p=p, v=views: p(v)))
    for rnd in range(rounds):
        for name, build, fn in sorted(runs, key=lambda r: r[0]):
            t = time_op(fn)
            print(f"round {rnd}: {name:24s} {build:6s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f})", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
