"""Session 31: is the tensor floor kernel's pipe full, and where do its microseconds go?

Renders ptx/tensor_floor.ptx with timestamps added (thread 0 of each CTA: %globaltimer at entry, %clock64 and
%globaltimer after the first read and barrier, after the last product, after the stores; %smid), runs it at the
GEMM shapes' flops and output bytes, and prints per shape: cycles per m64n256k16 quantum (128 = the pipe never
idles), the SM clock over the products (cycles / ns), the spread of CTA entry times, and the median entry ->
products -> stores timeline.  The timestamps live in the touch buffer past each CTA's 16 bytes.
Also times the unmodified kernel (bench method) beside it, so the stamps' own cost shows."""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, measure  # noqa: E402
from nvfp4rt.ceilings import (TENSOR_FLOOR_SMEM_BYTES, TENSOR_FLOOR_TOUCH_STRIDE, measure_tensor_floor_time,  # noqa: E402
                              tensor_floor_launch)
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ptxsource import ptx_dir  # noqa: E402

text = (ptx_dir() / "tensor_floor.ptx").read_text()


def sub(old, new):
    global text
    assert old in text, old
    text = text.replace(old, new, 1)


sub("    .reg .f32   %acc<128>;\n",
    "    .reg .f32   %acc<128>;\n    .reg .b64   %g_entry, %g_go, %g_prod, %g_end, %c_go, %c_prod, %dbg;\n    .reg .b32   %smid_r;\n")
sub("    mov.u32             %thread, %tid.x;\n",
    "    mov.u64             %g_entry, %globaltimer;\n    mov.u32             %thread, %tid.x;\n")
sub("    ld.param.u32        %quanta, [quanta];\n",
    "    mov.u64             %c_go, %clock64;\n    mov.u64             %g_go, %globaltimer;\n    ld.param.u32        %quanta, [quanta];\n")
sub("PRODUCTS_DONE:\n    wgmma.wait_group.sync.aligned 0;\n",
    "PRODUCTS_DONE:\n    wgmma.wait_group.sync.aligned 0;\n    mov.u64             %c_prod, %clock64;\n    mov.u64             %g_prod, %globaltimer;\n")
sub("STORED:\n    ret;\n",
    "STORED:\n    bar.sync            0;\n    mov.u64             %g_end, %globaltimer;\n    @!%p_tid0 bra       NO_STAMP;\n"
    "    mov.u32             %smid_r, %smid;\n    mov.u64             %dbg, %touch_p;\n"
    "    st.global.v2.u64    [%dbg+16], {%g_entry, %g_go};\n    st.global.v2.u64    [%dbg+32], {%g_prod, %g_end};\n"
    "    st.global.v2.u64    [%dbg+48], {%c_go, %c_prod};\n    st.global.u32       [%dbg+64], %smid_r;\n"
    "    st.global.u32       [%dbg+68], %q_cta;\nNO_STAMP:\n    ret;\n")

dev = driver.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
grid = dev.properties.sm_count
stamped = load(text, device=dev, target="sm_90a").kernel("tensor_floor")
timer = DriverTimer(dev, None)
touch = int(driver.call("cuMemAlloc", grid * TENSOR_FLOOR_TOUCH_STRIDE))
SHAPES = [("gemm 128x7168x16384", 2 * 128 * 7168 * 16384, 2 * 128 * 7168),
          ("gemm 128x4096x7168", 2 * 128 * 4096 * 7168, 2 * 128 * 4096),
          ("gemm 128x7168x2048", 2 * 128 * 7168 * 2048, 2 * 128 * 7168),
          ("dual 256x3072x4096", 4 * 256 * 3072 * 4096, 2 * 256 * 3072)]
for name, flops, out_bytes in SHAPES:
    quanta, out16 = tensor_floor_launch(flops, out_bytes, grid)
    out = int(driver.call("cuMemAlloc", grid * out16 * 16))

    def launch():
        stamped(touch, out, quanta, out16, TENSOR_FLOOR_TOUCH_STRIDE, grid=(grid, 1, 1), block=(256, 1, 1),
                shared_mem=TENSOR_FLOOR_SMEM_BYTES, stream=timer.stream)

    ts = measure(launch, timer, iters=50, warmup=5)
    plain = measure_tensor_floor_time(flops, out_bytes, dev, timer.stream, iters=50, warmup=5)
    rows = []
    for _ in range(5):      # one stamped launch after an L2 clear, five times
        timer.clear_l2()
        launch()
        timer.synchronize()
        buf = np.zeros(grid * TENSOR_FLOOR_TOUCH_STRIDE // 8, np.uint64)
        driver.call("cuMemcpyDtoH", buf, touch, buf.nbytes)
        rows.append(buf.reshape(grid, TENSOR_FLOOR_TOUCH_STRIDE // 8)[:, 2:9].astype(np.int64))
    r = np.concatenate(rows)
    g_entry, g_go, g_prod, g_end, c_go, c_prod, misc = r.T
    q = misc >> 32
    t0 = g_entry.reshape(5, grid).min(axis=1).repeat(grid)
    cyc = (c_prod - c_go) / np.maximum(q, 1)
    mhz = (c_prod - c_go) / np.maximum(g_prod - g_go, 1) * 1e3
    smids = (misc & 0xFFFFFFFF).reshape(5, grid)
    print(f"{name}: {quanta} quanta, {out16} stores per CTA; bench-method p10 plain {plain.p10_us:.2f} / stamped "
          f"{ts.p10_us:.2f} us (median {plain.median_us:.2f} / {ts.median_us:.2f})", flush=True)
    print(f"   cycles per quantum: median {np.median(cyc):.1f} (min {cyc.min():.1f}, max {cyc.max():.1f});"
          f" SM clock over the products: median {np.median(mhz):.0f} MHz (p10 {np.percentile(mhz, 10):.0f},"
          f" p90 {np.percentile(mhz, 90):.0f}); distinct SMs per launch {min(len(set(s)) for s in smids)}")
    print(f"   from the first CTA's entry (us, median over CTAs / max): entry {np.median(g_entry - t0) / 1e3:.2f} /"
          f" {(g_entry - t0).max() / 1e3:.2f}; products start {np.median(g_go - t0) / 1e3:.2f} /"
          f" {(g_go - t0).max() / 1e3:.2f}; products end {np.median(g_prod - t0) / 1e3:.2f} /"
          f" {(g_prod - t0).max() / 1e3:.2f}; stores end {np.median(g_end - t0) / 1e3:.2f} / {(g_end - t0).max() / 1e3:.2f}",
          flush=True)
    driver.call("cuMemFree", out)
driver.call("cuMemFree", touch)
print("done", time.strftime("%H:%M:%S"))
