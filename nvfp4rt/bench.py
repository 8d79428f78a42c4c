"""The benchmark harness shared by every op (GEMV, GEMM, dual GEMM, grouped GEMM).

What a number here means (docs/bench.md has the long form):

* Each timed call is preceded by an L2 clear: a write of twice the device's L2
  size on the same stream, so no call finds its operands in L2 left there by
  the previous one (the third competition GEMV shape fits in an H100's L2).
* Each call is timed alone with a pair of device events recorded around it on
  the stream it runs on; the L2 clear sits outside the pair.  After the clear
  a ``bench_spin`` kernel keeps the GPU busy for :data:`SPIN_NS` nanoseconds
  while the host records the start event and runs the call, so the host's own
  time (argument checks, plan lookup) never shows up as device time.
* After ``warmup`` untimed calls (module load, JIT, handle creation), at least
  ``iters`` calls are timed and the median is reported, with p10 and p90 to
  show the spread.
* The same launches time differently by their position on the stream modulo
  four launches (about 1 µs apart on the H100, even for no-op kernels): a
  no-op launch before every fourth timed call, outside the events, spreads the
  calls evenly over the four phases, whatever the call's own launch count
  (:func:`phase_pads`).
* Separately, :func:`time_back_to_back` measures host time per call over
  back-to-back calls through the Python API: launch overhead plus kernel.  The
  bench reports the median of :data:`API_REPEATS` such runs of 50 calls: one
  device hiccup (a 5-20 ms stall, seen on the H100) inside a single run of 50
  inflated the figure by up to 4x (docs/device-logs/2026-11-22-session16/).

Peers (cuBLAS through torch or cupy) are timed with the same procedure on the
framework's own current stream, with the framework's events and an L2 clear
done by a framework op of the same size (see :class:`TorchTimer`).

Results are JSON files in ``bench/results/``; ``BENCHMARKS.md`` is generated
from them by :func:`render_markdown` and never edited by hand.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping

import numpy as np

__all__ = [
    "Timing",
    "Peer",
    "OpBench",
    "BenchCheckError",
    "time_op",
    "time_back_to_back",
    "API_REPEATS",
    "measure",
    "phase_pads",
    "PHASE_PERIOD",
    "DriverTimer",
    "TorchTimer",
    "CupyTimer",
    "register_op",
    "get_op",
    "op_names",
    "shape_result",
    "build_result",
    "write_result",
    "read_results",
    "render_markdown",
    "write_markdown",
    "result_filename",
    "device_slug",
    "utc_now",
    "checkout_root",
    "default_results_dir",
    "git_revision",
    "run_bench",
]

RESULT_SCHEMA = 1


# =========================================================================== timing

@dataclass(frozen=True)
class Timing:
    """Per-call device times of one timed run, in microseconds.

    ``median_us`` is the number we report; ``p10_us``/``p90_us`` show the spread
    (linear interpolation between order statistics, numpy's default).
    """

    median_us: float
    p10_us: float
    p90_us: float
    samples: tuple[float, ...] = field(repr=False)

    @classmethod
    def from_samples(cls, samples_us: Iterable[float]) -> "Timing":
        s = np.asarray(list(samples_us), dtype=np.float64)
        if s.ndim != 1 or s.size == 0:
            raise ValueError("samples_us must be a non-empty sequence of times in microseconds")
        if not np.all(np.isfinite(s)) or np.any(s < 0):
            raise ValueError("samples_us must be finite and non-negative")
        p10, med, p90 = np.percentile(s, [10, 50, 90])
        return cls(float(med), float(p10), float(p90), tuple(float(x) for x in s))

    @property
    def n(self) -> int:
        return len(self.samples)


class _TimerBase:
    """What :func:`measure` needs from a device: events, an L2 clear and a sync."""

    def event(self):  # pragma: no cover - interface
        raise NotImplementedError

    def record(self, ev) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def elapsed_ms(self, start, end) -> float:  # pragma: no cover - interface
        raise NotImplementedError

    def clear_l2(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def _stream(self):  # pragma: no cover - interface
        """The timed stream's driver handle."""
        raise NotImplementedError

    def pad(self, launches: int) -> None:
        """Queue ``launches`` no-op kernel launches (``bench_spin`` with 0 ns) on the timed stream."""
        for _ in range(launches):
            spin(self._stream(), getattr(self, "device", None), 0)

    def synchronize(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def release(self, events) -> None:
        """Free events made by :meth:`event` (no-op where the framework frees them)."""


#: The launch phase's period.  On the H100 (driver 580) a fixed sequence of launches, even two no-op kernels,
#: times in one of four levels up to 1.4 µs apart, set by its position on the stream modulo four launches and steady
#: from call to call (docs/device-logs/2026-11-27-session38/, logs 01-04; docs/bench.md, "The launch phase").
PHASE_PERIOD = 4


def phase_pads(iters: int, period: int = PHASE_PERIOD) -> list[int]:
    """No-op launches to queue before each of ``iters`` timed calls: one before every ``period``-th call after
    the first, none before the others.

    Whatever the number L of launches per timed call (the clear's and the call's own, unknown to the harness),
    call i = period*a + b starts at phase p0 + a + i*L (mod period).  Within each block of period**2 calls, for
    each b the period values of a give every phase once, so every phase holds exactly ``period`` calls of the
    block: the median is taken over the phases evenly instead of in whichever phase the stream happened to be."""
    _check_counts(iters, 0)
    if not isinstance(period, int) or isinstance(period, bool) or period < 1:
        raise ValueError(f"period must be an int >= 1, got {period!r}")
    return [1 if i and i % period == 0 else 0 for i in range(iters)]


def _check_counts(iters, warmup) -> None:
    if not isinstance(iters, int) or isinstance(iters, bool) or iters < 1:
        raise ValueError(f"iters must be an int >= 1, got {iters!r}")
    if not isinstance(warmup, int) or isinstance(warmup, bool) or warmup < 0:
        raise ValueError(f"warmup must be an int >= 0, got {warmup!r}")


def measure(fn: Callable[[], object], timer: _TimerBase, *, iters: int = 100, warmup: int = 10,
            clear_l2: bool = True, spread_phases: bool = True) -> Timing:
    """Time ``fn`` with ``timer``: warm up, then per call: [no-op launches], [clear L2], event, fn(), event.

    ``spread_phases``: queue the no-op launches of :func:`phase_pads` before the calls they are due, so the
    timed calls fall evenly on the four launch phases (the module docstring); ``False`` times every call in
    whatever phase the stream is in.  All events are created up front and read after one final synchronize, so
    the host never stalls the stream between calls.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    _check_counts(iters, warmup)
    pads = phase_pads(iters) if spread_phases else [0] * iters
    for _ in range(warmup):
        if clear_l2:
            timer.clear_l2()
        fn()
    timer.synchronize()
    starts = [timer.event() for _ in range(iters)]
    ends = [timer.event() for _ in range(iters)]
    try:
        for i in range(iters):
            if pads[i]:
                timer.pad(pads[i])
            if clear_l2:
                timer.clear_l2()
            timer.record(starts[i])
            fn()
            timer.record(ends[i])
        timer.synchronize()
        samples = [1000.0 * timer.elapsed_ms(a, b) for a, b in zip(starts, ends)]
    finally:
        timer.release(starts + ends)
    return Timing.from_samples(samples)


# --------------------------------------------------------------------- our device

_L2_SCRATCH: dict[int, tuple[int, int]] = {}  # device ordinal -> (device pointer, bytes)

#: How long ``bench_spin`` holds the GPU after each L2 clear: above the host time of the slowest
#: Python API path we time (about 0.25 ms), so the timed window never waits for the host.
SPIN_NS = 500_000
_SPIN_KERNELS: dict[int, object] = {}


def spin(stream, device=None, ns: int = SPIN_NS) -> None:
    """Queue ``ptx/bench_spin.ptx`` on ``stream``: the GPU idles ``ns`` ns without touching memory."""
    from .module import load
    from .ptxsource import ptx_dir

    dev = _resolve_device(device)
    kernel = _SPIN_KERNELS.get(dev.ordinal)
    if kernel is None:
        kernel = load(ptx_dir() / "bench_spin.ptx", device=dev).kernel("bench_spin")
        _SPIN_KERNELS[dev.ordinal] = kernel
    kernel(int(ns), grid=(1, 1, 1), block=(32, 1, 1), shared_mem=0, stream=stream)


def _l2_scratch(dev) -> tuple[int, int]:
    """A buffer of 2x the device's L2 size, allocated once per device and kept."""
    from . import driver

    hit = _L2_SCRATCH.get(dev.ordinal)
    if hit is None:
        dev.activate()
        nbytes = 2 * max(int(dev.properties.l2_bytes), 1 << 20)
        ptr = driver.call("cuMemAlloc", nbytes)
        hit = (int(ptr), nbytes)
        _L2_SCRATCH[dev.ordinal] = hit
    return hit


def _stream_handle(stream):
    """The ``CUstream`` of an nvfp4rt Stream, a ``CUstream``, or an int handle (0 = legacy default)."""
    from . import driver

    CUstream = driver.raw.CUstream
    if isinstance(stream, CUstream):
        return stream
    if isinstance(stream, int) and not isinstance(stream, bool):
        return CUstream(stream)
    for attr in ("handle", "raw", "cu_stream"):
        h = getattr(stream, attr, None)
        if h is not None:
            return h if isinstance(h, CUstream) else CUstream(int(h))
    raise TypeError(f"stream must be an nvfp4rt Stream, a CUstream or an int handle, got {type(stream).__name__}")


def _resolve_device(device):
    from . import driver

    if device is None:
        return driver.device()
    if isinstance(device, int) and not isinstance(device, bool):
        return driver.device(device)
    if isinstance(device, driver.Device):
        return device.activate()
    raise TypeError(f"device must be an nvfp4rt Device, an ordinal or None, got {type(device).__name__}")


def _resolve_stream(stream, dev):
    if stream is None:
        from .stream import default_stream

        return default_stream(dev)
    return stream


class DriverTimer(_TimerBase):
    """Times work on one of our streams: driver events, L2 clear by ``cuMemsetD8Async``.

    The clear writes 2x the L2 size on the same stream just before the start
    event, so the kernel begins with an L2 full of unrelated (dirty) lines, as
    it would after other work in a real program.
    """

    def __init__(self, device=None, stream=None):
        self.device = _resolve_device(device)
        self.stream = _resolve_stream(stream, self.device)
        self._h = _stream_handle(self.stream)
        self._scratch_ptr, self.l2_clear_bytes = _l2_scratch(self.device)
        self._fill = 0

    def event(self):
        from . import driver

        return driver.call("cuEventCreate", driver.raw.CUevent_flags.CU_EVENT_DEFAULT)

    def record(self, ev) -> None:
        from . import driver

        driver.call("cuEventRecord", ev, self._h)

    def elapsed_ms(self, start, end) -> float:
        from . import driver

        return float(driver.call("cuEventElapsedTime", start, end))

    def clear_l2(self) -> None:
        from . import driver

        self._fill = (self._fill + 1) & 0xFF  # a changing value: no chance of a no-op write
        driver.call("cuMemsetD8Async", self._scratch_ptr, self._fill, self.l2_clear_bytes, self._h)
        spin(self._h, self.device)

    def _stream(self):
        return self._h

    def synchronize(self) -> None:
        from . import driver

        driver.call("cuStreamSynchronize", self._h)

    def release(self, events) -> None:
        from . import driver

        for ev in events:
            driver.call("cuEventDestroy", ev)


class TorchTimer(_TimerBase):
    """Times torch work on torch's current stream with ``torch.cuda.Event``.

    The L2 clear is ``zero_()`` of a uint8 tensor of 2x the L2 size on the same
    (torch current) stream: a device-side write like our memset.  We do not
    force torch onto our stream: each framework is timed on the stream it would
    use in a user's program, with that framework's own events.
    """

    def __init__(self, l2_bytes: int):
        import torch

        self.torch = torch
        self.l2_clear_bytes = 2 * int(l2_bytes)
        self._buf = torch.empty(self.l2_clear_bytes, dtype=torch.uint8, device="cuda")

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def record(self, ev) -> None:
        ev.record()

    def elapsed_ms(self, start, end) -> float:
        return float(start.elapsed_time(end))

    def clear_l2(self) -> None:
        self._buf.zero_()
        spin(self._stream())

    def _stream(self):
        from . import driver

        return driver.raw.CUstream(int(self.torch.cuda.current_stream().cuda_stream))

    def synchronize(self) -> None:
        self.torch.cuda.current_stream().synchronize()


class CupyTimer(_TimerBase):
    """Like :class:`TorchTimer`, for cupy's current stream and ``cupy.cuda.Event``."""

    def __init__(self, l2_bytes: int):
        import cupy

        self.cupy = cupy
        self.l2_clear_bytes = 2 * int(l2_bytes)
        self._buf = cupy.empty(self.l2_clear_bytes, dtype=cupy.uint8)

    def event(self):
        return self.cupy.cuda.Event()

    def record(self, ev) -> None:
        ev.record()

    def elapsed_ms(self, start, end) -> float:
        return float(self.cupy.cuda.get_elapsed_time(start, end))

    def clear_l2(self) -> None:
        self._buf.fill(0)
        spin(self._stream())

    def _stream(self):
        from . import driver

        return driver.raw.CUstream(int(self.cupy.cuda.get_current_stream().ptr))

    def synchronize(self) -> None:
        self.cupy.cuda.get_current_stream().synchronize()


def time_op(fn: Callable[[], object], *, device=None, stream=None, iters: int = 100, warmup: int = 10,
            clear_l2: bool = True, spread_phases: bool = True) -> Timing:
    """Median per-call device time of ``fn`` (which must enqueue its work on ``stream``).

    ``device``: an nvfp4rt Device or ordinal (default: the current one);
    ``stream``: an nvfp4rt Stream (default: the device's default stream);
    ``spread_phases``: see :func:`measure`.
    """
    return measure(fn, DriverTimer(device, stream), iters=iters, warmup=warmup, clear_l2=clear_l2,
                   spread_phases=spread_phases)


#: runs of 50 back-to-back calls behind the bench's API figure (their median is reported)
API_REPEATS = 5


def time_back_to_back(fn: Callable[[], object], n: int = 50, *, synchronize: Callable[[], object] | None = None,
                      warmup: int = 1) -> float:
    """Host-measured microseconds per call over ``n`` back-to-back calls.

    Synchronizes before starting the clock and after the last call, so the
    figure is (host launch overhead + kernel, overlapped) per call: what a
    Python caller sees when it issues calls in a loop.  ``synchronize``
    defaults to ``cuCtxSynchronize`` on the current context.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be an int >= 1, got {n!r}")
    if synchronize is None:
        from . import driver

        def synchronize():
            driver.call("cuCtxSynchronize")
    for _ in range(warmup):
        fn()
    synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    synchronize()
    return (time.perf_counter() - t0) * 1e6 / n


# =========================================================================== op registry

class BenchCheckError(AssertionError):
    """An op's output did not match the reference before timing: no number is reported."""


@dataclass(frozen=True)
class Peer:
    """A peer implementation to time next to ours.

    ``framework`` picks the timer: ``"torch"``, ``"cupy"`` or ``"nvfp4rt"``.
    """

    fn: Callable[[], object]
    framework: str

    def __call__(self):
        return self.fn()


class OpBench:
    """Adapter between the harness and one op.  Subclass per op and :func:`register_op` it.

    ``shape_keys`` name the dimensions (``("m", "k", "l")`` for GEMV) and fix
    the order of ``m,k,l`` strings on the command line; ``presets`` maps a preset
    name to a list of shape dicts, ``"default"`` being the competition shapes.
    """

    name: str = ""
    shape_keys: tuple[str, ...] = ()
    presets: Mapping[str, list[dict]] = {}
    #: True for ops judged by arithmetic (GEMM-like): reports TFLOP/s too.
    compute_bound: bool = False

    def __init__(self, device=None, stream=None):
        self.device = device
        self.stream = stream

    # --- shapes
    def parse_shapes(self, specs: Iterable[str] | None) -> list[dict]:
        """Shapes from preset names and ``m,k,l``-style strings (default preset if none)."""
        specs = list(specs or ["default"])
        out: list[dict] = []
        for spec in specs:
            if not isinstance(spec, str):
                raise TypeError(f"shape spec must be a string, got {type(spec).__name__}")
            if spec in self.presets:
                out.extend(dict(s) for s in self.presets[spec])
                continue
            parts = [p.strip() for p in spec.split(",")]
            if len(parts) != len(self.shape_keys) or not all(re.fullmatch(r"[0-9]+", p) for p in parts):
                raise ValueError(
                    f"shape {spec!r} for {self.name}: expected a preset ({', '.join(sorted(self.presets))}) "
                    f"or {len(self.shape_keys)} positive integers {','.join(self.shape_keys)}")
            shape = {k: int(p) for k, p in zip(self.shape_keys, parts)}
            if any(v <= 0 for v in shape.values()):
                raise ValueError(f"shape {spec!r} for {self.name}: every dimension must be positive")
            self.validate_shape(shape)
            out.append(shape)
        return out

    def validate_shape(self, shape: dict) -> None:
        """Raise ValueError for shapes the op cannot run."""

    def shape_label(self, shape: dict) -> str:
        return " ".join(f"{k}={shape[k]}" for k in self.shape_keys)

    # --- the op
    def make_inputs(self, shape: dict, rng: np.random.Generator):  # pragma: no cover - interface
        raise NotImplementedError

    def run(self, state) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def check(self, state) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def bytes(self, shape: dict) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def flops(self, shape: dict) -> int:
        return 0

    def out_bytes(self, shape: dict) -> int:
        """Bytes of output the op must write; compute-bound ops' tensor floor stores as many.  The default, 0,
        keeps an adapter that does not say a valid (if lower) floor."""
        return 0

    def in_bytes(self, shape: dict) -> int:
        """Bytes of input the op must read: :meth:`bytes` less :meth:`out_bytes` (the op floor streams as many)."""
        return max(0, self.bytes(shape) - self.out_bytes(shape))

    def peers(self, state) -> dict[str, Peer]:
        return {}

    def release(self, state) -> None:
        """Drop device buffers of ``state`` (optional)."""

    def run_poisoned(self, state, outputs) -> None:
        """Fill each device array in ``outputs`` with 0xFF bytes (fp16 NaN), run once, synchronize: an
        output element the kernel does not write cannot pass the check that follows."""
        from . import driver

        for out in outputs:
            driver.call("cuMemsetD8", out.ptr, 0xFF, out.nbytes)
        self.run(state)
        driver.call("cuCtxSynchronize")


def torch_with_cuda():
    """The torch module when it is importable and sees a CUDA device (peers need it), else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


_REGISTRY: dict[str, type[OpBench]] = {}


def register_op(cls: type[OpBench]) -> type[OpBench]:
    """Class decorator: make an :class:`OpBench` subclass available to ``nvfp4rt bench``."""
    if not (isinstance(cls, type) and issubclass(cls, OpBench)) or not cls.name:
        raise TypeError("register_op expects an OpBench subclass with a non-empty name")
    _REGISTRY[cls.name] = cls
    return cls


def get_op(name: str) -> type[OpBench]:
    _load_builtin_ops()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown op {name!r}; known ops: {', '.join(op_names()) or '(none)'}") from None


def op_names() -> list[str]:
    _load_builtin_ops()
    return sorted(_REGISTRY)


def _load_builtin_ops() -> None:
    """Register the built-in adapters: GEMV is defined at the end of this module, GEMM in bench_gemm,
    the dual and grouped GEMMs in bench_dual_gemm and bench_grouped_gemm."""
    from . import bench_dual_gemm, bench_gemm, bench_grouped_gemm  # noqa: F401  (register their ops)


# =========================================================================== results

def utc_now() -> str:
    """The current UTC time as ISO 8601 with a ``Z`` suffix, to the second."""
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def device_slug(name: str) -> str:
    """``"NVIDIA H100 80GB HBM3"`` -> ``"nvidia-h100-80gb-hbm3"``: safe in file names."""
    if not isinstance(name, str):
        raise TypeError(f"device name must be a str, got {type(name).__name__}")
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "unknown-device"


def result_filename(op: str, device_name: str, date: str) -> str:
    """``<op>-<device-slug>-<YYYYMMDDTHHMMSSZ>.json`` (the time keeps same-day runs apart)."""
    if not re.fullmatch(r"[a-z0-9_]+", op or ""):
        raise ValueError(f"op must be a lowercase identifier, got {op!r}")
    compact = re.sub(r"[^0-9TZ]", "", date)
    if not re.fullmatch(r"\d{8}T\d{6}Z", compact):
        raise ValueError(f"date must be UTC ISO 8601 like 2026-11-21T10:30:00Z, got {date!r}")
    return f"{op}-{device_slug(device_name)}-{compact}.json"


def checkout_root() -> Path:
    """The source checkout holding this package (has ``pyproject.toml``), else the working directory."""
    here = Path(__file__).resolve().parent.parent
    return here if (here / "pyproject.toml").is_file() else Path.cwd()


def default_results_dir() -> Path:
    return checkout_root() / "bench" / "results"


def git_revision(cwd: str | os.PathLike | None = None) -> dict:
    """``{"revision": <sha or None>, "dirty": <bool or None>}`` of the checkout.

    ``NVFP4RT_GIT_REVISION=<sha>[+dirty]`` overrides it, for a copy of a checkout whose ``.git`` is not
    the one the tree came from (a tree shipped to a GPU machine, say).
    """
    forced = os.environ.get("NVFP4RT_GIT_REVISION")
    if forced:
        rev, _, flag = forced.partition("+")
        return {"revision": rev, "dirty": flag == "dirty"}
    cwd = str(cwd or checkout_root())
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True,
                             timeout=10, check=True).stdout.strip()
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                                capture_output=True, text=True, timeout=10, check=True).stdout
        return {"revision": rev, "dirty": bool(status.strip())}
    except (OSError, subprocess.SubprocessError):
        return {"revision": None, "dirty": None}


def _ratio(num: float | None, den: float | None) -> float | None:
    if num is None or den is None or den == 0 or not math.isfinite(num) or not math.isfinite(den):
        return None
    return num / den


def shape_result(shape: dict, timing: Timing, *, nbytes: int, flops: int = 0, ceilings: Mapping | None = None,
                 api_us_per_call: float | None = None, peers: Mapping[str, float | None] | None = None,
                 check: str = "ok", read_floor_us: float | None = None,
                 tensor_floor_us: float | None = None, op_floor_us: float | None = None) -> dict:
    """The per-shape record of a result file (derived figures computed here, in one place).

    ``gbps`` is decimal GB/s of NVFP4 bytes moved (1 GB/s = 1e9 B/s);
    ``pct_of_bw`` compares it with the same run's read ceiling; ``speedup[peer]``
    is peer median / our median (> 1 means we are faster).  ``read_floor_us`` is the same-run p10
    of a plain streaming read of ``nbytes`` (``bw_read``, same L2 clear); ``pct_of_read_floor`` is
    read_floor / ours (> 100 means faster than a plain read of the same bytes).  ``tensor_floor_us`` is the
    same-run p10 of the tensor floor kernel at the op's flops and output bytes
    (:func:`nvfp4rt.ceilings.measure_tensor_floor_time`); ``pct_of_tensor_floor`` is tensor_floor / ours.
    ``op_floor_us`` is the same kernel with the op's input bytes streamed beside the products (the floor of
    an op that reads its inputs once, perfectly overlapped); ``pct_of_op_floor`` is op_floor / ours.
    """
    ceilings = dict(ceilings or {})
    med = timing.median_us
    gbps = nbytes / (med * 1e-6) / 1e9 if med > 0 else None
    read_tbps = ceilings.get("read_tbps")
    rec = {
        "shape": dict(shape),
        "median_us": med,
        "p10_us": timing.p10_us,
        "p90_us": timing.p90_us,
        "n_samples": timing.n,
        "bytes": int(nbytes),
        "gbps": gbps,
        "pct_of_bw": None if gbps is None or not read_tbps else 100.0 * gbps / (1000.0 * read_tbps),
        "api_us_per_call": api_us_per_call,
        "peers": {k: v for k, v in (peers or {}).items()},
        "speedup": {k: _ratio(v, med) for k, v in (peers or {}).items()},
        "check": check,
    }
    if read_floor_us is not None:
        rec["read_floor_us"] = read_floor_us
        rec["pct_of_read_floor"] = _ratio(read_floor_us, med) * 100.0 if med > 0 else None
    for key, floor_us in (("tensor_floor", tensor_floor_us), ("op_floor", op_floor_us)):
        if floor_us is not None:
            rec[f"{key}_us"] = floor_us
            rec[f"pct_of_{key}"] = _ratio(floor_us, med) * 100.0 if med > 0 else None
    if flops:
        tflops = flops / (med * 1e-6) / 1e12 if med > 0 else None
        tc = ceilings.get("fp16_tflops")
        rec["flops"] = int(flops)
        rec["tflops"] = tflops
        rec["pct_of_tensor_ceiling"] = None if tflops is None or not tc else 100.0 * tflops / tc
    return rec


def build_result(op: str, *, device: Mapping, ceilings: Mapping | None, shapes: list[dict], iters: int,
                 warmup: int, l2_clear_bytes: int | None, date: str | None = None, git: Mapping | None = None,
                 cuda_bindings_version: str | None = None, compiler: str | None = None) -> dict:
    """A whole result document; ``device`` holds at least ``name`` and ``driver_version``; ``compiler`` is the one
    that built the kernels (default: :func:`nvfp4rt.module.describe_compiler`, which follows ``$NVFP4RT_COMPILER``)."""
    if "name" not in device or "driver_version" not in device:
        raise ValueError("device must hold 'name' and 'driver_version'")
    if cuda_bindings_version is None:
        from .cache import bindings_version

        cuda_bindings_version = bindings_version()
    if compiler is None:
        from .module import describe_compiler

        compiler = describe_compiler()
    return {
        "schema": RESULT_SCHEMA,
        "op": op,
        "device": dict(device),
        "driver_version": device["driver_version"],
        "cuda_bindings_version": cuda_bindings_version,
        "compiler": compiler,
        "date": date or utc_now(),
        "git": dict(git) if git is not None else git_revision(),
        "ceilings": dict(ceilings) if ceilings else {},
        "method": {
            "statistic": "median of per-call device event times",
            "iters": iters,
            "warmup": warmup,
            "l2_clear_bytes": l2_clear_bytes,
            "spin_after_clear_ns": SPIN_NS,
            "launch_phase_period": PHASE_PERIOD,
            "api_calls": 50,
        },
        "shapes": shapes,
    }


_REQUIRED_SHAPE_KEYS = ("shape", "median_us", "p10_us", "p90_us", "bytes", "gbps", "pct_of_bw",
                        "api_us_per_call", "peers", "speedup")


def validate_result(result: Mapping) -> None:
    """Raise ValueError if ``result`` lacks a field the renderer and readers rely on."""
    for key in ("schema", "op", "device", "driver_version", "cuda_bindings_version", "date", "git",
                "ceilings", "shapes"):
        if key not in result:
            raise ValueError(f"result lacks {key!r}")
    if "name" not in result["device"]:
        raise ValueError("result['device'] lacks 'name'")
    for i, rec in enumerate(result["shapes"]):
        for key in _REQUIRED_SHAPE_KEYS:
            if key not in rec:
                raise ValueError(f"result['shapes'][{i}] lacks {key!r}")


def write_result(result: Mapping, path: str | os.PathLike | None = None, *,
                 results_dir: str | os.PathLike | None = None) -> Path:
    """Write ``result`` as JSON (default: ``bench/results/<op>-<slug>-<date>.json``); returns the path."""
    validate_result(result)
    if path is None:
        d = Path(results_dir) if results_dir is not None else default_results_dir()
        path = d / result_filename(result["op"], result["device"]["name"], result["date"])
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(result, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, path)
    return path


def read_results(results_dir: str | os.PathLike) -> list[dict]:
    """Every valid result in ``results_dir`` (files that fail to parse are skipped with a warning)."""
    import warnings

    out = []
    d = Path(results_dir)
    if not d.is_dir():
        return out
    for p in sorted(d.glob("*.json")):
        try:
            doc = json.loads(p.read_text())
            validate_result(doc)
        except (OSError, ValueError) as exc:
            warnings.warn(f"skipping {p}: {exc}", stacklevel=2)
            continue
        doc["_file"] = p.name
        out.append(doc)
    return out


def _fmt(x, spec: str = ".1f", missing: str = "–") -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return missing
    return format(x, spec)


MARKDOWN_HEADER = (
    "# Benchmarks\n\n"
    "<!-- Generated by `nvfp4rt bench --render` from bench/results/*.json. Do not edit by hand. -->\n\n"
    "These numbers are generated by `nvfp4rt bench` (and this file by `nvfp4rt bench --render`) from the\n"
    "JSON files in `bench/results/`; they are never hand-edited. Newest result per op and device.\n"
    "Times are medians of per-call CUDA-event times with L2 cleared before every call (p10–p90 beside them);\n"
    "TB/s counts the NVFP4 bytes an op must move; \"% BW\" compares with the read bandwidth measured in the\n"
    "same run (1 GiB buffer); \"same-size read\" is the p10 time of a plain streaming read of the op's bytes,\n"
    "timed the same way in the same run, and its % column is that time over ours (above 100: faster than\n"
    "reading the bytes); \"tensor floor\" (GEMM-family ops, Hopper) is the p10 time of a kernel that only runs the\n"
    "op's flops through the fp16 tensor pipe on all SMs after one global read per SM and then stores the op's\n"
    "output bytes, timed the same way in the same run: a lower bound for the op at that size (ptx/tensor_floor.ptx);\n"
    "\"op floor\" is the same with the op's input bytes streamed from global memory beside the products, the floor\n"
    "of a kernel that reads its inputs once and overlaps that perfectly with its products;\n"
    "peer columns give the peer's median and our speedup over it. See docs/bench.md.\n"
)


def _shape_text(shape: Mapping) -> str:
    return " ".join(f"{k}={v}" for k, v in shape.items())


def render_markdown(results_dir: str | os.PathLike) -> str:
    """BENCHMARKS.md text: one table per op, newest result per device."""
    newest: dict[tuple[str, str], dict] = {}
    for doc in read_results(results_dir):
        key = (doc["op"], doc["device"]["name"])
        old = newest.get(key)
        if old is None or (doc["date"], doc["_file"]) > (old["date"], old["_file"]):
            newest[key] = doc
    lines = [MARKDOWN_HEADER]
    if not newest:
        lines.append("\nNo results yet: run `nvfp4rt bench gemv` on a GPU.\n")
        return "\n".join(lines)
    for op in sorted({k[0] for k in newest}):
        docs = [newest[k] for k in sorted(newest) if k[0] == op]
        peer_names: list[str] = []
        for d in docs:
            for rec in d["shapes"]:
                for name in rec["peers"]:
                    if name not in peer_names:
                        peer_names.append(name)
        has_flops = any("tflops" in rec for d in docs for rec in d["shapes"])
        has_floor = any("read_floor_us" in rec for d in docs for rec in d["shapes"])
        has_tfloor = any("tensor_floor_us" in rec for d in docs for rec in d["shapes"])
        has_ofloor = any("op_floor_us" in rec for d in docs for rec in d["shapes"])
        head = ["device", "shape", "median µs", "p10–p90 µs", "MB", "TB/s", "% BW", "API µs/call"]
        if has_floor:
            head += ["same-size read µs", "% of same-size read"]
        if has_flops:
            head += ["TFLOP/s", "% fp16 TC"]
        if has_tfloor:
            head += ["tensor floor µs", "% of tensor floor"]
        if has_ofloor:
            head += ["op floor µs", "% of op floor"]
        head += [f"{p} µs (speedup)" for p in peer_names]
        lines.append(f"\n## {op}\n")
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "|".join("---" for _ in head) + "|")
        for d in docs:
            for rec in d["shapes"]:
                row = [
                    d["device"]["name"],
                    _shape_text(rec["shape"]),
                    _fmt(rec["median_us"]),
                    f"{_fmt(rec['p10_us'])}–{_fmt(rec['p90_us'])}",
                    _fmt(rec["bytes"] / 1e6),
                    _fmt(None if rec["gbps"] is None else rec["gbps"] / 1000.0, ".2f"),
                    _fmt(rec["pct_of_bw"], ".0f"),
                    _fmt(rec["api_us_per_call"]),
                ]
                if has_floor:
                    row += [_fmt(rec.get("read_floor_us")), _fmt(rec.get("pct_of_read_floor"), ".0f")]
                if has_flops:
                    row += [_fmt(rec.get("tflops"), ".0f"), _fmt(rec.get("pct_of_tensor_ceiling"), ".0f")]
                if has_tfloor:
                    row += [_fmt(rec.get("tensor_floor_us")), _fmt(rec.get("pct_of_tensor_floor"), ".0f")]
                if has_ofloor:
                    row += [_fmt(rec.get("op_floor_us")), _fmt(rec.get("pct_of_op_floor"), ".0f")]
                for p in peer_names:
                    t = rec["peers"].get(p)
                    s = rec["speedup"].get(p)
                    row.append("–" if t is None else f"{_fmt(t)} ({_fmt(s, '.2f')}×)")
                lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        for d in docs:
            c = d.get("ceilings") or {}
            rev = (d.get("git") or {}).get("revision") or "unknown"
            dirty = " (dirty)" if (d.get("git") or {}).get("dirty") else ""
            lines.append(
                f"- {d['device']['name']}: {d['date']}, git {rev[:12]}{dirty}, driver {d['driver_version']}, "
                f"cuda-bindings {d['cuda_bindings_version']}"
                + (f", kernels built by {d['compiler']}" if d.get("compiler") else "")
                + f"; read ceiling {_fmt(c.get('read_tbps'), '.2f')} TB/s, "
                f"fp16 tensor ceiling {_fmt(c.get('fp16_tflops'), '.0f')} TFLOP/s; `{d['_file']}`")
    return "\n".join(lines) + "\n"


def write_markdown(results_dir: str | os.PathLike | None = None, out: str | os.PathLike | None = None) -> Path:
    """Regenerate BENCHMARKS.md (default: at the checkout root) from ``results_dir``."""
    results_dir = Path(results_dir) if results_dir is not None else default_results_dir()
    out = Path(out) if out is not None else checkout_root() / "BENCHMARKS.md"
    out.write_text(render_markdown(results_dir))
    return out


# =========================================================================== the run

def _framework_timer(framework: str, l2_bytes: int, cache: dict):
    if framework not in cache:
        if framework == "torch":
            cache[framework] = TorchTimer(l2_bytes)
        elif framework == "cupy":
            cache[framework] = CupyTimer(l2_bytes)
        else:
            raise ValueError(f"unknown peer framework {framework!r}")
    return cache[framework]


def run_bench(op: str, shapes: Iterable[str] | None = None, *, iters: int = 100, warmup: int = 10,
              with_peers: bool = True, reuse_ceilings: bool = False, seed: int | None = None,
              device=None, log: Callable[[str], object] = print) -> dict:
    """Benchmark ``op`` on ``shapes`` and return the result document (not yet written).

    Order per shape: fresh random inputs, correctness check against the
    reference (poisoned output), then our timing, back-to-back API timing,
    and the peers.  The ceilings are measured first, in the same run.
    """
    from . import driver
    from .ceilings import get_ceilings

    _check_counts(iters, warmup)
    dev = _resolve_device(device)
    props = dev.properties
    timer = DriverTimer(dev, None)
    adapter = get_op(op)(dev, timer.stream)
    shape_list = adapter.parse_shapes(shapes)
    log(f"[bench] {op} on {props.name} ({props.arch}), {len(shape_list)} shape(s), iters={iters}")
    ceilings = get_ceilings(dev, reuse=reuse_ceilings, log=log)
    rng = np.random.default_rng(seed)
    fw_timers: dict = {}
    records = []
    for shape in shape_list:
        label = adapter.shape_label(shape)
        state = adapter.make_inputs(shape, rng)
        try:
            adapter.check(state)
            t = measure(lambda: adapter.run(state), timer, iters=iters, warmup=warmup)
            api = float(np.median([time_back_to_back(lambda: adapter.run(state), 50, synchronize=timer.synchronize)
                                   for _ in range(API_REPEATS)]))
            peer_times: dict[str, float | None] = {}
            if with_peers:
                try:
                    peers = adapter.peers(state)
                except Exception as exc:  # e.g. a peer framework out of memory: keep our numbers
                    log(f"[bench]   peers unavailable: {type(exc).__name__}: {exc}")
                    peers = {}
                for name, peer in peers.items():
                    try:
                        ptimer = timer if peer.framework == "nvfp4rt" else _framework_timer(
                            peer.framework, props.l2_bytes, fw_timers)
                        peer_times[name] = measure(peer.fn, ptimer, iters=iters, warmup=warmup).median_us
                    except Exception as exc:  # a peer failing must not lose our numbers
                        log(f"[bench]   peer {name} failed: {type(exc).__name__}: {exc}")
                        peer_times[name] = None
        finally:
            adapter.release(state)
        floor = None
        if not adapter.compute_bound:
            from .ceilings import measure_read_time

            # p10, not the median: at tens of MB the plain read's times spread widely (37-80 us for 33 MB on
            # the H100), and the floor must not flatter us
            floor = measure_read_time(adapter.bytes(shape), dev, timer.stream, iters=iters, warmup=warmup).p10_us
        tfloor = ofloor = None
        if adapter.compute_bound and props.arch == "sm_90a":
            from .ceilings import measure_tensor_floor_time

            # p10 as for the read floor: a lower bound must not flatter us
            fl, out, inputs = adapter.flops(shape), adapter.out_bytes(shape), adapter.in_bytes(shape)
            tfloor = measure_tensor_floor_time(fl, out, dev, timer.stream, iters=iters, warmup=warmup).p10_us
            if inputs:
                ofloor = measure_tensor_floor_time(fl, out, dev, timer.stream, in_bytes=inputs, iters=iters,
                                                   warmup=warmup).p10_us
        rec = shape_result(shape, t, nbytes=adapter.bytes(shape), flops=adapter.flops(shape) if adapter.compute_bound else 0,
                           ceilings=ceilings, api_us_per_call=api, peers=peer_times, read_floor_us=floor,
                           tensor_floor_us=tfloor, op_floor_us=ofloor)
        records.append(rec)
        peers_txt = ", ".join(f"{k} {_fmt(v)} µs" for k, v in peer_times.items())
        floor_txt = "" if floor is None else f", same-size read {floor:.1f} µs ({_fmt(rec['pct_of_read_floor'], '.0f')}%)"
        if tfloor is not None:
            floor_txt += f", tensor floor {tfloor:.1f} µs ({_fmt(rec['pct_of_tensor_floor'], '.0f')}%)"
        if ofloor is not None:
            floor_txt += f", op floor {ofloor:.1f} µs ({_fmt(rec['pct_of_op_floor'], '.0f')}%)"
        log(f"[bench]   {label}: {t.median_us:.1f} µs (p10 {t.p10_us:.1f}, p90 {t.p90_us:.1f}), "
            f"{_fmt(rec['pct_of_bw'], '.0f')}% of read BW{floor_txt}, API {api:.1f} µs/call" + (f"; {peers_txt}" if peers_txt else ""))
    device_info = {
        "name": props.name,
        "arch": props.arch,
        "sm_count": props.sm_count,
        "l2_bytes": props.l2_bytes,
        "driver_version": _driver_version_text(driver.driver_version()),
    }
    return build_result(op, device=device_info, ceilings=ceilings, shapes=records, iters=iters, warmup=warmup,
                        l2_clear_bytes=timer.l2_clear_bytes)


def _driver_version_text(v: int) -> str:
    """13000 -> "13.0" (the CUDA version the driver supports)."""
    return f"{v // 1000}.{(v % 1000) // 10}"


# =========================================================================== built-in adapters

#: e2m1 code -> value (FACTS §1): magnitudes of codes 0..7, then their negatives.
_E2M1_VALUES = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6], dtype=np.float32)


def _dequant_fp4_host(packed: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """float32 ``[..., k]`` from packed e2m1 bytes ``[..., k/2]`` (low nibble first) and e4m3 bytes ``[..., k/16]``.

    Exact: every product of an e2m1 value and an e4m3 scale is representable in float32.
    """
    import ml_dtypes

    packed = np.asarray(packed, dtype=np.uint8)
    codes = np.stack((packed & 0x0F, packed >> 4), axis=-1).reshape(*packed.shape[:-1], 2 * packed.shape[-1])
    vals = _E2M1_VALUES[codes]
    sc = np.asarray(scales, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    return (vals.reshape(*sc.shape, 16) * sc[..., None]).reshape(vals.shape)


def _random_scales(rng: np.random.Generator, shape) -> np.ndarray:
    """Positive e4m3 bit patterns for 2^-2 .. 2^1 with random mantissas: never all-zero, no overflow risk."""
    exponent = rng.integers(5, 9, size=shape, dtype=np.uint8)  # biased e4m3 exponents: 2^-2 .. 2^1
    mantissa = rng.integers(0, 8, size=shape, dtype=np.uint8)
    return (exponent << 3) | mantissa


def _competition_view(base):
    """The competition's logical ``[rows, cols, l]`` view of a contiguous ``(l, rows, cols)`` device array."""
    tr = getattr(base, "transpose", None)
    if tr is None:
        raise TypeError(f"{type(base).__name__} has no transpose(); cannot form the competition layout")
    try:
        return tr(1, 2, 0)
    except TypeError:
        return tr((1, 2, 0))


@dataclass
class _GemvState:
    shape: dict
    host: dict           # numpy arrays in (l, rows, cols) layout
    dev: dict            # contiguous device arrays, (l, rows, cols)
    views: dict          # competition views [rows, cols, l]
    stream: object
    data: object = None  # the nvfp4rt.data.GemvData the arrays came from
    torch_cache: dict = field(default_factory=dict)


@register_op
class GemvBench(OpBench):
    """Batched NVFP4 GEMV ``c[:, 0, b] = A[b] @ x[b]`` through :func:`nvfp4rt.ops.gemv.gemv_raw`.

    Inputs are fresh random data from :func:`nvfp4rt.data.gemv_data` (the
    competition's distribution and layouts, b with its 128 rows), drawn per
    run from the harness's generator.  The check compares with
    :func:`nvfp4rt.reference.gemv_ref` under the competition tolerance after
    the output was poisoned with 0xFF bytes (fp16 NaN), so an unwritten
    element fails.
    """

    name = "gemv"
    shape_keys = ("m", "k", "l")
    presets = {
        "default": [{"m": 7168, "k": 16384, "l": 1}, {"m": 4096, "k": 7168, "l": 8}, {"m": 7168, "k": 2048, "l": 4}],
        "small": [{"m": 256, "k": 1024, "l": 2}],
    }

    def validate_shape(self, shape: dict) -> None:
        if shape["k"] % 32:
            raise ValueError(f"gemv benchmark shapes need k divisible by 32, got k={shape['k']}")

    def bytes(self, shape: dict) -> int:
        m, k, l = shape["m"], shape["k"], shape["l"]
        return l * (m * k // 2 + m * k // 16 + k // 2 + k // 16 + 2 * m)

    def flops(self, shape: dict) -> int:
        return 2 * shape["m"] * shape["k"] * shape["l"]

    def make_inputs(self, shape: dict, rng: np.random.Generator) -> _GemvState:
        from .array import asarray, empty
        from .data import gemv_data

        m, k, l = shape["m"], shape["k"], shape["l"]
        d = gemv_data(m, k, l, seed=rng, distribution="competition")
        host = {name: np.ascontiguousarray(d.physical(name)).view(np.uint8) for name in ("a", "b", "sfa", "sfb")}
        if self.device is not None:
            self.device.activate()  # asarray/empty allocate on the current device
        dev = {name: asarray(arr) for name, arr in host.items()}
        dev["c"] = empty((l, m, 1), np.float16, device=self.device)
        views = {name: _competition_view(arr) for name, arr in dev.items()}
        return _GemvState(dict(shape), host, dev, views, self.stream, data=d)

    def run(self, state: _GemvState) -> None:
        from .ops.gemv import gemv_raw

        v = state.views
        gemv_raw(v["a"], v["b"], v["sfa"], v["sfb"], v["c"], stream=state.stream)

    def check(self, state: _GemvState) -> None:
        """Poisoned output (0xFFFF, an fp16 NaN), one run, then nvfp4rt.reference's gemv and checker."""
        from .reference import check, gemv_ref

        c = state.dev["c"]
        self.run_poisoned(state, [c])
        got = np.asarray(c.numpy()).transpose(1, 2, 0)  # (l, m, 1) -> [m, 1, l]
        d = state.data
        res = check(got, gemv_ref(d.a, d.b, d.sfa, d.sfb))
        if not res.ok:
            raise BenchCheckError(f"gemv {self.shape_label(state.shape)}: {res}")

    def peers(self, state: _GemvState) -> dict[str, Peer]:
        """cuBLAS fp16 bmm on pre-dequantised data, and the naive unpack/lookup/scale/bmm path (torch)."""
        torch = torch_with_cuda()
        if torch is None:
            return {}
        h = dict(state.host)
        h["b"], h["sfb"] = np.ascontiguousarray(h["b"][:, :1]), np.ascontiguousarray(h["sfb"][:, :1])  # row 0 is b
        l, m, half_k = h["a"].shape
        k = 2 * half_k
        a16 = torch.empty((l, m, k), dtype=torch.float16, device="cuda")
        for b in range(l):  # dequantise batch by batch on the host: exact in fp16 (FACTS §1)
            a16[b].copy_(torch.from_numpy(_dequant_fp4_host(h["a"][b], h["sfa"][b]).astype(np.float16)))
        b16 = torch.from_numpy(_dequant_fp4_host(h["b"], h["sfb"]).astype(np.float16)).cuda().reshape(l, k, 1)
        out = torch.empty((l, m, 1), dtype=torch.float16, device="cuda")

        def cublas_bmm():
            torch.bmm(a16, b16, out=out)

        a_u8 = torch.from_numpy(h["a"]).cuda()
        b_u8 = torch.from_numpy(h["b"]).cuda()
        sfa_u8 = torch.from_numpy(h["sfa"]).cuda()
        sfb_u8 = torch.from_numpy(h["sfb"]).cuda()
        lut = torch.from_numpy(_E2M1_VALUES.astype(np.float16)).cuda()

        def dequant(packed, scales):
            codes = torch.stack((packed & 0x0F, packed >> 4), dim=-1).reshape(*packed.shape[:-1], -1)
            sc = scales.view(torch.float8_e4m3fn).to(torch.float16).repeat_interleave(16, dim=-1)
            return lut[codes.long()] * sc

        def naive():
            torch.bmm(dequant(a_u8, sfa_u8), dequant(b_u8, sfb_u8).transpose(1, 2), out=out)

        state.torch_cache.update(a16=a16, b16=b16, out=out, a_u8=a_u8, b_u8=b_u8, sfa_u8=sfa_u8, sfb_u8=sfb_u8)
        return {"cublas_fp16_bmm": Peer(cublas_bmm, "torch"), "torch_naive_dequant_bmm": Peer(naive, "torch")}

    def release(self, state: _GemvState) -> None:
        for arr in state.dev.values():
            close = getattr(arr, "close", None)
            if close is not None:
                close()
        state.torch_cache.clear()
        state.views.clear()
