"""The lab's engine: adapters, and one run of render -> assemble -> load -> check -> time.

An op plugs in as a :class:`LabOp` subclass registered with :func:`register_op`
(one small module per op: ``gemv.py``, ``custom.py``, ...).  The engine
(:class:`Session`) never touches the driver itself: everything that needs a
GPU goes through the adapter's methods, so the whole pipeline, the table,
the JSON document and the exit codes can be exercised on a machine without
one by an adapter that fakes those methods (the CPU tests do).

A :class:`Session` lives as long as the command: it builds each shape's
inputs and reference once (fresh random data, one seed per session) and
times the built-in kernel once per shape; every run after that only
re-renders, re-assembles and re-loads the edited file, checks it and times
it.  That is what keeps an edit-to-result turn of a GEMV kernel short.
"""
from __future__ import annotations

import re

import secrets
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

__all__ = [
    "LabError",
    "LabUsageError",
    "LabOp",
    "Bound",
    "Options",
    "Session",
    "register_op",
    "get_op",
    "op_names",
    "parse_shapes",
    "RESULT_SCHEMA",
    "EXIT_OK",
    "EXIT_FAIL",
    "EXIT_USAGE",
]

RESULT_SCHEMA = 1
EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2



def jit_notes(log: str) -> list[str]:
    """The performance notes of a JIT info log (``(C75xx) Potential Performance Loss: ...``), one line each."""
    return [_NOTE.sub(r"\1: ", ln).strip() for ln in (log or "").splitlines() if "Potential Performance Loss" in ln]


_NOTE = re.compile(r"^.*?\((C\d+)\) Potential Performance Loss:\s*")

class LabError(RuntimeError):
    """A run failed for a reason the user should read (exit status 1)."""

    status = "error"

    def __init__(self, message: str, status: str | None = None):
        super().__init__(message)
        if status is not None:
            self.status = status


class LabUsageError(ValueError):
    """Bad command-line input: unknown op, missing file, bad shape, bad spec (exit status 2)."""


# =========================================================================== shapes

def parse_shapes(op: str, keys: tuple[str, ...], presets: dict, specs: Iterable[str] | None,
                 validate: Callable[[dict], None] | None = None) -> list[dict]:
    """Shapes from preset names and comma-separated integers (``m,k,l`` for gemv); default preset if none."""
    specs = list(specs or ["default"])
    out: list[dict] = []
    for spec in specs:
        if not isinstance(spec, str):
            raise LabUsageError(f"shape spec must be a string, got {type(spec).__name__}")
        if spec in presets:
            out.extend({k: int(v) for k, v in zip(keys, s)} if not isinstance(s, dict) else dict(s)
                       for s in presets[spec])
            continue
        parts = [p.strip() for p in spec.split(",")]
        if len(parts) != len(keys) or not all(p.isdigit() for p in parts):
            what = "preset" if "," not in spec and not spec.isdigit() else "shape"
            raise LabUsageError(
                f"{what} {spec!r} for {op}: expected a preset ({', '.join(sorted(presets)) or 'none'}) "
                f"or {len(keys)} positive integers {','.join(keys)}")
        shape = {k: int(p) for k, p in zip(keys, parts)}
        if any(v <= 0 for v in shape.values()):
            raise LabUsageError(f"shape {spec!r} for {op}: every dimension must be positive")
        if validate is not None:
            try:
                validate(shape)
            except ValueError as exc:
                raise LabUsageError(f"shape {spec!r} for {op}: {exc}") from None
        out.append(shape)
    return out


def shape_label(shape: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in shape.items())


# =========================================================================== adapters

@dataclass
class Bound:
    """A kernel bound to one shape's inputs.

    ``checks()`` launches on poisoned outputs and returns ``[(data label, CheckResult)]``;
    ``run()`` launches once (asynchronously) and is what gets timed.
    """

    checks: Callable[[], list]
    run: Callable[[], object]


