"""Session 44: the grouped cluster kernel for Nsight Compute: three calls of one problem (argv[1]: "case2" or
"8x<m>" for eight groups of m rows, n = 7168, k = 2048), so ncu can take the third GEMM launch."""
import sys

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
from nvfp4rt import data, driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402

which = sys.argv[1]
dev = driver.device()
if which == "case2":
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    shapes, layouts, views = st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views
else:
    m = int(which.split("x")[1])
    shapes, layouts = [(m, 7168, 2048)] * 8, None
    views = [tuple(g) for g in _device_groups(data.grouped_gemm_data(shapes, seed=None, distribution="wide"))]
p = GC.GroupedGemmClusterPlan(shapes, layouts)
for _ in range(3):
    p(views)
driver.call("cuCtxSynchronize")
print(which, p)
