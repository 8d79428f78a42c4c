"""Session 36, device run 4 (timing only for the variants marked so): where the streamed decode's rounds go.

Run 3 measured the m-tile plan with the decode streamed beside the GEMM at 34.6-34.9 us whole call on cases 3 and 4,
against 19.5-32.1 with the decode in front: the decode, not the GEMM, set the pace (about 5 us per round of four
tasks per warp).  Variants of the decode's text, each swapped in for the plan's kernel:
  committed   the committed kernel (exact);
  noproxy     without the writers' fence.proxy.async.global (the GEMM's A16 producer keeps its own);
  nofence     without any fence before the counts (timing only: nothing orders the stores before the flags);
  noacqrel    without lane 0's fence.acq_rel.gpu, keeping the writers' proxy fence (timing only).
Whole call, L2 cleared, best of 3 medians of 40, three interleaved rounds; each variant's bits compared with the
decode in front (a timing-only variant may differ only by a race, which would show here as False)."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import decode_a16 as D  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402
from nvfp4rt.ptxsource import ptx_dir  # noqa: E402

PROXY = "    fence.proxy.async.global;                 // a TMA (the async proxy) reads these bytes\n"
ACQREL = "    fence.acq_rel.gpu;\n"


def variant_text(name):
    text = (ptx_dir() / "nvfp4_decode_a16_stream.ptx").read_text()
    assert text.count(PROXY) == 1 and text.count(ACQREL) == 1
    if name in ("noproxy", "nofence"):
        text = text.replace(PROXY, "")
    if name in ("noacqrel", "nofence"):
        text = text.replace(ACQREL, "")
    return text


def kernel_of(name):
    k = load(variant_text(name), device=driver.device(), target="sm_90a").kernel("nvfp4_decode_a16_stream")
    k.set_shared_carveout(D.DECODE_CARVEOUT)
    return k


def best(f):
    return min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))


def main():
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    gb = GroupedGemmBench()
    runs = []
    for case in (3, 4):
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        front = GM.GroupedGemmMTilePlan(st.shapes, layouts, stream_decode=False)
        ref = [np.asarray(o.numpy()).view(np.uint16).copy() for o in front(st.views)]
        runs.append((f"case {case} in front", front, st))
        for name in ("committed", "noproxy", "nofence", "noacqrel"):
            D._stream_kernel.cache_clear()
            orig = D._stream_kernel
            D._stream_kernel = lambda ordinal, name=name: kernel_of(name)
            p = GM.GroupedGemmMTilePlan(st.shapes, layouts, stream_decode=True)
            D._stream_kernel = orig
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            same = all(np.array_equal(np.asarray(o.numpy()).view(np.uint16), r) for o, r in zip(outs, ref))
            print(f"case {case} {name:9s} bits equal to the decode in front: {same}", flush=True)
            runs.append((f"case {case} {name}", p, st))
    for rnd in range(3):
        for label, p, st in runs:
            print(f"round {rnd}: {label:18s} whole {best(lambda p=p, s=st: p(s.views)):.2f} us", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
