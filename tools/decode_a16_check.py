"""GPU check of the A pre-decode (ptx/nvfp4_decode_a16.ptx via nvfp4rt.ops.decode_a16).

    PYTHONPATH=. python3 tools/decode_a16_check.py             # correctness + timings
    PYTHONPATH=. python3 tools/decode_a16_check.py --no-time   # correctness only
    compute-sanitizer --tool memcheck python3 tools/decode_a16_check.py --no-time --small
    options: --normal-operands, --iters N, --small (small shapes only)

Per shape and both distributions (nvfp4rt.data, fresh): A16 written into a NaN-poisoned buffer
with a NaN guard tail must equal nvfp4rt.ops.decode_a16.a16_reference bit for bit; PASS/FAIL per
line, exit 1 on any FAIL.  Then the A shapes of the GEMM / dual GEMM benchmarks are timed with
nvfp4rt.bench.time_op (L2 cleared, median) and reported with the bandwidth they reach (A + sfa
read, A16 written).
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import nvfp4rt  # noqa: E402
from nvfp4rt import data  # noqa: E402
from nvfp4rt.ops import decode_a16 as D  # noqa: E402

SMALL = [(1, 64, 1), (7, 192, 3), (300, 192, 3), (128, 2048, 1)]
#: (m, k, l) of A in the GEMM (m = 128) and dual GEMM (m = 256, 512) benchmarks
BENCH = [(128, 16384, 1), (128, 7168, 1), (128, 2048, 1), (256, 7168, 1), (512, 7168, 1), (256, 4096, 1)]


def check(m, k, l, distribution, normal):
    d = data.gemm_data(m, 1, k, l, seed=None, distribution=distribution)
    a = np.ascontiguousarray(d.physical("a")).view(np.uint8)
    sfa = np.ascontiguousarray(d.physical("sfa")).view(np.uint8)
    ref = D.a16_reference(a, sfa, normal_operands=normal)
    a_dev, sf_dev = nvfp4rt.from_numpy(a), nvfp4rt.from_numpy(sfa)
    out = nvfp4rt.from_numpy(np.full(l * m * k + 64, np.nan, np.float16))
    plan = D.DecodeA16Plan(m, k, l, k // 2, m * k // 2, k // 16, m * k // 16, normal_operands=normal)
    plan.run(a_dev, sf_dev, out)
    got = out.numpy().view(np.uint16)
    tail_ok = (got[l * m * k:] == np.float16(np.nan).view(np.uint16)).all()
    diff = int(np.count_nonzero(got[:l * m * k] != ref.reshape(-1).view(np.uint16)))
    ok = tail_ok and diff == 0
    print(f"{'PASS' if ok else 'FAIL'} m={m:4d} k={k:6d} l={l} {distribution:11s} grid={plan.grid:5d} "
          f"{diff} fp16 differ{'' if tail_ok else ', WROTE PAST THE END'}", flush=True)
    return ok, plan, a_dev, sf_dev, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-time", action="store_true")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--normal-operands", action="store_true")
    ap.add_argument("--iters", type=int, default=100)
    args = ap.parse_args()
    ok = True
    shapes = SMALL if args.small else SMALL + BENCH + [(300, 16384, 3)]
    for m, k, l in shapes:
        for dist in ("competition", "wide"):
            ok &= check(m, k, l, dist, args.normal_operands)[0]
    if not args.no_time and not args.small:
        from nvfp4rt.bench import time_op

        for m, k, l in BENCH:
            res, plan, a_dev, sf_dev, out = check(m, k, l, "wide", args.normal_operands)
            ok &= res
            t = time_op(lambda: plan.run(a_dev, sf_dev, out), iters=args.iters)
            gbs = plan.bytes_moved / (t.median_us * 1e-6) / 1e9
            print(f"TIME m={m:4d} k={k:6d} l={l}: {t.median_us:7.2f} us median (p10 {t.p10_us:.2f}, p90 "
                  f"{t.p90_us:.2f}), {plan.bytes_moved / 1e6:.2f} MB moved, {gbs:.0f} GB/s", flush=True)
    nvfp4rt.device().synchronize()
    print("ALL PASS" if ok else "SOME FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
