"""The two ceilings every benchmark number is compared with, measured on the device.

* Read bandwidth: our own ``ptx/bw_read.ptx`` sums a buffer of at least 1 GiB
  with 16-byte non-coherent loads; TB/s = bytes read / median kernel time
  (decimal: 1 TB/s = 1e12 B/s).  This, not a datasheet figure, is the floor
  a memory-bound kernel such as GEMV is judged against.
* fp16 tensor-core rate: an 8192^3 fp16 matrix product through torch (cuBLAS),
  or cupy if torch is absent; TFLOP/s = 2*8192^3 / median time.  ``None``
  when neither is importable (nvfp4rt itself depends on neither).

Beside them, per shape: :func:`measure_read_time` (a plain read of an op's bytes) and
:func:`measure_tensor_floor_time` (an op's flops through the fp16 tensor pipe, ``ptx/tensor_floor.ptx``),
timed exactly like the op: the same-size floors the bench reports next to each shape.

Both ceilings are timed like everything else (:func:`nvfp4rt.bench.measure`: warm-up,
L2 cleared before each call, median of per-call events).  Measured values are
cached as JSON per device name + driver version, so ``nvfp4rt info`` can show
them without re-measuring; ``nvfp4rt bench`` re-measures unless asked to reuse.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable

__all__ = [
    "READ_BUFFER_BYTES",
    "measure_read_bandwidth",
    "measure_tensor_ceiling",
    "measure_tensor_floor_time",
    "tensor_floor_launch",
    "tensor_floor_kernel",
    "measure_ceilings",
    "get_ceilings",
    "cached_ceilings",
    "store_ceilings",
    "ceilings_path",
    "ceilings_key",
]

#: Bytes the bandwidth kernel reads per call: large against any L2 and any launch overhead.
READ_BUFFER_BYTES = 1 << 30
_BLOCK = 256
_BLOCKS_PER_SM = 8
_MATMUL_N = 8192


def ceilings_path() -> Path:
    """``$NVFP4RT_CACHE_DIR/ceilings.json``, else ``$XDG_CACHE_HOME`` (or ``~/.cache``) ``/nvfp4rt/ceilings.json``."""
    env = os.environ.get("NVFP4RT_CACHE_DIR")
    if env:
        return Path(env).expanduser() / "ceilings.json"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "nvfp4rt" / "ceilings.json"


def ceilings_key(device_name: str, driver_version: int | str) -> str:
    """The cache key: device name and driver version (a new driver can change both ceilings)."""
    return f"{device_name}|driver {driver_version}"


def _load_all(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def cached_ceilings(device_name: str, driver_version: int | str, path: Path | None = None) -> dict | None:
    """The stored ceilings for this device and driver, or None."""
    entry = _load_all(path or ceilings_path()).get(ceilings_key(device_name, driver_version))
    return dict(entry) if isinstance(entry, dict) else None


def store_ceilings(device_name: str, driver_version: int | str, ceilings: dict, path: Path | None = None) -> Path:
    """Merge ``ceilings`` into the JSON file under this device's key (temp file + ``os.replace``)."""
    path = path or ceilings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = _load_all(path)
    doc[ceilings_key(device_name, driver_version)] = dict(ceilings)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)
    return path


