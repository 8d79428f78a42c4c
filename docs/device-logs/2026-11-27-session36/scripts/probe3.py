"""Session 36, device run 3: the A decode streamed beside the GEMM (the m-tile plan's stream_decode) against the
decode in front of it, on competition grouped cases 3 and 4.  Both plans' outputs are compared bit for bit and the
first against the float64 reference.  Whole call and GEMM launch alone (the streamed plan's GEMM alone finds its flags
met and reads the last call's A16), L2 cleared, best of 3 medians of 40, four interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402


def best(f):
    return min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))


def main():
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    gb = GroupedGemmBench()
    runs = []
    for case in (3, 4):
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        ref_bits = None
        for name, kw in (("streamed", dict(stream_decode=True)), ("in front", dict(stream_decode=False))):
            p = GM.GroupedGemmMTilePlan(st.shapes, layouts, **kw)
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            bits = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
            if ref_bits is None:
                ref_bits = bits
                refs = reference.grouped_gemm_ref(st.host.groups)
                ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
                print(f"case {case} {name} vs the float64 reference: {ok}", flush=True)
            same = all(np.array_equal(a, b) for a, b in zip(bits, ref_bits))
            print(f"case {case} {name:9s} {p!r} bits equal: {same}", flush=True)
            runs.append((f"case {case} {name}", p, st))
    for rnd in range(4):
        for label, p, st in runs:
            tw, tg = best(lambda p=p, s=st: p(s.views)), best(p._launch.launch)
            print(f"round {rnd}: {label:16s} whole {tw:.2f}  gemm alone {tg:.2f} us", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
