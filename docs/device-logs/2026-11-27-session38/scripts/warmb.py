"""Session 38: the decode pulling B itself (and its scales) into L2 for the GEMM after it.

After the bench's L2 clear each GEMM CTA's first B stage lands 2.3-3.6 us after the CTA enters (session 24): the
misses queue behind the clear's dirty write-backs.  The grouped decode can already list regions for L2
(session 37's warm-up list, one cp.async.bulk.prefetch.L2 per thread of its CTA 0).  Variants of the m-tile plan, each
a fresh plan whose list is extended before its first call:
  base:   the committed list (the m-tile table);
  sfb:    + every group's sfb, whole;
  b:      + every group's B and sfb, whole, in 64 KB records;
  bhalf:  + the first half of every group's B rows (the n tiles the first CTAs take) and all sfb.
Outputs compared bit for bit with base (checked against the float64 reference).  Whole calls, L2 cleared, the
harness's phases spread (time_op's default since c7cfcfd), medians of 100, rounds interleaved.
Usage: warmb.py CASE..."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.memory import DeviceAllocation  # noqa: E402
from nvfp4rt.ops import decode_a16 as DA  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

CHUNK = 64 * 1024


def chunks(ptr, nbytes):
    return [(ptr + o, min(CHUNK, nbytes - o)) for o in range(0, nbytes, CHUNK)]


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    gb = GroupedGemmBench()
    runs = []
    for case in [int(c) for c in sys.argv[1:]] or (4, 3):
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        bits = None
        for name in ("base", "sfb", "b", "bhalf"):
            p = GM.GroupedGemmMTilePlan(st.shapes, layouts)
            extra = []
            for d in st.dev:
                b, sfb = d["b"], d["sfb"]
                if name in ("b",):
                    extra += chunks(b.ptr, b.nbytes)
                if name == "bhalf":
                    extra += chunks(b.ptr, b.nbytes // 2)
                extra += chunks(sfb.ptr, sfb.nbytes) if name != "base" else []
            if extra:
                assert len(extra) + 1 <= DA.MAX_WARM_REGIONS, len(extra)
                p._l2_warm = tuple(p._l2_warm) + tuple(extra)
                p._decode_table = DeviceAllocation(DA.table_bytes(len(p.shapes), len(p._l2_warm)), dev)
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            got = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
            if bits is None:
                bits = got
                refs = reference.grouped_gemm_ref(st.host.groups)
                ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
                print(f"case {case} {p!r} vs the float64 reference: {ok}", flush=True)
            else:
                print(f"case {case} {name}: {len(extra)} extra regions, "
                      f"{sum(n for _, n in extra) / 1e6:.2f} MB; bits equal to base: "
                      f"{all(np.array_equal(a, b) for a, b in zip(bits, got))}", flush=True)
            runs.append((f"case {case} {name}", p, st))
    for rnd in range(3):
        for label, p, st in runs:
            t = time_op(lambda p=p, s=st: p(s.views))
            print(f"round {rnd}: {label:14s} whole {t.median_us:6.2f} (p10 {t.p10_us:6.2f}, p90 {t.p90_us:6.2f})",
                  flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
