#!/usr/bin/env python3
"""What the bench's timing leaves of a GEMM-family shape before any kernel work: the floors, in parts.

Usage: tools/floor_report.py [OP ...]   (gemm, dual_gemm, grouped_gemm; default all three, competition shapes)

Per shape, each timed like the bench times the op (L2 cleared before every call, p10 / median of CUDA-event
times, iters 100):
  launch    an empty launch (``bench_spin`` for 0 ns): the timing's own floor
  touch     ``tensor_floor`` at one quantum (one m64n256k16 on one SM) and no output: the launch, one global
            read per SM after the clear, and almost no products
  floor     ``tensor_floor`` at the op's flops and output bytes: the same-size tensor floor of the bench
  +inputs   the same with the op's input bytes (A, B and their scales; not the output) streamed from global
            memory beside the products: the floor of an op that reads its inputs once, perfectly overlapped
  read      ``bw_read`` over the input bytes alone (the same-size read floor of the memory-bound ops)
and the floor's TFLOP/s.  Needs a Hopper GPU.
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nvfp4rt import bench, driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, measure, spin  # noqa: E402
from nvfp4rt.ceilings import measure_read_time, measure_tensor_floor_time  # noqa: E402

OPS = ("gemm", "dual_gemm", "grouped_gemm")


def main(argv):
    ops = argv or list(OPS)
    bad = [op for op in ops if op not in OPS]
    if bad:
        print(f"unknown op(s) {bad}: choose from {', '.join(OPS)}", file=sys.stderr)
        return 2
    dev = driver.device()
    print(f"{dev.properties.name} ({dev.arch}), driver {driver.driver_version()}, "
          f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}", flush=True)
    timer = DriverTimer(dev, None)
    launch = measure(lambda: spin(timer.stream, dev, 0), timer)
    touch = measure_tensor_floor_time(1, 0, dev, timer.stream, iters=100, warmup=10)
    print(f"launch (empty kernel)      p10 {launch.p10_us:6.2f}  median {launch.median_us:6.2f} us")
    print(f"touch (one read per SM)    p10 {touch.p10_us:6.2f}  median {touch.median_us:6.2f} us "
          f"(one m64n256k16 product on one SM)")
    bench._load_builtin_ops()
    for op in ops:
        adapter = bench.get_op(op)(dev, timer.stream)
        for shape in adapter.parse_shapes(None):
            flops, out = adapter.flops(shape), adapter.out_bytes(shape)
            inputs = adapter.bytes(shape) - out
            t = measure_tensor_floor_time(flops, out, dev, timer.stream, iters=100, warmup=10)
            ti = measure_tensor_floor_time(flops, out, dev, timer.stream, in_bytes=inputs, iters=100, warmup=10)
            tr = measure_read_time(inputs, dev, timer.stream, iters=100, warmup=10)
            print(f"{op:12s} {adapter.shape_label(shape):22s} floor p10 {t.p10_us:6.2f}  median {t.median_us:6.2f} us"
                  f"  +inputs p10 {ti.p10_us:6.2f}  median {ti.median_us:6.2f} us  read p10 {tr.p10_us:6.2f} us"
                  f"  ({flops / (t.p10_us * 1e-6) / 1e12:5.0f} TFLOP/s at p10; {flops / 1e9:6.2f} GFLOP, "
                  f"{inputs / 1e6:5.2f} MB in, {out / 1e6:5.2f} MB out)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
