"""Session 31: what the decode launch adds to the small calls today (timing only; the whole call is the checked op).
For 128x4096x7168, 128x7168x2048 (the cluster GEMM plan) and grouped cases 3 and 4 (the m-tile plan): the whole call
(decode prepass, then the GEMM by programmatic dependent launch), the GEMM launch alone (A16 left by the last call)
and the decode launch alone; each the best of 3 medians of 40 calls, L2 cleared, in 2 interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import data, driver  # noqa: E402
from nvfp4rt.array import asarray  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan  # noqa: E402

print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f):
    return min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))


cases = []
for m, n, k in [(128, 4096, 7168), (128, 7168, 2048)]:
    d = data.gemm_data(m, n, k, 1, seed=None)
    dv = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
          for nm in ("a", "b", "sfa", "sfb")}
    c = asarray(np.zeros((1, m, n), np.float16))
    args = tuple(dv[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb")) + (c.transpose(1, 2, 0),)
    p = GemmClusterPlan(m, n, k, 1)
    p(*args)
    driver.call("cuCtxSynchronize")
    cases.append((f"{m}x{n}x{k} {p!r}", (p, args, dv, c), lambda p=p, a=args: p(*a), p._launch.launch,
                  p._decode._launch.launch))
gb = GroupedGemmBench()
for case in (3, 4):
    st = gb.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    p = GG.plan_grouped_gemm(st.shapes, layouts=layouts)
    p(st.views)
    driver.call("cuCtxSynchronize")
    cases.append((f"grouped case {case} {p!r}", (p, st), lambda p=p, s=st: p(s.views), p._launch.launch,
                  p._decode._launch.launch))
for rnd in range(2):
    for name, _keep, whole, gemm, dec in cases:
        tw, tg, td = best(whole), best(gemm), best(dec)
        print(f"round {rnd}: {name}\n   whole {tw:.2f}  gemm alone {tg:.2f}  decode alone {td:.2f}  "
              f"whole - gemm alone {tw - tg:.2f} us", flush=True)
print("done", time.strftime("%H:%M:%S"))
