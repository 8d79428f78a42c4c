"""The same-size floors (ptx/tensor_floor.ptx, nvfp4rt.ceilings.measure_tensor_floor_time): the tensor floor and,
with the op's inputs streamed beside the products, the op floor.

CPU: the launch arithmetic (never less work than the op), the kernel's assembly in both builds (no spills, no
serialised wgmmas, every stream copy hinted in the evict-first build), the adapters' output and input bytes (the
bench record and its columns are in tests/test_bench.py).
GPU: the kernel stores exactly its share of the output, streams its input share when asked (and takes the
time that needs), its time grows with the flops, and it stays below the library's own GEMM at the same size.
"""
import numpy as np
import pytest

from conftest import requires_gpu, requires_ptxas
from nvfp4rt import bench
from nvfp4rt.ceilings import TENSOR_FLOOR_QUANTUM_FLOPS, tensor_floor_launch


# ----------------------------------------------------------------------------- launch arithmetic

@pytest.mark.parametrize("m, n, k", [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048), (1, 1, 64),
                                     (40, 7168, 2048), (129, 7, 256)])
def test_launch_covers_the_flops_and_output_with_less_than_one_quantum_or_chunk_to_spare(m, n, k):
    flops, out_bytes, in_bytes, grid = 2 * m * n * k, 2 * m * n, (m + n) * (k // 2 + k // 16), 132
    quanta, out16, src16 = tensor_floor_launch(flops, out_bytes, grid, in_bytes)
    assert quanta * TENSOR_FLOOR_QUANTUM_FLOPS >= flops > (quanta - 1) * TENSOR_FLOOR_QUANTUM_FLOPS
    assert out16 * 16 * grid >= out_bytes > (out16 - 1) * 16 * grid
    assert src16 * 16 * grid >= in_bytes > (src16 - 1) * 16 * grid
    assert tensor_floor_launch(flops, out_bytes, grid)[2] == 0  # no input bytes: no stream


def test_competition_gemm_shapes_are_whole_quanta():
    """m = 128 GEMMs are whole m64n256k16 products: the floor does exactly the op's flops."""
    assert tensor_floor_launch(2 * 128 * 7168 * 2048, 2 * 128 * 7168, 132) == (7168, 869, 0)
    assert TENSOR_FLOOR_QUANTUM_FLOPS == 2 * 64 * 256 * 16


@pytest.mark.parametrize("kw, match", [
    (dict(flops=0, out_bytes=16, grid=1), "flops"),
    (dict(flops=1.5, out_bytes=16, grid=1), "flops"),
    (dict(flops=True, out_bytes=16, grid=1), "flops"),
    (dict(flops=1, out_bytes=-1, grid=1), "out_bytes"),
    (dict(flops=1, out_bytes=0, grid=0), "grid"),
    (dict(flops=TENSOR_FLOOR_QUANTUM_FLOPS << 32, out_bytes=0, grid=1), "too many"),
    (dict(flops=1, out_bytes=0, grid=1, in_bytes=-16), "in_bytes"),
    (dict(flops=1, out_bytes=0, grid=1, in_bytes=16 << 28), "too many"),
])
def test_launch_rejects_bad_sizes_by_name(kw, match):
    with pytest.raises(ValueError, match=match):
        tensor_floor_launch(**kw)


# ----------------------------------------------------------------------------- the kernel, offline

def _assemble(text=None, evict_first=0):
    from nvfp4rt.assemble import assemble
    from nvfp4rt.ptxsource import ptx_dir

    if text is not None:
        return assemble(text, "sm_90a")
    return assemble(ptx_dir() / "tensor_floor.ptx", "sm_90a", {"EVICT_FIRST": evict_first})


@requires_ptxas
@pytest.mark.parametrize("evict_first", [0, 1])
def test_kernel_assembles_without_spills_or_serialised_wgmmas(evict_first):
    """ptxas must keep the wgmmas asynchronous (a "Potential Performance Loss" note such as C7520 means each
    wgmma waits for the last, and the floor would no longer be a floor), hold the 128 accumulators in
    registers, and use enough of them that no SM can take two CTAs."""
    rep = _assemble(evict_first=evict_first)
    assert "Potential Performance Loss" not in rep.log, rep.log
    f = rep.entries["tensor_floor"]
    assert f.spill_stores == 0 and f.spill_loads == 0 and f.local_bytes == 0
    assert f.registers * 256 * 2 > 65536, "two CTAs could share an SM"


@pytest.mark.parametrize("evict_first, hinted", [(0, 0), (1, 3)])
def test_evict_first_build_hints_every_stream_copy(evict_first, hinted):
    """EVICT_FIRST=1 puts the evict-first policy on all three bulk copies of the stream (first chunks, inside the
    product loop, the rest); the plain build has none."""
    from nvfp4rt.ptxsource import ptx_dir, render

    text = render((ptx_dir() / "tensor_floor.ptx").read_text(), "sm_90a", {"EVICT_FIRST": evict_first})
    code = [ln for ln in text.splitlines() if "cp.async.bulk" in ln and not ln.lstrip().startswith("//")]
    assert len(code) == 3
    assert sum("L2::cache_hint" in ln and ln.rstrip().endswith("%pol_ef;") for ln in code) == hinted


@requires_ptxas
def test_serialising_companion_is_caught():
    """The check above can fail: a wgmma count that differs between the warpgroups (what the kernel avoids)
    makes ptxas serialise the wgmmas and say so."""
    from nvfp4rt.ptxsource import ptx_dir

    from nvfp4rt.ptxsource import render

    text = render((ptx_dir() / "tensor_floor.ptx").read_text(), "sm_90a", {"EVICT_FIRST": 0})
    line = "    shr.u32             %q_wg, %q_cta, 1;"
    assert line in text
    broken = text.replace(line, line + "\n    shr.u32             %zend, %thread, 7;"
                                       "\n    add.u32             %q_wg, %q_wg, %zend;")
    assert "Potential Performance Loss" in _assemble(broken).log


# ----------------------------------------------------------------------------- bench records

@pytest.mark.parametrize("op, shape, out_bytes", [
    ("gemm", {"m": 128, "n": 7168, "k": 2048}, 2 * 128 * 7168),
    ("dual_gemm", {"m": 256, "n": 3072, "k": 4096}, 2 * 256 * 3072),
    ("grouped_gemm", {"case": 3}, 2 * (192 + 320) * 3072),
])
def test_compute_bound_adapters_count_their_output_and_input_bytes(op, shape, out_bytes):
    bench._load_builtin_ops()
    a = bench.get_op(op)()
    assert a.out_bytes(shape) == out_bytes
    assert a.in_bytes(shape) == a.bytes(shape) - out_bytes > 0


# ----------------------------------------------------------------------------- on the GPU

def _hopper():
    from nvfp4rt import driver

    dev = driver.device()
    if dev.arch != "sm_90a":
        pytest.skip(f"the tensor floor kernel needs sm_90a, this device is {dev.arch}")
    return dev


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("quanta, src16, evict_first", [(0, 0, 0), (1, 0, 0), (131, 0, 0), (133, 1, 0), (3, 4096, 1),
                                                       (0, 5000, 0), (1001, 80000, 0), (1001, 80000, 1)])
def test_kernel_stores_exactly_its_share_of_the_output(quanta, src16, evict_first):
    """out16 chunks per CTA come back as zeros (fp16 of the zero products); the poison past them stays; the
    stream (1 to 79 chunks per CTA, across the ring's four buffers) leaves its source as it was."""
    from nvfp4rt import driver
    from nvfp4rt.ceilings import TENSOR_FLOOR_SMEM_BYTES, TENSOR_FLOOR_TOUCH_STRIDE, tensor_floor_kernel

    dev = _hopper()
    grid = dev.properties.sm_count
    out16 = 3
    k = tensor_floor_kernel(dev, evict_first)
    touch = driver.call("cuMemAlloc", grid * TENSOR_FLOOR_TOUCH_STRIDE)
    nbytes = grid * out16 * 16 + 4096
    out = driver.call("cuMemAlloc", nbytes)
    src_bytes = max(16, grid * src16 * 16)
    src = driver.call("cuMemAlloc", src_bytes)
    try:
        driver.call("cuMemsetD8", out, 0xFF, nbytes)
        driver.call("cuMemsetD8", src, 0x5A, src_bytes)
        k(int(touch), int(out), int(src), quanta, out16, src16, TENSOR_FLOOR_TOUCH_STRIDE, grid=(grid, 1, 1),
          block=(256, 1, 1), shared_mem=TENSOR_FLOOR_SMEM_BYTES, stream=None)
        driver.call("cuCtxSynchronize")
        got = np.zeros(nbytes, np.uint8)
        driver.call("cuMemcpyDtoH", got, out, nbytes)
        src_back = np.zeros(src_bytes, np.uint8)
        driver.call("cuMemcpyDtoH", src_back, src, src_bytes)
    finally:
        for ptr in (touch, out, src):
            driver.call("cuMemFree", ptr)
    assert not got[:grid * out16 * 16].any()
    assert (got[grid * out16 * 16:] == 0xFF).all()
    assert (src_back == 0x5A).all()


@pytest.mark.gpu
@requires_gpu
def test_stream_reads_the_input_bytes():
    """With the input stream on, 2 GiB cannot take less than at 10 TB/s (200 us, over 3x any HBM3e here); without
    it, the same launch is a few microseconds.  A stream that skipped its copies would fail the first bound."""
    from nvfp4rt.ceilings import measure_tensor_floor_time

    _hopper()
    with_stream = measure_tensor_floor_time(1, 0, in_bytes=2 << 30, iters=5, warmup=1).median_us
    without = measure_tensor_floor_time(1, 0, iters=5, warmup=1).median_us
    assert with_stream > (2 << 30) / 10e12 * 1e6
    assert without < 50


@pytest.mark.gpu
@requires_gpu
def test_floor_time_grows_with_the_flops():
    """Eight times the tensor work takes longer, by at least half the ideal difference at 1000 TFLOP/s."""
    from nvfp4rt.ceilings import measure_tensor_floor_time

    _hopper()
    small = 2 * 128 * 7168 * 2048
    t1 = measure_tensor_floor_time(small, 2 * 128 * 7168, iters=20, warmup=2).median_us
    t8 = measure_tensor_floor_time(8 * small, 2 * 128 * 7168, iters=20, warmup=2).median_us
    assert t8 - t1 > 0.5 * 7 * small / 1000e12 * 1e6


@pytest.mark.gpu
@requires_gpu
def test_floor_is_below_the_librarys_gemm_and_lands_in_the_bench_record():
    """A lower bound must sit below a real kernel at the same size (the bench records both)."""
    _hopper()
    res = bench.run_bench("gemm", ["128,7168,2048"], iters=20, warmup=2, with_peers=False, reuse_ceilings=True,
                          seed=0, log=lambda m: None)
    rec = res["shapes"][0]
    assert rec["check"] == "ok"
    assert 0 < rec["tensor_floor_us"] < rec["median_us"]
    assert 0 < rec["pct_of_tensor_floor"] < 100
    # the op floor does the tensor floor's work and streams 8.4 MB more: not faster (beyond noise), still below us
    assert 0.9 * rec["tensor_floor_us"] < rec["op_floor_us"] < rec["median_us"]
