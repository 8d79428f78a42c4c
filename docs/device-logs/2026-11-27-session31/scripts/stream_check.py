"""Session 31: is the floor kernel's input stream as fast as a plain read?  Per GEMM shape and grouped case 4, p10
(median) µs, bench timing, 100 calls: the floor kernel with one quantum and the inputs streamed (each build, plain
and evict-first copies), bw_read over the same bytes (the faster of its builds), the tensor floor alone, and the
floor with the inputs streamed."""
import sys
import time

sys.path.insert(0, ".")
from nvfp4rt import bench, driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, measure  # noqa: E402
from nvfp4rt.ceilings import (TENSOR_FLOOR_SMEM_BYTES, TENSOR_FLOOR_TOUCH_STRIDE, measure_read_time,  # noqa: E402
                              measure_tensor_floor_time, tensor_floor_kernel, tensor_floor_launch)

dev = driver.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
timer = DriverTimer(dev, None)
grid = dev.properties.sm_count
bench._load_builtin_ops()
shapes = [("gemm", s) for s in bench.get_op("gemm")().parse_shapes(None)] + [("grouped_gemm", {"case": 4})]
for op, shape in shapes:
    a = bench.get_op(op)()
    flops, out = a.flops(shape), a.out_bytes(shape)
    inputs = a.bytes(shape) - out
    _, _, src16 = tensor_floor_launch(1, 0, grid, inputs)
    touch = int(driver.call("cuMemAlloc", grid * TENSOR_FLOOR_TOUCH_STRIDE))
    dst = int(driver.call("cuMemAlloc", 16))
    src = int(driver.call("cuMemAlloc", grid * src16 * 16))
    row = []
    for ef in (0, 1):
        k = tensor_floor_kernel(dev, ef)
        t = measure(lambda k=k: k(touch, dst, src, 1, 0, src16, TENSOR_FLOOR_TOUCH_STRIDE, grid=(grid, 1, 1),
                                  block=(256, 1, 1), shared_mem=TENSOR_FLOOR_SMEM_BYTES, stream=timer.stream), timer)
        row.append(f"stream only (evict_first={ef}) {t.p10_us:6.2f} ({t.median_us:6.2f})")
    for ptr in (touch, dst, src):
        driver.call("cuMemFree", ptr)
    r = measure_read_time(inputs, dev, timer.stream, iters=100, warmup=10)
    tf = measure_tensor_floor_time(flops, out, dev, timer.stream, iters=100, warmup=10)
    ti = measure_tensor_floor_time(flops, out, dev, timer.stream, in_bytes=inputs, iters=100, warmup=10)
    print(f"{op} {a.shape_label(shape)} ({inputs / 1e6:.2f} MB in): " + "; ".join(row) +
          f"; bw_read {r.p10_us:6.2f} ({r.median_us:6.2f}); tensor floor {tf.p10_us:6.2f} ({tf.median_us:6.2f});"
          f" floor + inputs {ti.p10_us:6.2f} ({ti.median_us:6.2f})", flush=True)
print("done", time.strftime("%H:%M:%S"))