def measure_read_time(nbytes: int, device=None, stream=None, *, iters: int = 20, warmup: int = 3):
    """:class:`~nvfp4rt.bench.Timing` of ``bw_read`` streaming ``nbytes`` (rounded up to 16), L2 cleared per call.

    At the size of a memory-bound op this is the *same-size read floor*: what a plain, well-formed
    read of that many bytes costs under the same timing method (launch, ramp-up, the write-back of
    the dirty lines the L2 clear leaves, the tail), next to which the asymptotic bandwidth of
    :func:`measure_read_bandwidth` is optimistic for buffers of tens of MB.  Both builds of ``bw_read`` are timed
    (plain loads, and ``EVICT_FIRST=1``: an evict-first L2 policy, which skips most of those write-backs); the one
    with the lower p10 is returned, so the floor is the faster plain read.
    """
    from . import driver
    from .bench import DriverTimer, measure
    from .module import load
    from .ptxsource import ptx_dir

    if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes < 1:
        raise ValueError(f"nbytes must be a positive int, got {nbytes!r}")
    nbytes = -(-nbytes // 16) * 16
    timer = DriverTimer(device, stream)
    dev = timer.device
    kernels = [load(ptx_dir() / "bw_read.ptx", device=dev, constants={"EVICT_FIRST": ef}).kernel("bw_read")
               for ef in (0, 1)]
    src = int(driver.call("cuMemAlloc", nbytes))
    out = int(driver.call("cuMemAlloc", 16))
    try:
        # Not zeros: a non-trivial pattern, written once (reads do not depend on it, but nothing is left to chance).
        driver.call("cuMemsetD32", src, 0x3F8003A5, nbytes // 4)
        driver.call("cuMemsetD32", out, 0, 4)
        grid = dev.properties.sm_count * _BLOCKS_PER_SM
        n16 = nbytes // 16

        timings = []
        for kernel in kernels:
            def launch(kernel=kernel):
                kernel(src, n16, out, grid=(grid, 1, 1), block=(_BLOCK, 1, 1), shared_mem=0,
                       stream=timer.stream)

            timings.append(measure(launch, timer, iters=iters, warmup=warmup))
        return min(timings, key=lambda tm: tm.p10_us)
    finally:
        driver.call("cuMemFree", src)
        driver.call("cuMemFree", out)


#: flops of one ``tensor_floor`` quantum: a wgmma.m64n256k16 (2 * 64 * 256 * 16).
TENSOR_FLOOR_QUANTUM_FLOPS = 2 * 64 * 256 * 16
#: Dynamic shared memory of ``tensor_floor``: alignment slack, the operand tiles, the parked first bytes and the
#: stream's mbarriers (padded to 1 KB), then the stream's ring of four 16 KB buffers.
TENSOR_FLOOR_SMEM_BYTES = 1024 + 11264 + 4 * 16384
#: Bytes between two CTAs' first reads (each its own page of the touch buffer).
TENSOR_FLOOR_TOUCH_STRIDE = 4096


def tensor_floor_launch(flops: int, out_bytes: int, grid: int, in_bytes: int = 0) -> tuple[int, int, int]:
    """``(quanta, out16, src16)`` for ``ptx/tensor_floor.ptx``: wgmma quanta covering ``flops``, 16-byte stores per
    CTA covering ``out_bytes`` and 16-byte units streamed per CTA covering ``in_bytes``, over ``grid`` CTAs (all
    rounded up, so the kernel never does less than the op)."""
    for name, v, lo in (("flops", flops, 1), ("out_bytes", out_bytes, 0), ("grid", grid, 1),
                        ("in_bytes", in_bytes, 0)):
        if not isinstance(v, int) or isinstance(v, bool) or v < lo:
            raise ValueError(f"{name} must be an int >= {lo}, got {v!r}")
    quanta = -(-flops // TENSOR_FLOOR_QUANTUM_FLOPS)
    if quanta >= 1 << 32:
        raise ValueError(f"flops={flops} is too many for one tensor_floor launch (at most {(1 << 32) - 1} quanta "
                         f"of {TENSOR_FLOOR_QUANTUM_FLOPS} flops)")
    src16 = -(-in_bytes // (16 * grid))
    if src16 >= 1 << 28:
        raise ValueError(f"in_bytes={in_bytes} is too many for one tensor_floor launch (at most {(1 << 28) - 1} "
                         "16-byte units per CTA)")
    return quanta, -(-out_bytes // (16 * grid)), src16


def measure_tensor_floor_time(flops: int, out_bytes: int, device=None, stream=None, *, in_bytes: int = 0,
                              iters: int = 20, warmup: int = 3):
    """:class:`~nvfp4rt.bench.Timing` of ``ptx/tensor_floor.ptx`` doing ``flops`` of fp16 wgmma and storing
    ``out_bytes``, one CTA per SM, timed like the ops (L2 cleared before each call): the *same-size tensor floor*.

    Hopper has no FP4 tensor instruction and NVFP4 products are exact in fp16 but not in fp8, so an exact
    NVFP4 GEMM-family kernel must run its flops through the fp16 tensor pipe.  This kernel does only that,
    on zero operands already in shared memory, after one 16-byte global read per CTA (no CTA can multiply
    before its first bytes arrive) and before storing the output bytes: no operand traffic, decode, scales,
    pipeline, reduction or second launch.  Its time is a lower bound for the op at that size, beside which
    the large-GEMM ceiling of :func:`measure_tensor_ceiling` is optimistic for a few microseconds of work.
    ``in_bytes`` > 0 also streams that many bytes from global memory into shared memory (bulk copies, each CTA
    its share) beside the products, which never wait for them: the floor of an op that must also read its
    inputs once, perfectly overlapped.  Then both builds are timed (plain copies, and copies with an
    evict-first L2 policy, which after the L2 clear skips most write-backs of dirty lines) and the one with
    the lower p10 is returned, so the floor is the faster stream.  Raises NotImplementedError off Hopper (wgmma is sm_90a only).
    """
    from . import driver
    from .bench import DriverTimer, measure

    timer = DriverTimer(device, stream)
    dev = timer.device
    if dev.arch != "sm_90a":
        raise NotImplementedError(f"the tensor floor kernel needs wgmma (sm_90a); this device is {dev.arch}")
    grid = dev.properties.sm_count
    quanta, out16, src16 = tensor_floor_launch(flops, out_bytes, grid, in_bytes)
    # with an input stream, both builds (plain copies, evict-first copies): the floor is the faster one
    kernels = [tensor_floor_kernel(dev, ef) for ef in ((0, 1) if src16 else (0,))]
    touch = int(driver.call("cuMemAlloc", grid * TENSOR_FLOOR_TOUCH_STRIDE))
    out = int(driver.call("cuMemAlloc", max(16, grid * out16 * 16)))
    src = int(driver.call("cuMemAlloc", max(16, grid * src16 * 16)))
    try:
        driver.call("cuMemsetD32", touch, 0x3C003C00, grid * TENSOR_FLOOR_TOUCH_STRIDE // 4)
        driver.call("cuMemsetD32", src, 0x3C003C00, max(16, grid * src16 * 16) // 4)

        timings = []
        for kernel in kernels:
            def launch(kernel=kernel):
                kernel(touch, out, src, quanta, out16, src16, TENSOR_FLOOR_TOUCH_STRIDE, grid=(grid, 1, 1),
                       block=(256, 1, 1), shared_mem=TENSOR_FLOOR_SMEM_BYTES, stream=timer.stream)

            timings.append(measure(launch, timer, iters=iters, warmup=warmup))
        return min(timings, key=lambda tm: tm.p10_us)
    finally:
        for ptr in (touch, out, src):
            driver.call("cuMemFree", ptr)


def tensor_floor_kernel(device, evict_first: int = 0):
    """``tensor_floor`` of ``ptx/tensor_floor.ptx`` on ``device`` (``evict_first=1``: the input stream's copies
    with an evict-first L2 policy), its dynamic shared memory limit raised."""
    from .module import load
    from .ptxsource import ptx_dir

    kernel = load(ptx_dir() / "tensor_floor.ptx", device=device,
                  constants={"EVICT_FIRST": int(bool(evict_first))}).kernel("tensor_floor")
    kernel.set_max_dynamic_shared(TENSOR_FLOOR_SMEM_BYTES)
    return kernel


def measure_read_bandwidth(device=None, stream=None, *, nbytes: int = READ_BUFFER_BYTES, iters: int = 20,
                           warmup: int = 3) -> float:
    """Read bandwidth in TB/s from ``bw_read`` over a buffer of ``nbytes`` (>= 1 GiB by default)."""
    if not isinstance(nbytes, int) or nbytes < 16 or nbytes % 16:
        raise ValueError(f"nbytes must be a positive multiple of 16, got {nbytes!r}")
    t = measure_read_time(nbytes, device, stream, iters=iters, warmup=warmup)
    return nbytes / (t.median_us * 1e-6) / 1e12


def measure_tensor_ceiling(l2_bytes: int, *, n: int = _MATMUL_N, iters: int = 20,
                           warmup: int = 3) -> tuple[float | None, str | None]:
    """(TFLOP/s, source) of an n^3 fp16 matrix product via torch, else cupy; (None, None) if neither."""
    from .bench import CupyTimer, TorchTimer, measure

    try:
        import torch

        if not torch.cuda.is_available():
            raise ImportError("torch has no CUDA")
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(n, n, device="cuda", dtype=torch.float16, generator=g)
        b = torch.randn(n, n, device="cuda", dtype=torch.float16, generator=g)
        c = torch.empty(n, n, device="cuda", dtype=torch.float16)
        t = measure(lambda: torch.matmul(a, b, out=c), TorchTimer(l2_bytes), iters=iters, warmup=warmup)
        del a, b, c
        return 2.0 * n ** 3 / (t.median_us * 1e-6) / 1e12, f"torch {torch.__version__} matmul fp16 {n}^3"
    except ImportError:
        pass
    try:
        import cupy

        rs = cupy.random.RandomState(0)
        a = rs.standard_normal((n, n), dtype=cupy.float32).astype(cupy.float16)
        b = rs.standard_normal((n, n), dtype=cupy.float32).astype(cupy.float16)
        c = cupy.empty((n, n), dtype=cupy.float16)
        t = measure(lambda: cupy.matmul(a, b, out=c), CupyTimer(l2_bytes), iters=iters, warmup=warmup)
        return 2.0 * n ** 3 / (t.median_us * 1e-6) / 1e12, f"cupy {cupy.__version__} matmul fp16 {n}^3"
    except ImportError:
        return None, None


def measure_ceilings(device=None, *, log: Callable[[str], object] = print) -> dict:
    """Measure both ceilings now; returns ``{read_tbps, fp16_tflops, fp16_source, measured_at, read_bytes}``."""
    from .bench import _resolve_device, utc_now

    dev = _resolve_device(device)
    log(f"[ceilings] measuring read bandwidth ({READ_BUFFER_BYTES >> 20} MiB, bw_read.ptx) ...")
    read = measure_read_bandwidth(dev)
    log(f"[ceilings] read {read:.2f} TB/s; measuring fp16 tensor-core rate ...")
    tflops, source = measure_tensor_ceiling(dev.properties.l2_bytes)
    log(f"[ceilings] fp16 {'n/a (no torch or cupy)' if tflops is None else f'{tflops:.0f} TFLOP/s'}")
    return {
        "read_tbps": read,
        "read_bytes": READ_BUFFER_BYTES,
        "fp16_tflops": tflops,
        "fp16_source": source,
        "measured_at": utc_now(),
    }


def get_ceilings(device=None, *, reuse: bool = False, log: Callable[[str], object] = print) -> dict:
    """The ceilings for ``device``: cached ones when ``reuse`` and present, else measured now and cached."""
    from . import driver
    from .bench import _resolve_device

    dev = _resolve_device(device)
    name, drv = dev.properties.name, driver.driver_version()
    if reuse:
        hit = cached_ceilings(name, drv)
        if hit is not None:
            log(f"[ceilings] reusing cached ceilings measured {hit.get('measured_at')}")
            return hit
    c = measure_ceilings(dev, log=log)
    try:
        store_ceilings(name, drv, c)
    except OSError as exc:  # a read-only home must not fail a benchmark
        log(f"[ceilings] could not cache ceilings: {exc}")
    return c
