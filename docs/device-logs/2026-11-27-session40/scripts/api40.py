"""Session 40: run 12's bench gave case 2 an API figure of 119.5 us a call against 72.6 in run 4's (same host path).
Host time per call of grouped_gemm_raw back to back (50 calls, the bench's measure), seven repeats per case, each
case's median and spread; and the same for the cluster plan called directly.  Usage: api40.py"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_back_to_back  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    for case in (1, 2, 3, 4):
        st = adapter.make_inputs({"case": case}, np.random.default_rng())
        api = [time_back_to_back(lambda: adapter.run(st)) for _ in range(7)]
        plan = GG.plan_grouped_gemm(st.shapes, layouts=[GG._raw_groups([v])[0][3] for v in st.views])
        direct = [time_back_to_back(lambda: plan(st.views, stream=st.stream)) for _ in range(7)]
        print(f"case {case}: API us/call {np.median(api):7.1f} ({min(api):.1f}-{max(api):.1f}); plan directly "
              f"{np.median(direct):7.1f} ({min(direct):.1f}-{max(direct):.1f}); {type(plan).__name__}", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
