"""Session 45: competition case 2 through the public raw API (nvfp4rt.grouped_gemm_raw), 50 back-to-back calls timed
with the host clock between synchronizes (the bench's api_us_per_call, five repeats) and with CUDA events around the
50 calls (GPU time, no L2 clears), under "auto" (the dealt schedule) and with the deal disabled (DEAL_MAX_CLASSES = 0:
the cut).  A fresh plan cache for each.
Usage: api45.py"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    timer = DriverTimer(dev, None)
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    for name, max_classes in (("auto", 64), ("cut", 0), ("auto", 64), ("cut", 0)):
        GC.DEAL_MAX_CLASSES = max_classes
        GG._raw_plan.cache_clear()
        GG.grouped_gemm_raw(st.views, stream=st.stream)
        plan = GG._raw_plan.cache_info()
        driver.call("cuCtxSynchronize")
        host = []
        for _ in range(5):
            driver.call("cuCtxSynchronize")
            t0 = time.perf_counter()
            for _ in range(50):
                GG.grouped_gemm_raw(st.views, stream=st.stream)
            driver.call("cuCtxSynchronize")
            host.append((time.perf_counter() - t0) / 50 * 1e6)
        t0 = time.perf_counter()
        for _ in range(50):
            GG.grouped_gemm_raw(st.views, stream=st.stream)
        issue = (time.perf_counter() - t0) / 50 * 1e6  # host time to issue, before the synchronize
        driver.call("cuCtxSynchronize")
        print(f"{name:5s} host us/call (5 runs of 50): {' '.join(f'{h:.1f}' for h in host)}; issue only {issue:.1f}; "
              f"{plan}", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
