"""``nvfp4rt lab custom FILE.ptx --spec SPEC.py``: a new op described by a small Python file.

The spec is a plain module (no nvfp4rt imports needed) defining::

    SHAPE_KEYS = ("n",)                        # names of a shape's dimensions, in command-line order
    PRESETS = {"default": [(1 << 24,)], "small": [(4096,)]}   # "default" is required
    def inputs(shape, rng) -> dict             # name -> numpy array (copied to the GPU) or a scalar
    def outputs(shape) -> dict                 # name -> (shape tuple, numpy dtype), allocated on the GPU
    def launch(shape, args) -> dict            # {"args": [...], "grid": ..., "block": ..., "shared_mem": 0}
    def reference(shape, inputs) -> dict       # output name -> expected numpy array

and optionally ``ENTRY`` (the default entry name), ``BASELINE`` (a .ptx path,
relative to the spec, with the same ABI: the kernel to time against),
``TOLERANCE = (atol, rtol)`` (default the competition's 1e-3, 1e-3),
``bytes_moved(shape)`` and ``flops(shape)`` (enable the floor column),
``COMPUTE_BOUND = True`` (the floor also counts the fp16 tensor rate and, on Hopper,
the measured same-size tensor floor) and ``out_bytes(shape)`` (the output bytes that
floor kernel stores; 0 when absent).

``shape`` is a dict keyed by ``SHAPE_KEYS``; in ``launch``, ``args`` maps every
input and output name to its device array (scalars stay scalars), and the
returned ``"args"`` list is passed to the kernel in ``.entry`` order.  Outputs
are filled with 0xFF bytes (NaN for float types) before the checked launch.
``docs/examples/scaled_add.py`` is a complete example.
"""
from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import numpy as np

from .core import Bound, LabError, LabOp, LabUsageError, register_op

__all__ = ["CustomLab", "load_spec", "REQUIRED"]

#: What a spec must define, with the form the error message shows.
REQUIRED = {
    "SHAPE_KEYS": 'SHAPE_KEYS = ("n",)  (names of the dimensions)',
    "PRESETS": 'PRESETS = {"default": [(1 << 20,)]}  (a "default" preset is required)',
    "inputs": "def inputs(shape, rng) -> {name: numpy array or scalar}",
    "outputs": "def outputs(shape) -> {name: (shape, dtype)}",
    "launch": 'def launch(shape, args) -> {"args": [...], "grid": ..., "block": ..., "shared_mem": 0}',
    "reference": "def reference(shape, inputs) -> {output name: expected numpy array}",
}
_counter = itertools.count()


def load_spec(path):
    """Import the spec file at ``path`` and check it defines every required piece (LabUsageError if not)."""
    path = Path(path)
    if not path.is_file():
        raise LabUsageError(f"custom spec {str(path)!r} not found")
    mod_spec = importlib.util.spec_from_file_location(f"nvfp4rt_lab_spec_{next(_counter)}", path)
    if mod_spec is None or mod_spec.loader is None:
        raise LabUsageError(f"custom spec {path}: cannot import it (is it a .py file?)")
    module = importlib.util.module_from_spec(mod_spec)
    try:
        mod_spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - any error in the user's file is a usage error
        raise LabUsageError(f"custom spec {path} failed to import: {type(exc).__name__}: {exc}") from None
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    if missing:
        raise LabUsageError(f"custom spec {path} lacks " + ", ".join(missing) + ":\n"
                            + "\n".join(f"  {REQUIRED[n]}" for n in missing))
    for name in ("inputs", "outputs", "launch", "reference"):
        if not callable(getattr(module, name)):
            raise LabUsageError(f"custom spec {path}: {name} must be a function ({REQUIRED[name]})")
    keys = module.SHAPE_KEYS
    if not isinstance(keys, (tuple, list)) or not keys or not all(isinstance(k, str) for k in keys):
        raise LabUsageError(f"custom spec {path}: SHAPE_KEYS must be a non-empty tuple of names, got {keys!r}")
    presets = module.PRESETS
    if not isinstance(presets, dict) or "default" not in presets:
        raise LabUsageError(f"custom spec {path}: PRESETS must be a dict with a 'default' list of shapes")
    for pname, shapes in presets.items():
        for s in shapes:
            if not isinstance(s, (tuple, list)) or len(s) != len(keys):
                raise LabUsageError(f"custom spec {path}: preset {pname!r} has shape {s!r}, expected "
                                    f"{len(keys)} integers ({', '.join(keys)})")
    tol = getattr(module, "TOLERANCE", (1e-3, 1e-3))
    if not (isinstance(tol, (tuple, list)) and len(tol) == 2):
        raise LabUsageError(f"custom spec {path}: TOLERANCE must be (atol, rtol), got {tol!r}")
    return module


class _State:
    def __init__(self, shape, host, dev, ref):
        self.shape, self.host, self.dev, self.ref = shape, host, dev, ref
        self.baseline_kernel = None


