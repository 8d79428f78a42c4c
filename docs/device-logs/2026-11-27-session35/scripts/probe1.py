"""Session 35, device run 1 (timing only, outputs NOT checked: the variants compute garbage on purpose).

Question: on the m-tile plan (the template GEMM, GROUPED = 1), how much of a unit's time scales with the number of A
rows a tile's wgmmas cover?  If a tile of 112 or 96 rows ran its k256 unit in 112/128 or 96/128 of the time, cutting
case 3's groups (192 = 96 + 96, 320 = 107 + 107 + 106) into tiles of at most 112 rows would shorten every CTA's
chain by that much.

Variants of the template, rendered with the plan's own constants and then edited as text:
  base   the committed kernel;
  nXw    every wgmma m64n128k16 -> m64nXk16 on the first X/2 accumulators (A16 still loaded as 128-row boxes);
  nXwa   the same, and the A16 box cut to X rows (the expect_tx to X * 128 bytes): A16's L2 traffic falls too.
Cases 3, 4 and 1 on their default schedules; the GEMM launch alone and the whole call, L2 cleared, best of 3 medians
of 40, two interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import gemm_wgmma_cluster as CL  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as MT  # noqa: E402
from nvfp4rt.ptxsource import ptx_dir  # noqa: E402

ACC64 = "{" + ", ".join(f"%acc{i}" for i in range(64)) + "}"
STATE = {"n": 128, "box": False}


def edited_text(n: int, box: bool) -> str:
    text = (ptx_dir() / CL._KERNEL_FILE).read_text()
    if n == 128:
        return text
    acc = "{" + ", ".join(f"%acc{i}" for i in range(n // 2)) + "}"
    k = text.count("aligned.m64n128k16")
    assert k == text.count(ACC64) > 0, (k, text.count(ACC64))
    text = text.replace("aligned.m64n128k16", f"aligned.m64n{n}k16").replace(ACC64, acc)
    if box:
        old = "[%bar], 16384;  // all ranks' slices land here"
        assert text.count(old) == 1
        text = text.replace(old, f"[%bar], {n * 128};  // all ranks' slices land here")
    return text


def patched_kernel(ordinal, constants):
    return load(edited_text(STATE["n"], STATE["box"]), device=driver.Device(ordinal), target="sm_90a",
                constants=dict(constants)).kernel(CL._ENTRY)


_map_spec = MT.GroupedGemmMTilePlan.map_spec


def patched_map_spec(self, i, which, padded=False):
    shape, strides, box, swz = _map_spec(self, i, which, padded)
    if which == "a16" and STATE["box"]:
        box = (1, STATE["n"] // self.geometry.cluster, 64)
    return shape, strides, box, swz


def best(f):
    return min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))


def main():
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    CL._kernel = patched_kernel
    MT.GroupedGemmMTilePlan.map_spec = patched_map_spec
    gb = GroupedGemmBench()
    variants = [("base", 128, False), ("n112w", 112, False), ("n112wa", 112, True), ("n96w", 96, False),
                ("n96wa", 96, True), ("n64wa", 64, True)]
    runs = []
    for case in (3, 4, 1):
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        for name, n, box in variants:
            STATE["n"], STATE["box"] = n, box
            p = MT.GroupedGemmMTilePlan(st.shapes, layouts)
            p(st.views)
            driver.call("cuCtxSynchronize")
            runs.append((f"case {case} {name:7s} {p!r}", p, st))
    STATE["n"], STATE["box"] = 128, False
    for rnd in range(2):
        for label, p, st in runs:
            tw, tg = best(lambda p=p, s=st: p(s.views)), best(p._launch.launch)
            print(f"round {rnd}: {label}\n   whole {tw:.2f}  gemm alone {tg:.2f} us", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
