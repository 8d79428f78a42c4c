"""Session 43: the floor of a timed call: one launch of ptx/test_add_one.ptx on 128 elements (one CTA), and on 132
CTAs in clusters of 2, timed as the bench times whole calls (medians of 100, launch phases spread, best of three
rounds), with L2 cleared before every call and without."""
import time

import numpy as np

import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.launch import launch
from nvfp4rt.module import load
from nvfp4rt.ptxsource import ptx_dir

print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
kernel = load(ptx_dir() / "test_add_one.ptx").kernel("add_one")
x = nvfp4rt.from_numpy(np.zeros(132 * 128, np.float32))
cases = {"1 CTA": dict(grid=1, block=128), "132 CTAs, clusters of 2": dict(grid=132, block=128, cluster=2)}
for clear in (True, False):
    best = {}
    for _ in range(3):
        for name, geo in cases.items():
            t = time_op(lambda geo=geo: launch(kernel, [x, x.size], **geo), clear_l2=clear).median_us
            best[name] = min(best.get(name, t), t)
    print(f"L2 {'cleared' if clear else 'warm   '}: " + " | ".join(f"{k} {v:5.2f} us" for k, v in best.items()),
          flush=True)
