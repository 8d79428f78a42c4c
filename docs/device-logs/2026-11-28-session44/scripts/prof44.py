"""Session 44: where the grouped cluster kernel's consumers wait, per token class, under the whole-program build:
tools/profile_cluster_kernel.py's counters on one-class problems (8 groups of m rows, n = 7168, k = 2048) and on
competition case 2; 10 launches each, L2 cleared before each.  Shares of the consumers' time (the counters cost
about 18%: compare the rows with each other).
Usage: prof44.py [PATH] (default: the committed kernel)"""
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
sys.path.insert(0, "tools")
from nvfp4rt import data, driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ptxsource import render  # noqa: E402
import profile_cluster_kernel as PK  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402

PATH = sys.argv[1] if len(sys.argv) > 1 else "ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx"
mods = {}


@lru_cache(maxsize=None)
def kernel(ordinal, constants):
    text = PK.instrument(render(Path(PATH).read_text(), "sm_90a", dict(constants)))
    mods["m"] = load(text, device=driver.Device(ordinal), target="sm_90a")
    return mods["m"].kernel(GC._ENTRY)


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), PATH, flush=True)
    GC._kernel = kernel
    timer = DriverTimer(dev, None)
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    problems = [("case 2", st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views)]
    for m in (40, 72, 120, 160, 196, 248):
        shapes = [(m, 7168, 2048)] * 8
        d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
        problems.append((f"8 x {m}", shapes, None, [tuple(g) for g in _device_groups(d)]))
    for name, shp, layouts, views in problems:
        p = GC.GroupedGemmClusterPlan(shp, layouts)
        p(views)
        driver.call("cuCtxSynchronize")
        ptr, size = driver.call("cuModuleGetGlobal", mods["m"].handle, PK.GLOBAL.encode())
        total = np.zeros(PK.NSLOTS, np.uint64)
        for _ in range(10):
            timer.clear_l2()
            driver.call("cuMemsetD8", ptr, 0, size)
            p(views)
            driver.call("cuCtxSynchronize")
            buf = np.zeros(PK.NSLOTS, np.uint64)
            driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
            total += buf
        print(PK.report(total, f"{name} {p!r}"), flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