class LabOp:
    """One op of the lab.  Subclasses set the class attributes and implement the op methods.

    Class attributes: ``name``; ``default_entry`` (the entry a kernel must
    provide unless ``--entry`` says otherwise; None: a file's only entry);
    ``shape_keys`` and ``presets`` (``"default"`` = the benchmark shapes);
    ``compute_bound`` (the floor counts the fp16 tensor rate, not only bytes; on Hopper also the measured
    op floor, :func:`nvfp4rt.ceilings.measure_tensor_floor_time` with the op's input bytes streamed).

    The device-side methods here (:meth:`gpu_reason`, :meth:`open`,
    :meth:`load`, :meth:`time`, :meth:`ceilings`) are shared by every op.
    """

    name: str = ""
    default_entry: str | None = None
    shape_keys: tuple[str, ...] = ()
    presets: dict = {}
    compute_bound: bool = False

    def __init__(self, options: "Options"):
        self.options = options
        self.device = None
        self.timer = None

    # ---------------------------------------------------------------- CPU side
    def parse_shapes(self, specs) -> list[dict]:
        return parse_shapes(self.name, self.shape_keys, self.presets, specs, self.validate_shape)

    def validate_shape(self, shape: dict) -> None:
        """Raise ValueError for a shape the op cannot run."""

    def builtin_file(self) -> Path | None:
        """The built-in kernel following this op's ABI (for the signature check and the comparison)."""
        return None

    def watched_files(self) -> list[Path]:
        """Files besides the kernel whose change resets the session (a custom spec)."""
        return []

    def reload(self) -> None:
        """Re-read whatever :meth:`watched_files` names (called by the watch loop after a change)."""

    def check_abi(self, signature) -> str | None:
        """Raise :class:`LabError` (status ``abi_error``) when ``signature`` cannot take this op's arguments.

        May return a short description of the ABI the kernel follows (the result's ``abi`` field;
        ops with several built-in ABIs, like gemm, say which one matched).
        """
        builtin = self.builtin_file()
        if builtin is None or self.default_entry is None:
            return None
        from ..ptxsource import PtxSource

        expected = PtxSource.from_file(builtin, "sm_90a").entries[self.default_entry]
        problems = abi_differences(expected, signature)
        if problems:
            raise LabError(f"{signature.name} does not follow the {self.name} kernel ABI of "
                           f"{builtin.name}::{expected.name}:\n" + "\n".join(f"  {p}" for p in problems)
                           + "\n  (docs/lab.md lists the ABI of each op)", status="abi_error")
        return f"{builtin.name}::{expected.name}"

    def bytes(self, shape: dict) -> int | None:
        return None

    def flops(self, shape: dict) -> int | None:
        return None

    def out_bytes(self, shape: dict) -> int | None:
        """Output bytes the op writes (the measured tensor floor stores as many); None: not counted."""
        return None

    # ---------------------------------------------------------------- GPU side
    def gpu_reason(self) -> str | None:
        from .. import driver

        return driver.unavailable_reason()

    def open(self) -> dict:
        """Make the device current and start a timer; returns the device description for the result."""
        from .. import driver
        from ..bench import DriverTimer, _driver_version_text

        self.device = driver.device(self.options.device)
        self.timer = DriverTimer(self.device, None)
        p = self.device.properties
        return {"name": p.name, "arch": p.arch, "sm_count": p.sm_count,
                "driver": _driver_version_text(driver.driver_version())}

    def device_arch(self) -> str | None:
        return self.device.arch if self.device is not None else None

    def load(self, path: Path, entry: str, target: str, constants: dict):
        """JIT-load through the cubin cache: ``(kernel, {"from_cache", "seconds", "compiler", "jit_notes"})``;
        ``jit_notes`` are the JIT log's performance notes (``C75xx``: setmaxnreg ignored, wgmmas serialised), which
        the offline ptxas report cannot show (empty on a cache hit: no JIT ran)."""
        from ..module import load

        module = load(path, constants=constants or None, device=self.device, target=target,
                      compiler=self.options.compiler)
        return module.kernel(entry), {"from_cache": module.from_cache, "seconds": module.load_seconds,
                                      "compiler": module.compiler, "jit_notes": jit_notes(module.jit_log)}

    def time(self, fn: Callable[[], object], iters: int, warmup: int):
        from ..bench import measure

        return measure(fn, self.timer, iters=iters, warmup=warmup)

    def op_floor(self, shape: dict, iters: int, warmup: int) -> float | None:
        """p10 µs of the measured op floor (compute-bound ops on sm_90a with known flops), else None: the op's flops
        through the fp16 tensor pipe, its input bytes (:meth:`bytes` less :meth:`out_bytes`) streamed beside them
        and its output bytes stored, timed like the kernel."""
        flops = self.flops(shape)
        if not self.compute_bound or not flops or self.device_arch() != "sm_90a":
            return None
        from ..ceilings import measure_tensor_floor_time

        out = self.out_bytes(shape) or 0
        inputs = max(0, (self.bytes(shape) or 0) - out)
        return measure_tensor_floor_time(flops, out, self.device, self.timer.stream, in_bytes=inputs,
                                         iters=iters, warmup=warmup).p10_us

    def ceilings(self, log) -> dict | None:
        """The cached ceilings of this device and driver; measured (once, then cached) when absent."""
        from .. import driver
        from ..ceilings import cached_ceilings, ceilings_path, get_ceilings

        hit = cached_ceilings(self.device.properties.name, driver.driver_version())
        if hit is not None:
            return hit
        log(f"[lab] no cached ceilings for this device and driver: measuring them once (stored in {ceilings_path()})")
        return get_ceilings(self.device, reuse=True, log=log)

    # ---------------------------------------------------------------- the op
    def prepare(self, shape: dict, rng: np.random.Generator):  # pragma: no cover - interface
        """Inputs on the device and their references (built once per session and shape)."""
        raise NotImplementedError

    def bind(self, kernel, state) -> Bound:  # pragma: no cover - interface
        raise NotImplementedError

    def baseline(self, state) -> Callable[[], object] | None:
        """The built-in kernel on the same inputs (timed once per session), or None."""
        return None

    def baseline_key(self, state):
        """Which built-in kernel :meth:`baseline` would time now (its timing is kept per shape and key)."""
        return None

    def describe_data(self) -> str:
        return "fresh random data"

    def release(self, state) -> None:
        """Free the device buffers of ``state``."""