@register_op
class CustomLab(LabOp):
    """An op defined by a spec file (see the module docstring)."""

    name = "custom"

    def __init__(self, options):
        super().__init__(options)
        if options.spec is None:
            raise LabUsageError("lab custom needs --spec SPEC.py (how to build inputs, the launch and the reference; "
                                "docs/lab.md shows one)")
        self.spec_path = Path(options.spec)
        self.reload()

    def reload(self) -> None:
        self.spec = load_spec(self.spec_path)
        self.shape_keys = tuple(self.spec.SHAPE_KEYS)
        self.presets = dict(self.spec.PRESETS)
        self.default_entry = getattr(self.spec, "ENTRY", None)
        self.compute_bound = bool(getattr(self.spec, "COMPUTE_BOUND", False))
        self.tolerance = tuple(getattr(self.spec, "TOLERANCE", (1e-3, 1e-3)))
        base = getattr(self.spec, "BASELINE", None)
        self.baseline_path = None if base is None else (self.spec_path.parent / base)
        if self.baseline_path is not None and not self.baseline_path.is_file():
            raise LabUsageError(f"custom spec {self.spec_path}: BASELINE {str(self.baseline_path)!r} not found")

    def watched_files(self):
        return [self.spec_path]

    def describe_data(self) -> str:
        return f"fresh random data from {self.spec_path.name}"

    def bytes(self, shape):
        f = getattr(self.spec, "bytes_moved", None)
        return int(f(dict(shape))) if callable(f) else None

    def flops(self, shape):
        f = getattr(self.spec, "flops", None)
        return int(f(dict(shape))) if callable(f) else None

    def out_bytes(self, shape):
        f = getattr(self.spec, "out_bytes", None)
        return int(f(dict(shape))) if callable(f) else None

    def prepare(self, shape, rng):
        from ..array import asarray, empty

        host = self.spec.inputs(dict(shape), rng)
        if not isinstance(host, dict):
            raise LabError(f"{self.spec_path}: inputs() must return a dict, got {type(host).__name__}",
                           status="spec_error")
        outs = self.spec.outputs(dict(shape))
        if not isinstance(outs, dict) or not outs:
            raise LabError(f"{self.spec_path}: outputs() must return a non-empty dict name -> (shape, dtype)",
                           status="spec_error")
        ref = self.spec.reference(dict(shape), host)
        if not isinstance(ref, dict) or set(ref) - set(outs):
            raise LabError(f"{self.spec_path}: reference() must return a dict keyed by output names {sorted(outs)}",
                           status="spec_error")
        self.device.activate()
        dev = {}
        for name, v in host.items():
            dev[name] = asarray(np.ascontiguousarray(v), device=self.device) if isinstance(v, np.ndarray) else v
        for name, (shp, dtype) in outs.items():
            dev[name] = empty(tuple(shp), np.dtype(dtype), device=self.device)
        return _State(dict(shape), host, dev, {k: np.asarray(v) for k, v in ref.items()})

    def _launcher(self, kernel, st: _State):
        cfg = self.spec.launch(dict(st.shape), dict(st.dev))
        if not isinstance(cfg, dict) or "args" not in cfg or "grid" not in cfg or "block" not in cfg:
            raise LabError(f"{self.spec_path}: launch() must return a dict with 'args', 'grid' and 'block' "
                           "(and optionally 'shared_mem', 'cluster')", status="spec_error")
        prepared = kernel.prepare(*cfg["args"], grid=cfg["grid"], block=cfg["block"], cluster=cfg.get("cluster"),
                                  shared_mem=cfg.get("shared_mem", 0), stream=self.timer.stream)
        return prepared.launch

    def bind(self, kernel, st: _State) -> Bound:
        from .. import driver
        from ..reference import check

        run = self._launcher(kernel, st)
        atol, rtol = self.tolerance

        def checks():
            for name in st.ref:
                arr = st.dev[name]
                driver.call("cuMemsetD8", arr.ptr, 0xFF, arr.nbytes)
            run()
            self.timer.synchronize()
            return [(name, check(st.dev[name].numpy(), st.ref[name], atol=atol, rtol=rtol)) for name in st.ref]

        return Bound(checks=checks, run=run)

    def baseline(self, st: _State):
        if self.baseline_path is None:
            return None
        if st.baseline_kernel is None:
            from .core import _target_for

            target, consts = _target_for(self.baseline_path, self.options.target, self.device.arch)
            kernel, _ = self.load(self.baseline_path, self.options.entry or self.default_entry
                                  or _only_entry(self.baseline_path, target), target, consts)
            st.baseline_kernel = kernel
        return self._launcher(st.baseline_kernel, st)

    def release(self, st: _State) -> None:
        for v in st.dev.values():
            close = getattr(v, "close", None)
            if close is not None:
                close()
        st.dev.clear()
        st.baseline_kernel = None


def _only_entry(path: Path, target: str) -> str:
    from ..ptxsource import PtxSource

    entries = PtxSource.from_file(path, target).entries
    if len(entries) != 1:
        raise LabError(f"BASELINE {path} has entries {list(entries)}: set ENTRY in the spec", status="spec_error")
    return next(iter(entries))
