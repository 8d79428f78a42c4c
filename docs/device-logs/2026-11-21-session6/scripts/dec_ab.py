"""A/B: the committed decode (one item per thread, 4 strided stores) against the coalesced one."""
import sys, numpy as np
import nvfp4rt
from nvfp4rt import data, driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import decode_a16 as D

dev = nvfp4rt.device()
print(dev.properties.name, flush=True)
old_kernel = load(__import__("pathlib").Path(".scratch/decode_old.ptx"), device=driver.device(0),
                  target="sm_90a", constants={"NORMAL_OPERANDS": 0, "GROUPED": 0}).kernel("nvfp4_decode_a16")
for m, k, l in [(128, 16384, 1), (128, 7168, 1), (128, 2048, 1), (256, 7168, 1), (512, 7168, 1), (256, 4096, 1),
                (512, 4096, 1), (1024, 7168, 1), (1024, 2048, 1), (7168, 16384, 1)]:
    d = data.gemm_data(m, 1, k, l, seed=1, distribution="wide")
    a = nvfp4rt.from_numpy(np.ascontiguousarray(d.physical("a")).view(np.uint8))
    sfa = nvfp4rt.from_numpy(np.ascontiguousarray(d.physical("sfa")).view(np.uint8))
    outs = []
    res = []
    for which in ("old", "new"):
        plan = D.DecodeA16Plan(m, k, l, k // 2, m * k // 2, k // 16, m * k // 16)
        if which == "old":
            plan.kernel = old_kernel
            plan.grid = min(-(-plan.items // 256), 8 * dev.properties.sm_count)
        out = nvfp4rt.from_numpy(np.full(l * m * k, np.nan, np.float16))
        plan.run(a, sfa, out)
        outs.append(out.numpy().view(np.uint16))
        t = time_op(lambda: plan.run(a, sfa, out)).median_us
        t2 = time_op(lambda: plan.run(a, sfa, out), clear_l2=False).median_us
        res.append((which, plan.grid, t, t2, plan.bytes_moved / t / 1e3))
    same = np.array_equal(outs[0], outs[1])
    print(f"m={m:5d} k={k:6d}: same={same} " + "  ".join(f"{w} grid {g:5d} {t:6.2f} us (no clear {t2:6.2f}) {gb:5.0f} GB/s" for w, g, t, t2, gb in res), flush=True)
