"""Session 41: what the cluster kernel's fp16 store costs, by timing-only cuts of the committed kernel's text (their
results are wrong and are not checked): nofence (no fence.proxy.async before each quarter's TMA store), nobar1 (no
barrier between the storing thread's wait for a free box and the staging), nostage (no staging: no mul, cvt or
stmatrix; the boxes are stored as they are), nostore (no TMA epilogue at all: from the tile's decision straight to the
next segment).  Case 2 and 8 x (196, 7168, 2048), whole calls, L2 cleared, launch phases spread, medians of 100,
three rounds.  Run 12 added: noissue (staged, fenced and synchronised, never stored), evict1st and evictlast (the TMA
stores with an L2 evict_first or evict_last cache policy; these two are exact).  Usage: epi41.py [BUILD ...]"""
import re
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
from nvfp4rt import data, driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402

COMMITTED = GC._kernel
BUILDS = sys.argv[1:] or ["committed", "nofence", "nobar1", "nostage", "nostore"]
TEXT = (Path("ptx") / GC._KERNEL_FILE).read_text()
FENCE = "    fence.proxy.async.shared::cta;            // this thread's stmatrix stores before the TMA engine's reads\n"
WAIT_BAR = ("    @%p_iss cp.async.bulk.wait_group.read 1;  // every store but the newest (the other box's) has read its box\n"
            "    bar.sync %wbar, 128;\n")


def cut(name: str) -> str:
    t = TEXT
    if name == "nofence":
        assert t.count(FENCE) == 4
        return t.replace(FENCE, "")
    if name == "nobar1":
        assert t.count(WAIT_BAR) == 4
        return t.replace(WAIT_BAR, WAIT_BAR.split("\n")[0] + "\n")
    if name == "nostage":  # the TMA quarters only (STORE_TILE .. STORE_COPY): 4 x (32 mul, 16 cvt, 4 stmatrix)
        head, rest = t.split("STORE_TILE:\n", 1)
        tma, copy = rest.split("STORE_COPY:\n", 1)
        tma, n = re.subn(r"^    (mul\.f32 %v[01], %acc\d+, %alpha|cvt\.rn\.f16x2\.f32 %\w+, %v1, %v0|stmatrix\S* \[%stg\+\d+\], "
                         r"\{[^}]*\});\n", "", tma, flags=re.M)
        assert n == 4 * (32 + 16 + 4), n
        return head + "STORE_TILE:\n" + tma + "STORE_COPY:\n" + copy
    if name in ("noissue", "evict1st", "evictlast"):
        store = "    cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%tm_c, {%x, %y}], [%box];\n"
        assert t.count(store) == 4
        if name == "noissue":  # staged, fenced and synchronised as before, never stored (nor committed)
            return t.replace(store, "").replace("    cp.async.bulk.commit_group;\n", "")
        pol = "evict_first" if name == "evict1st" else "evict_last"
        return t.replace(store, f"    createpolicy.fractional.L2::{pol}.b64 %pol_b, 1.0;\n"
                         "    cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [%tm_c, {%x, %y}], "
                         "[%box], %pol_b;\n")
    if name == "nostore":
        old = "    @%p_tma bra STORE_COPY;\n"
        assert t.count(old) == 1
        return t.replace(old, old + "    bra.uni NEXT_SEG;\n")
    raise ValueError(name)


def use(build: str):
    if build == "committed":
        GC._kernel = COMMITTED
        return
    text = cut(build)

    @lru_cache(maxsize=None)
    def kernel(ordinal, constants):
        return load(text, device=driver.Device(ordinal), target="sm_90a", constants=dict(constants)).kernel(GC._ENTRY)
    GC._kernel = kernel


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    problems = [("case 2", st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views)]
    shapes = [(196, 7168, 2048)] * 8
    d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
    problems.append(("8 x 196", shapes, None, [tuple(g) for g in _device_groups(d)]))
    runs = []
    for build in BUILDS:
        use(build)
        for name, shp, layouts, views in problems:
            p = GC.GroupedGemmClusterPlan(shp, layouts)
            p(views)
            runs.append((build, name, lambda p=p, v=views: p(v)))
    driver.call("cuCtxSynchronize")
    for rnd in range(3):
        for build, name, fn in runs:
            t = time_op(fn)
            print(f"round {rnd}: {name:8s} {build:9s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f})", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