def abi_differences(expected, got) -> list[str]:
    """Human-readable differences between two entry signatures (names and types, in order)."""
    out = []
    e, g = expected.params, got.params
    if len(e) != len(g):
        out.append(f"{len(g)} parameters, the ABI has {len(e)}")
    for i, (pe, pg) in enumerate(zip(e, g)):
        te = f".{pe.ptx_type} {pe.name}" + (f"[{pe.count}]" if pe.is_array else "")
        tg = f".{pg.ptx_type} {pg.name}" + (f"[{pg.count}]" if pg.is_array else "")
        if (pe.name, pe.ptx_type, pe.count) != (pg.name, pg.ptx_type, pg.count):
            out.append(f"parameter {i}: expected {te}, got {tg}")
    for i in range(len(g), len(e)):
        p = e[i]
        out.append(f"parameter {i}: missing .{p.ptx_type} {p.name}")
    for i in range(len(e), len(g)):
        p = g[i]
        out.append(f"parameter {i}: unexpected .{p.ptx_type} {p.name}")
    return out


_REGISTRY: dict[str, type[LabOp]] = {}
_MISSING: dict[str, str] = {}  # op name -> why it is not available (e.g. no built-in kernel yet)


def register_op(cls: type[LabOp]) -> type[LabOp]:
    if not (isinstance(cls, type) and issubclass(cls, LabOp)) or not cls.name:
        raise TypeError("register_op expects a LabOp subclass with a non-empty name")
    _REGISTRY[cls.name] = cls
    _MISSING.pop(cls.name, None)
    return cls


