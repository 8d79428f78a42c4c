"""Session 40: where the cluster kernel's consumers spend their time (tools/profile_cluster_kernel.py's counters) on
competition case 2, eight equal groups of 40 and of 196 rows (7168 x 2048 each), and one group (64, 16640, 8192),
whose units cost the same 1.3 us but whose calls differ (logs 27, 29).  Each: 20 launches, L2 cleared before each;
shares of the consumers' own time (the counters slow the kernel; compare the shapes with each other).
Usage: prof40.py"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tools")
sys.path.insert(0, "tests")
import profile_cluster_kernel as prof  # noqa: E402
from nvfp4rt import data, driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    timer = DriverTimer(dev, None)
    modules = {}

    def kernel(ordinal, constants):
        if constants not in modules:
            modules[constants] = load(prof.instrumented_source("grouped_gemm", dict(constants)),
                                      device=driver.Device(ordinal), target="sm_90a")
        return modules[constants].kernel(next(iter(modules[constants].entries)))
    GC._kernel = kernel
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    problems = [("case 2", st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views)]
    for shapes in ([(40, 7168, 2048)] * 8, [(196, 7168, 2048)] * 8, [(64, 16640, 8192)]):
        d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
        problems.append((f"{len(shapes)} x {shapes[0]}", shapes, None, [tuple(g) for g in _device_groups(d)]))
    for name, shapes, layouts, views in problems:
        p = GC.GroupedGemmClusterPlan(shapes, layouts)
        p(views)
        driver.call("cuCtxSynchronize")
        mod = modules[tuple(sorted(p.constants.items()))]
        ptr, size = driver.call("cuModuleGetGlobal", mod.handle, prof.GLOBAL.encode())
        total = np.zeros(prof.NSLOTS, np.uint64)
        for _ in range(20):
            timer.clear_l2()
            driver.call("cuMemsetD8", ptr, 0, size)
            p(views)
            driver.call("cuCtxSynchronize")
            buf = np.zeros(prof.NSLOTS, np.uint64)
            driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
            total += buf
        print(prof.report(total, f"{name} {p!r}"), flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