def register_missing(name: str, reason: str) -> None:
    """Name an op the lab knows of but cannot run yet; ``lab NAME`` fails with ``reason``."""
    if name not in _REGISTRY:
        _MISSING[name] = reason


def get_op(name: str) -> type[LabOp]:
    from . import _load_adapters

    _load_adapters()
    if name in _REGISTRY:
        return _REGISTRY[name]
    if name in _MISSING:
        raise LabError(_MISSING[name], status="unavailable")
    raise LabUsageError(f"unknown op {name!r}; known ops: {', '.join(op_names())}")


def op_names() -> list[str]:
    from . import _load_adapters

    _load_adapters()
    return sorted(set(_REGISTRY) | set(_MISSING))


# =========================================================================== options

@dataclass
class Options:
    op: str
    file: Path
    entry: str | None = None
    shapes: list | None = None
    target: str | None = None
    constants: dict = field(default_factory=dict)
    iters: int = 100
    warmup: int = 10
    seed: int | None = None
    data: str = "both"
    device: int = 0
    assemble_only: bool = False
    spec: Path | None = None
    watch: bool = False
    baseline: bool = True
    compiler: str | None = None  # one of nvfp4rt.module.COMPILERS; None: $NVFP4RT_COMPILER, else "auto"


# =========================================================================== the run

def _target_for(path: Path, requested: str | None, device_arch: str | None) -> tuple[str, dict]:
    """The target to build for and the header's constants for it."""
    from ..assemble import declared_variants

    try:
        variants = declared_variants(path)
    except ValueError:
        variants = []
    if requested:
        target = requested
    elif device_arch is not None:
        names = [v.target for v in variants]
        if not names or device_arch in names:
            target = device_arch
        else:  # a portable target the device can run (sm_80 runs on sm_90), the newest first
            dev_sm = int(device_arch[3:].rstrip("af"))
            ok = [t for t in names if not t.endswith(("a", "f")) and int(t[3:]) <= dev_sm]
            target = max(ok, key=lambda t: int(t[3:])) if ok else device_arch
    else:
        target = variants[0].target if variants else "sm_90a"
    consts = {}
    for v in variants:
        if v.target == target:
            consts = dict(v.constants)
            break
    return target, consts


def _assembly_record(report) -> dict:
    return {
        "entries": [{"name": f.name, "registers": f.registers, "spill_stores": f.spill_stores,
                     "spill_loads": f.spill_loads, "stack_bytes": f.stack_frame, "shared_bytes": f.shared_bytes,
                     "local_bytes": f.local_bytes, "constant_bytes": f.constant_bytes}
                    for f in report.entries.values()],
        "warnings": [{"line": w.line, "message": w.message, "source": w.source_line} for w in report.warnings],
    }


def _diagnostics_record(diags) -> list:
    return [{"line": d.line, "severity": d.severity, "message": d.message, "source": d.source_line} for d in diags]


class Session:
    """State kept between runs: the adapter, inputs and references per shape, built-in timings."""

    def __init__(self, options: Options, *, log: Callable[[str], object] | None = None):
        self.options = options
        self.log = log or (lambda msg: print(msg, file=sys.stderr))
        self.op = get_op(options.op)(options)
        from ..module import resolve_compiler

        try:
            resolve_compiler(options.compiler)
        except ValueError as exc:
            raise LabUsageError(str(exc)) from None
        path = Path(options.file)
        if not path.is_file():
            raise LabUsageError(f"PTX file {str(path)!r} not found")
        self.path = path
        self.shapes = self.op.parse_shapes(options.shapes)
        if options.seed is None:
            self.seed = secrets.randbits(63)
        else:
            self.seed = int(options.seed)
        self.opened = False
        self.device_info = None
        self.ceilings = None
        self.states: dict[int, object] = {}
        self.baselines: dict[tuple, object] = {}
        self.op_floors: dict[int, float | None] = {}
        self.setup_seconds = 0.0
        self.runs = 0
        self._kernel = None  # keeps the current module loaded

    # ------------------------------------------------------------------ helpers
    def reset(self) -> None:
        """Drop inputs, references and built-in timings (the op's spec changed)."""
        for st in self.states.values():
            self.op.release(st)
        self.states.clear()
        self.baselines.clear()
        self.op_floors.clear()
        self.setup_seconds = 0.0

    def close(self) -> None:
        self.reset()
        self._kernel = None

    def _entry(self, entries: dict) -> str:
        want = self.options.entry or self.op.default_entry
        if want is not None:
            if want not in entries:
                raise LabError(f"{self.path} has no .entry {want!r}; it has {', '.join(entries) or 'none'}"
                               + ("" if self.options.entry else " (pass --entry NAME)"), status="entry_error")
            return want
        if len(entries) == 1:
            return next(iter(entries))
        raise LabError(f"{self.path} has {len(entries)} entries ({', '.join(entries) or 'none'}): "
                       "pass --entry NAME", status="entry_error")

    # ------------------------------------------------------------------ one run
    def run(self, *, edit_time: float | None = None) -> dict:
        """One run; returns the result document (never raises for a failing kernel)."""
        from ..assemble import PtxAssemblyError, assemble, find_ptxas
        from ..module import choose_compiler, resolve_compiler
        from ..ptxsource import PtxSource, PtxTemplateError

        self.runs += 1
        t_start = time.perf_counter()
        phases: dict[str, float] = {}
        o = self.options
        res: dict = {
            "schema": RESULT_SCHEMA, "op": self.op.name, "file": str(self.path), "entry": None, "target": None,
            "status": "ok", "ok": False, "error": None, "run": self.runs,
            "data": {"seed": self.seed, "kind": self.op.describe_data()},
            "abi": None, "assembly": None, "load": None, "device": self.device_info, "ceilings": None, "shapes": [],
            "timing": {},
        }
        try:
            gpu_reason = None if o.assemble_only else self.op.gpu_reason()
            if not o.assemble_only and gpu_reason is None and not self.opened:
                self.device_info = res["device"] = self.op.open()
                self.opened = True
            arch = self.op.device_arch() if self.opened else None
            target, header_consts = _target_for(self.path, o.target, arch)
            constants = {**header_consts, **o.constants}
            res["target"] = target
            # (1) render (the template errors and the entry name need no tool at all)
            t = time.perf_counter()
            try:
                source = PtxSource.from_file(self.path, target, constants or None)
            except PtxTemplateError as exc:
                raise LabError(f"{self.path}: {exc}", status="template_error") from None
            except OSError as exc:
                raise LabError(f"cannot read {self.path}: {exc}", status="read_error") from None
            try:
                entries = source.entries
            except ValueError as exc:
                raise LabError(f"{self.path}: {exc}", status="parse_error") from None
            entry = self._entry(entries)
            res["entry"] = entry
            phases["render"] = time.perf_counter() - t
            # (1) assemble with ptxas, in a thread, while (2) the runtime builds the same text; ptxas builds what
            # runs: a relocatable unit (ptxas -c) where the JIT linker builds it, else a whole program
            asm: dict = {}
            exe = find_ptxas()
            linked = choose_compiler(resolve_compiler(self.options.compiler), source.text) == "link"

            def run_ptxas():
                t0 = time.perf_counter()
                try:
                    asm["report"] = assemble(source, target, extra_args=("-c",) if linked else (), ptxas=exe)
                except Exception as exc:  # noqa: BLE001 - reported below
                    asm["error"] = exc
                asm["seconds"] = time.perf_counter() - t0

            thread = None
            if exe is not None:
                thread = threading.Thread(target=run_ptxas, name="nvfp4rt-lab-ptxas", daemon=True)
                thread.start()
            load_exc = None
            kernel = None
            if self.opened:
                try:
                    kernel, info = self.op.load(self.path, entry, target, constants)
                    res["load"] = {"from_cache": bool(info["from_cache"]), "seconds": info["seconds"],
                                   "compiler": info.get("compiler"), "jit_notes": list(info.get("jit_notes", ()))}
                    phases["load"] = info["seconds"]
                except Exception as exc:  # noqa: BLE001 - after ptxas's verdict
                    load_exc = exc
            if thread is not None:
                thread.join()
                phases["assemble"] = asm["seconds"]
            res["assembly"] = {"ptxas": exe, "target": target, "seconds": asm.get("seconds"), "linked": linked,
                               "entries": [], "warnings": [], "errors": []}
            err = asm.get("error")
            if isinstance(err, PtxAssemblyError):
                res["assembly"]["errors"] = _diagnostics_record([d for d in err.diagnostics if d.severity == "error"]
                                                                or err.diagnostics)
                raise LabError(str(err), status="assemble_error")
            if err is not None:
                raise LabError(f"ptxas could not run: {type(err).__name__}: {err}", status="assemble_error")
            if "report" in asm:
                res["assembly"].update(_assembly_record(asm["report"]))
            if load_exc is not None:
                self._raise_load_error(load_exc, res)
            res["abi"] = self.op.check_abi(entries[entry])  # from the rendered text: fails fast, on any machine
            if o.assemble_only:
                res["status"] = "assembled" if exe is not None else "no_ptxas"
                res["ok"] = exe is not None
                if exe is None:
                    res["error"] = "ptxas not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin): nothing checked"
                return self._finish(res, phases, t_start, edit_time)
            if not self.opened:
                raise LabError(f"checking and timing need a GPU: {gpu_reason}", status="no_gpu")
            # (3) the check on every shape
            self._kernel = kernel
            if self.ceilings is None:
                self.ceilings = self.op.ceilings(self.log)
            res["ceilings"] = self.ceilings
            t_check = t_time = 0.0
            all_ok = True
            for i, shape in enumerate(self.shapes):
                state = self._state(i, shape)
                t = time.perf_counter()
                bound = self.op.bind(kernel, state)
                checks = bound.checks()
                t_check += time.perf_counter() - t
                rec = self._shape_record(shape, checks)
                res["shapes"].append(rec)
                if not rec["check"]["ok"]:
                    all_ok = False
                    continue  # a wrong result is never timed
                # (4) time it, the built-in kernel (once per session) and the floor
                t = time.perf_counter()
                tm = self.op.time(bound.run, o.iters, o.warmup)
                base = self._baseline(i, state)
                if i not in self.op_floors:
                    self.op_floors[i] = self.op.op_floor(shape, o.iters, o.warmup)
                t_time += time.perf_counter() - t
                self._timing_fields(rec, shape, tm, base, self.op_floors[i])
            phases["check"] = t_check
            phases["time"] = t_time
            if not all_ok:
                bad = [r["label"] for r in res["shapes"] if not r["check"]["ok"]]
                raise LabError(f"wrong results for {', '.join(bad)}", status="mismatch")
            res["ok"] = True
        except LabError as exc:
            res["status"] = exc.status
            res["error"] = str(exc)
        except Exception as exc:  # noqa: BLE001 - a crashing kernel must not kill the watch loop
            from .. import driver

            res["status"] = "context_lost" if isinstance(exc, driver.CudaContextLostError) else "error"
            res["error"] = f"{type(exc).__name__}: {exc}"
        return self._finish(res, phases, t_start, edit_time)

    def _raise_load_error(self, exc, res) -> None:
        from ..module import PtxCompileError

        if isinstance(exc, PtxCompileError):
            res["assembly"]["errors"] = _diagnostics_record([d for d in exc.diagnostics if d.severity == "error"])
            raise LabError(str(exc), status="jit_error")
        raise exc

    def _state(self, i: int, shape: dict):
        st = self.states.get(i)
        if st is None:
            t = time.perf_counter()
            rng = np.random.default_rng([self.seed, i])
            st = self.states[i] = self.op.prepare(shape, rng)
            dt = time.perf_counter() - t
            self.setup_seconds += dt
            self.log(f"[lab] {shape_label(shape)}: inputs and reference built in {dt:.2f} s "
                     "(once per session; re-runs reuse them)")
        return st

    def _baseline(self, i: int, state):
        if not self.options.baseline:
            return None
        key = (i, self.op.baseline_key(state))
        if key not in self.baselines:
            fn = self.op.baseline(state)
            self.baselines[key] = None if fn is None else self.op.time(fn, self.options.iters, self.options.warmup)
        return self.baselines[key]

    def _shape_record(self, shape: dict, checks: list) -> dict:
        total = sum(c.total for _, c in checks)
        mism = sum(c.mismatches for _, c in checks)
        worst_abs = max((c.max_abs for _, c in checks), default=0.0)
        worst_rel = max((c.max_rel for _, c in checks), default=0.0)
        first_bad = next(((lbl, c) for lbl, c in checks if not c.ok), None)
        detail = None
        if first_bad is not None:
            detail = f"{first_bad[0]}: {first_bad[1].report()}"
        return {
            "shape": dict(shape), "label": shape_label(shape),
            "check": {"ok": all(c.ok for _, c in checks), "mismatches": mism, "total": total,
                      "max_abs_err": worst_abs, "max_rel_err": worst_rel, "detail": detail,
                      "data": [lbl for lbl, _ in checks]},
            "median_us": None, "p10_us": None, "p90_us": None, "builtin_us": None, "speedup_vs_builtin": None,
            "floor_us": None, "pct_of_floor": None, "op_floor_us": None,
            "bytes": self.op.bytes(shape), "flops": self.op.flops(shape),
        }

    def _timing_fields(self, rec: dict, shape: dict, tm, base, op_floor_us: float | None = None) -> None:
        """Times, the built-in's, and the floor: the largest of bytes / read ceiling, flops / fp16 ceiling and
        the measured op floor (each a lower bound, so their maximum is one too)."""
        rec["median_us"], rec["p10_us"], rec["p90_us"] = tm.median_us, tm.p10_us, tm.p90_us
        if base is not None:
            rec["builtin_us"] = base.median_us
            rec["speedup_vs_builtin"] = base.median_us / tm.median_us if tm.median_us > 0 else None
        c = self.ceilings or {}
        floor = None
        nbytes, flops = rec["bytes"], rec["flops"]
        if nbytes and c.get("read_tbps"):
            floor = nbytes / (c["read_tbps"] * 1e12) * 1e6
        if self.op.compute_bound and flops and c.get("fp16_tflops"):
            f2 = flops / (c["fp16_tflops"] * 1e12) * 1e6
            floor = f2 if floor is None else max(floor, f2)
        if op_floor_us is not None:
            rec["op_floor_us"] = op_floor_us
            floor = op_floor_us if floor is None else max(floor, op_floor_us)
        rec["floor_us"] = floor
        if floor is not None and tm.median_us > 0:
            rec["pct_of_floor"] = 100.0 * floor / tm.median_us

    def _finish(self, res: dict, phases: dict, t_start: float, edit_time: float | None) -> dict:
        now = time.perf_counter()
        wall_now = time.time()
        res["timing"] = {
            "run_s": now - t_start,
            "edit_to_result_s": (wall_now - edit_time) if edit_time is not None else None,
            "phases_s": phases,
            "session_setup_s": self.setup_seconds,
        }
        if res["status"] == "ok" and not res["ok"]:
            res["status"] = "error"
        return res


def exit_status(res: dict) -> int:
    return EXIT_OK if res["ok"] else EXIT_FAIL
