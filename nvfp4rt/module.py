"""PTX modules and kernels: JIT-link with the driver, cache the cubin, load it.

``load()`` renders the PTX, looks for a cubin in the content-addressed cache
(:mod:`nvfp4rt.cache`), JIT-links on a miss (``cuLinkCreate`` /
``cuLinkAddData`` / ``cuLinkComplete``), and loads the cubin with
``cuModuleLoadData``.  The linker ignores ``setmaxnreg``, so PTX that uses it
is built as a whole program instead: by the toolkit's ``ptxas`` (cached the
same way) where one is installed, else by the driver's JIT on the PTX text
(``cuModuleLoadDataEx``).  ``compiler=`` or ``$NVFP4RT_COMPILER`` pins one
compiler for a load or for every load (COMPILERS).
The driver JIT compiles for the device of the current context (the PTX
``.target`` line, e.g. ``sm_90a``, says which features the code may use); the
device's arch is part of the cache key.

A failed link raises :class:`PtxCompileError`, whose message quotes the JIT
log with the PTX file name, line numbers and the offending source lines.

Each :class:`Module` records ``load_seconds`` and ``from_cache`` so tests and
benchmarks can report cold (JIT) against warm (cache hit) load times.
"""
from __future__ import annotations

import ctypes
import logging
import os
import re
import subprocess
import threading
import time
import warnings
import weakref
from dataclasses import dataclass
from functools import lru_cache

from . import driver
from .assemble import PtxAssemblyError, as_ptx_source, format_diagnostics, parse_diagnostics
from .cache import CubinCache, default_cache
from .ptxsource import EntrySignature, PtxSource

__all__ = ["COMPILERS", "DEFAULT_COMPILER", "Kernel", "KernelAttributes", "Module", "PtxCompileError", "choose_compiler",
           "describe_compiler", "link_ptx", "load", "normalize_jit_options", "ptxas_arguments", "resolve_compiler",
           "uses_setmaxnreg"]

_log = logging.getLogger(__name__)

#: Bytes reserved for each JIT log (info and error); the driver truncates beyond this.
LOG_BUFFER_BYTES = 64 * 1024

# JIT options a caller may set, by canonical name -> value kind.
# The log buffers, their sizes and LOG_VERBOSE belong to link_ptx itself.
_USER_OPTIONS = {
    "CU_JIT_MAX_REGISTERS": "uint",
    "CU_JIT_THREADS_PER_BLOCK": "uint",
    "CU_JIT_OPTIMIZATION_LEVEL": "uint",
    "CU_JIT_MIN_CTA_PER_SM": "uint",
    "CU_JIT_GENERATE_DEBUG_INFO": "flag",
    "CU_JIT_GENERATE_LINE_INFO": "flag",
    "CU_JIT_FTZ": "flag",
    "CU_JIT_PREC_DIV": "flag",
    "CU_JIT_PREC_SQRT": "flag",
    "CU_JIT_FMA": "flag",
}
_OWNED_OPTIONS = ("CU_JIT_INFO_LOG_BUFFER", "CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES", "CU_JIT_ERROR_LOG_BUFFER",
                  "CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES", "CU_JIT_LOG_VERBOSE", "CU_JIT_WALL_TIME")


class PtxCompileError(driver.CudaError):
    """The driver JIT rejected the PTX.

    ``diagnostics`` lists the parsed errors and warnings, ``log`` the raw error
    log, ``info_log`` the info log, ``source`` the rendered :class:`PtxSource`.
    """

    def __init__(self, call: str, result, source: PtxSource, log: str, info_log: str = ""):
        self.source = source
        self.log = log
        self.info_log = info_log
        self.diagnostics = parse_diagnostics(log + "\n" + info_log, source)
        errors = [d for d in self.diagnostics if d.severity == "error"]
        if errors:
            detail = f"PTX JIT failed for {source.origin}:\n" + format_diagnostics(source.origin, errors)
        else:
            text = (log or info_log).strip() or "(the JIT log is empty)"
            detail = f"PTX JIT failed for {source.origin}:\n{text}"
        super().__init__(call, result, detail=detail)


# ---------------------------------------------------------------------- options

def normalize_jit_options(options) -> dict[str, int]:
    """Validate JIT options and return them as ``{CU_JIT_NAME: int}`` sorted by name.

    Keys may be ``CUjit_option`` members or names, with or without the
    ``CU_JIT_`` prefix, in any case (``"max_registers"``).  Values must be
    non-negative ints (flags may be bools).  The canonical form is what goes
    into the cache key, so equal option sets always hash alike.
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"options must be a dict of JIT option -> value, got {type(options).__name__}")
    out: dict[str, int] = {}
    for key, value in options.items():
        if isinstance(key, driver.raw.CUjit_option):
            name = key.name
        elif isinstance(key, str):
            name = key.upper()
            if not name.startswith("CU_JIT_"):
                name = "CU_JIT_" + name
        else:
            raise TypeError(f"JIT option keys must be str or CUjit_option, got {type(key).__name__}")
        if name in _OWNED_OPTIONS:
            raise ValueError(f"JIT option {name} is managed by nvfp4rt (logs are always captured)")
        kind = _USER_OPTIONS.get(name)
        if kind is None:
            raise ValueError(f"unsupported JIT option {key!r}; supported: {sorted(_USER_OPTIONS)}")
        if kind == "flag" and isinstance(value, bool):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"JIT option {name} needs an int value, got {value!r}")
        if value < 0 or (kind == "flag" and value not in (0, 1)):
            raise ValueError(f"JIT option {name}={value} is out of range")
        if name == "CU_JIT_OPTIMIZATION_LEVEL" and value > 4:
            raise ValueError(f"JIT option {name}={value}: the level is 0..4")
        out[name] = value
    return dict(sorted(out.items()))


# ---------------------------------------------------------------------- linking

def _log_text(buf: bytearray) -> str:
    return bytes(buf).split(b"\0", 1)[0].decode(errors="replace").strip()


def _jit_option_arrays(options: dict[str, int]) -> tuple[list, list, bytearray, bytearray]:
    """The JIT option keys and values for the driver (its info and error logs, verbose, then ``options``), and the
    two log buffers.  The bindings pass the bytearrays as char*: keep them alive until the call that fills them is
    done (the link state's destruction, or the module load)."""
    jo = driver.raw.CUjit_option
    info_buf = bytearray(LOG_BUFFER_BYTES)
    error_buf = bytearray(LOG_BUFFER_BYTES)
    keys = [jo.CU_JIT_INFO_LOG_BUFFER, jo.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            jo.CU_JIT_ERROR_LOG_BUFFER, jo.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, jo.CU_JIT_LOG_VERBOSE]
    values: list = [info_buf, LOG_BUFFER_BYTES, error_buf, LOG_BUFFER_BYTES, 1]
    for name, value in options.items():
        keys.append(getattr(jo, name))
        values.append(value)
    return keys, values, info_buf, error_buf


def _jit_link(source: PtxSource, device: driver.Device, options: dict[str, int]) -> tuple[bytes, str]:
    """JIT-link ``source`` for ``device``: ``(cubin bytes, info log)``."""
    device.activate()
    keys, values, info_buf, error_buf = _jit_option_arrays(options)
    state = driver.call("cuLinkCreate", len(keys), keys, values)
    try:
        data = source.text.encode() + b"\0"
        name = os.path.basename(source.origin).encode() or b"<string>"
        try:
            driver.call("cuLinkAddData", state, driver.raw.CUjitInputType.CU_JIT_INPUT_PTX,
                        data, len(data), name, 0, None, None)
            cubin_ptr, cubin_size = driver.call("cuLinkComplete", state)
        except driver.CudaError as exc:
            raise PtxCompileError(exc.call, exc.result, source, _log_text(error_buf), _log_text(info_buf)) from None
        # The cubin belongs to the link state: copy it before cuLinkDestroy.
        cubin = ctypes.string_at(int(cubin_ptr), int(cubin_size))
        info = _log_text(info_buf)
    finally:
        try:
            driver.call("cuLinkDestroy", state)
        except driver.CudaError:  # never hide the original error
            _log.warning("cuLinkDestroy failed", exc_info=True)
    if info:
        _log.debug("JIT info log for %s:\n%s", source.origin, info)
    return cubin, info


def link_ptx(source: PtxSource, device: driver.Device | int | None = None, options: dict | None = None) -> bytes:
    """JIT-link rendered PTX into a cubin for ``device`` (default: the current device).

    Raises :class:`PtxCompileError` with the JIT log mapped to source lines.
    """
    if not isinstance(source, PtxSource):
        raise TypeError(f"source must be a rendered PtxSource, got {type(source).__name__}")
    opts = normalize_jit_options(options)
    return _jit_link(source, _resolve_device(device), opts)[0]


def _resolve_device(device) -> driver.Device:
    if device is None:
        return driver.device()
    if isinstance(device, driver.Device):
        return device
    if isinstance(device, int) and not isinstance(device, bool):
        return driver.device(device)
    raise TypeError(f"device must be a Device, an ordinal or None, got {type(device).__name__}")


# ---------------------------------------------------------------------- compilers

#: How ``load`` turns PTX into machine code (``compiler=``, or ``$NVFP4RT_COMPILER``):
#:
#: * ``"auto"`` (the default): a whole-program build (``"ptxas"`` where the toolkit's ptxas is found and takes the
#:   JIT options, else ``"driver"``) for PTX that uses ``setmaxnreg``, which the linker would ignore; ``"link"`` for
#:   everything else.  :func:`choose_compiler` is the rule.
#: * ``"link"``: the driver's JIT linker (``cuLinkCreate`` / ``cuLinkAddData`` / ``cuLinkComplete``), the cubin
#:   kept in nvfp4rt's cache.  The linker compiles PTX as one of several compilation units: it ignores
#:   ``setmaxnreg`` (the JIT log's C7504), so a warp-specialised kernel's consumers get the block's average register
#:   count.
#: * ``"driver"``: the driver's JIT without the linker (``cuModuleLoadDataEx`` on the PTX text), a whole program, so
#:   ``setmaxnreg`` holds.  The driver returns no cubin: nvfp4rt's cache is not used (the driver keeps its own JIT
#:   cache).
#: * ``"ptxas"``: the CUDA toolkit's ``ptxas`` (a whole program, ``setmaxnreg`` holds), the cubin kept in nvfp4rt's
#:   cache under a key that names the ptxas release; FileNotFoundError where no ptxas is installed, and
#:   :class:`nvfp4rt.assemble.PtxAssemblyError` (line-mapped, like PtxCompileError) when ptxas rejects the PTX.
#:
#: Measured on the H100 (docs/device-logs/2026-11-28-session43/, run 2, the benches under "link" and "ptxas" on
#: one machine): the two kernels that use ``setmaxnreg`` run 5-10% faster as whole programs (grouped case 2 63.7
#: against 70.6-71.1 us; the cluster dual kernel on 512 x 4096 x 7168 83.7 against 90.7-90.8), while the GEMM
#: template's builds, which do not use it, run level to 2.9 us slower built by ptxas than by the linker.
COMPILERS = ("auto", "link", "driver", "ptxas")
DEFAULT_COMPILER = "auto"
COMPILER_ENV = "NVFP4RT_COMPILER"

#: JIT options that ptxas takes as command-line arguments (the others have no ptxas form)
_PTXAS_ARGS = {
    "CU_JIT_MAX_REGISTERS": lambda v: [f"--maxrregcount={v}"],
    "CU_JIT_OPTIMIZATION_LEVEL": lambda v: [f"-O{min(v, 3)}"],
    "CU_JIT_GENERATE_LINE_INFO": lambda v: ["-lineinfo"] if v else [],
    "CU_JIT_GENERATE_DEBUG_INFO": lambda v: ["-g"] if v else [],
    "CU_JIT_FMA": lambda v: [f"--fmad={'true' if v else 'false'}"],
    "CU_JIT_THREADS_PER_BLOCK": lambda v: [f"--maxntid={v}"],
    "CU_JIT_MIN_CTA_PER_SM": lambda v: [f"--minnctapersm={v}"],
}


def resolve_compiler(compiler: str | None = None) -> str:
    """``compiler`` if given, else ``$NVFP4RT_COMPILER`` if set, else DEFAULT_COMPILER; one of COMPILERS."""
    name = compiler if compiler is not None else (os.environ.get(COMPILER_ENV, "").strip() or DEFAULT_COMPILER)
    if name not in COMPILERS:
        where = "compiler" if compiler is not None else f"${COMPILER_ENV}"
        raise ValueError(f"{where} must be one of {COMPILERS}, got {name!r}")
    return name


def ptxas_arguments(options: dict[str, int]) -> list[str]:
    """The ptxas command-line arguments for normalised JIT ``options``; ValueError naming any option ptxas has no
    form for (CU_JIT_FTZ, CU_JIT_PREC_DIV, CU_JIT_PREC_SQRT)."""
    missing = sorted(set(options) - set(_PTXAS_ARGS))
    if missing:
        raise ValueError(f"JIT options {missing} have no ptxas form; use compiler='link' or 'driver'")
    return [a for name, value in options.items() for a in _PTXAS_ARGS[name](value)]


_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_SETMAXNREG = re.compile(r"\bsetmaxnreg\.")


def uses_setmaxnreg(ptx_text: str) -> bool:
    """Whether PTX code (comments aside) contains a ``setmaxnreg`` instruction."""
    return bool(_SETMAXNREG.search(_COMMENTS.sub("", ptx_text)))


def choose_compiler(compiler: str, ptx_text: str, options: dict[str, int] | None = None, *,
                    ptxas_found: bool | None = None) -> str:
    """The compiler that builds ``ptx_text``: ``compiler`` itself unless it is "auto"; for "auto", "link" when the
    PTX does not use ``setmaxnreg``, else a whole program: "ptxas" where ptxas is found (``ptxas_found``, default:
    :func:`nvfp4rt.assemble.find_ptxas`) and takes every JIT option in ``options``, else "driver"."""
    if compiler != "auto":
        return compiler
    if not uses_setmaxnreg(ptx_text):
        return "link"
    if ptxas_found is None:
        from .assemble import find_ptxas

        ptxas_found = find_ptxas() is not None
    ptxas_takes_options = not set(options or {}) - set(_PTXAS_ARGS)
    return "ptxas" if ptxas_found and ptxas_takes_options else "driver"


def describe_compiler(compiler: str | None = None) -> str:
    """One line naming what ``compiler`` (default: :func:`resolve_compiler`) builds with on this machine, e.g.
    "auto (setmaxnreg kernels by ptxas (release 13.0, V13.0.88); others by the JIT linker)"."""
    name = resolve_compiler(compiler)
    if name != "auto":
        return name
    from .assemble import find_ptxas

    exe = find_ptxas()
    whole = f"ptxas ({_ptxas_release_name(exe)})" if exe else "the driver's whole-program JIT (no ptxas found)"
    return f"auto (setmaxnreg kernels by {whole}; others by the JIT linker)"


@lru_cache(maxsize=8)
def _ptxas_version(exe: str) -> tuple[str, ...]:
    """The lines of ``exe --version``."""
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    return tuple(out.splitlines())


def _ptxas_release(exe: str) -> str:
    """The build line of ``exe --version``, e.g. "Build cuda_13.0.r13.0/compiler.36424714_0" (part of the cache key
    of what it builds)."""
    lines = _ptxas_version(exe)
    return lines[-1] if lines else exe


def _ptxas_release_name(exe: str) -> str:
    """The release named by ``exe --version``, e.g. "release 13.0, V13.0.88"."""
    lines = _ptxas_version(exe)
    named = [ln.split("tools, ", 1)[-1] for ln in lines if "release" in ln]
    return named[0] if named else _ptxas_release(exe)


def _ptxas_build(source: PtxSource, arch: str, options: dict[str, int]) -> tuple[bytes, str]:
    """Assemble ``source`` for ``arch`` with the toolkit's ptxas: ``(cubin, ptxas -v log)``."""
    from .assemble import assemble

    report = assemble(source, arch, extra_args=ptxas_arguments(options))
    return report.cubin, report.log


def _driver_load(source: PtxSource, device: driver.Device, options: dict[str, int]) -> tuple[object, str]:
    """Load ``source`` with the driver's JIT as a whole program (``cuModuleLoadDataEx``): ``(module handle, info
    log)``; PtxCompileError with the JIT's log when it fails."""
    device.activate()
    keys, values, info_buf, error_buf = _jit_option_arrays(options)
    data = source.text.encode() + b"\0"
    try:
        handle = driver.call("cuModuleLoadDataEx", data, len(keys), keys, values)
    except driver.CudaError as exc:
        raise PtxCompileError(exc.call, exc.result, source, _log_text(error_buf), _log_text(info_buf)) from None
    return handle, _log_text(info_buf)


# ---------------------------------------------------------------------- modules

_DEFAULT = object()


def load(source_or_path, *, constants: dict | None = None, device=None, target: str | None = None,
         options: dict | None = None, cache=_DEFAULT, ptx_version: str | None = None,
         compiler: str | None = None) -> "Module":
    """Load PTX (a path, PTX text or a :class:`PtxSource`) as a :class:`Module`.

    ``target`` fills ``{{TARGET}}`` (default: the device's arch, e.g. sm_90a).
    ``cache`` is a :class:`CubinCache`, None/False for no caching, or the
    default (:func:`nvfp4rt.cache.default_cache`, which follows the environment).
    ``compiler`` is one of COMPILERS (default: ``$NVFP4RT_COMPILER``, else "auto"; see COMPILERS): "auto"
    builds PTX that uses ``setmaxnreg`` as a whole program and everything else with the JIT linker
    (:func:`choose_compiler`); the module's ``compiler`` names the one that built it.
    """
    # validate everything that needs no GPU first, so mistakes surface anywhere
    if target is not None and not isinstance(target, str):
        raise TypeError(f"target must be a str such as 'sm_90a', got {type(target).__name__}")
    if isinstance(source_or_path, PtxSource) and (constants or target or ptx_version):
        raise ValueError("constants/target/ptx_version cannot apply to a PtxSource that is already rendered")
    if constants is not None and not isinstance(constants, dict):
        raise TypeError(f"constants must be a dict of template values, got {type(constants).__name__}")
    if not isinstance(source_or_path, (PtxSource, str, os.PathLike)):
        raise TypeError(f"source must be a PtxSource, a path or PTX text (str), got {type(source_or_path).__name__}")
    opts = normalize_jit_options(options)
    compiler = resolve_compiler(compiler)
    if compiler == "ptxas":
        ptxas_arguments(opts)  # an option ptxas cannot take fails here, before any GPU work
    if cache is _DEFAULT:
        cache = default_cache()
    elif cache is None or cache is False:
        cache = None
    elif not isinstance(cache, CubinCache):
        raise TypeError(f"cache must be a CubinCache, None or False, got {type(cache).__name__}")
    if isinstance(device, bool) or (device is not None and not isinstance(device, (driver.Device, int))):
        raise TypeError(f"device must be a Device, an ordinal or None, got {type(device).__name__}")

    dev = _resolve_device(device)
    arch = dev.arch
    source = as_ptx_source(source_or_path, target or arch, constants, ptx_version)
    chosen = choose_compiler(compiler, source.text, opts)
    t0 = time.perf_counter()
    if chosen == "ptxas" and compiler == "auto":
        # auto's whole-program build: where ptxas cannot build or the driver cannot load its cubin (a toolkit
        # older than the PTX, or newer than the driver), the driver's own whole-program JIT builds it instead
        try:
            return _load_compiled(source, dev, opts, chosen, cache, t0)
        except (PtxAssemblyError, driver.CudaError, OSError, subprocess.SubprocessError) as exc:
            warnings.warn(f"nvfp4rt: ptxas could not build {source.origin} ({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0]}); the driver's whole-program JIT builds it", RuntimeWarning,
                          stacklevel=2)
            chosen = "driver"
    return _load_compiled(source, dev, opts, chosen, cache, t0)


def _load_compiled(source: PtxSource, dev: driver.Device, opts: dict[str, int], compiler: str,
                   cache: CubinCache | None, t0: float) -> "Module":
    """Build ``source`` with ``compiler`` (not "auto"), through ``cache`` where it returns a cubin, and load it."""
    arch = dev.arch
    jit_log = ""
    if compiler == "driver":
        handle, jit_log = _driver_load(source, dev, opts)
        return Module(handle, dev, source, b"", key=None, from_cache=False, load_seconds=time.perf_counter() - t0,
                      jit_log=jit_log, compiler=compiler)

    def build() -> bytes:
        nonlocal jit_log
        if compiler == "ptxas":
            cubin, jit_log = _ptxas_build(source, arch, opts)
        else:
            cubin, jit_log = _jit_link(source, dev, opts)
        return cubin

    if cache is not None:
        # "link" keys stay as they were; a ptxas build's key also names the ptxas release
        key_opts = opts if compiler == "link" else {**opts, "nvfp4rt_compiler": _compiler_tag()}
        key = cache.key(source.text, arch, key_opts, driver_version=driver.driver_version())
        cubin, hit = cache.get_or_build(key, build)
    else:
        key, cubin, hit = None, build(), False
    dev.activate()
    handle = driver.call("cuModuleLoadData", cubin)
    elapsed = time.perf_counter() - t0
    return Module(handle, dev, source, cubin, key=key, from_cache=hit, load_seconds=elapsed, jit_log=jit_log,
                  compiler=compiler)


def _compiler_tag() -> str:
    from .assemble import find_ptxas

    exe = find_ptxas()
    if exe is None:
        raise FileNotFoundError("compiler='ptxas' needs the CUDA toolkit's ptxas: none on PATH, in $CUDA_HOME/bin or "
                                "/usr/local/cuda/bin")
    return "ptxas " + _ptxas_release(exe)


def _unload(handle, device: driver.Device) -> None:
    try:
        device.activate()
        driver.call("cuModuleUnload", handle)
    except Exception:  # at interpreter exit the context may already be gone
        pass


class Module:
    """A loaded cubin.  Get kernels with :meth:`kernel`; unloaded on :meth:`close` or GC.

    Attributes: ``device``, ``source`` (rendered PTX), ``cubin`` (bytes; empty when ``compiler`` is "driver"),
    ``compiler`` (which of "link", "driver", "ptxas" built it),
    ``key`` (cache key or None), ``from_cache`` (True on a cache hit),
    ``load_seconds`` (render-to-loaded wall time), ``jit_log`` (JIT info log
    when this load compiled), ``entries`` (name -> :class:`EntrySignature`).
    """

    def __init__(self, handle, device: driver.Device, source: PtxSource, cubin: bytes, *, key: str | None,
                 from_cache: bool, load_seconds: float, jit_log: str = "", compiler: str = "link"):
        self.compiler = compiler
        self.handle = handle
        self.device = device
        self.source = source
        self.cubin = cubin
        self.key = key
        self.from_cache = from_cache
        self.load_seconds = load_seconds
        self.jit_log = jit_log
        self.entries: dict[str, EntrySignature] = source.entries
        self._kernels: dict[str, Kernel] = {}
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _unload, handle, device)

    def __repr__(self) -> str:
        how = "cache hit" if self.from_cache else "JIT"
        state = "closed" if self.closed else f"{how}, {self.load_seconds * 1e3:.1f} ms"
        return f"<Module {self.source.origin} entries={list(self.entries)} ({state})>"

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def kernel(self, name: str) -> "Kernel":
        """The kernel ``name`` (an ``.entry`` of the PTX)."""
        if not isinstance(name, str):
            raise TypeError(f"kernel name must be a str, got {type(name).__name__}")
        if self.closed:
            raise ValueError(f"module {self.source.origin} is closed")
        with self._lock:
            k = self._kernels.get(name)
            if k is None:
                if name not in self.entries:
                    raise KeyError(f"{self.source.origin} has no .entry {name!r}; it has {list(self.entries)}")
                self.device.activate()
                func = driver.call("cuModuleGetFunction", self.handle, name.encode())
                k = self._kernels[name] = Kernel(name, func, self.entries[name], self)
            return k

    def __getitem__(self, name: str) -> "Kernel":
        return self.kernel(name)

    def close(self) -> None:
        """Unload the module now (kernels of it must not be launched afterwards)."""
        self._kernels.clear()
        self._finalizer()

    def __enter__(self) -> "Module":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---------------------------------------------------------------------- kernels

@dataclass(frozen=True)
class KernelAttributes:
    """Resources of a loaded kernel, read with ``cuFuncGetAttribute`` (sizes in bytes)."""

    registers: int
    local_bytes: int
    static_shared_bytes: int
    const_bytes: int
    max_threads_per_block: int
    max_dynamic_shared_bytes: int
    ptx_version: int
    binary_version: int


class Kernel:
    """One ``.entry`` of a loaded :class:`Module`: a ``CUfunction`` plus its signature."""

    def __init__(self, name: str, function, signature: EntrySignature, module: Module):
        self.name = name
        self.function = function
        self.signature = signature
        self.module = module
        self.device = module.device

    def __repr__(self) -> str:
        params = ", ".join(f"{p.ptx_type} {p.name}" + (f"[{p.count}]" if p.is_array else "")
                           for p in self.signature.params)
        return f"<Kernel {self.name}({params})>"

    def _attr(self, name: str) -> int:
        return int(driver.call("cuFuncGetAttribute", getattr(driver.raw.CUfunction_attribute, name), self.function))

    def attributes(self) -> KernelAttributes:
        a = self._attr
        return KernelAttributes(
            registers=a("CU_FUNC_ATTRIBUTE_NUM_REGS"),
            local_bytes=a("CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES"),
            static_shared_bytes=a("CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES"),
            const_bytes=a("CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES"),
            max_threads_per_block=a("CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
            max_dynamic_shared_bytes=a("CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"),
            ptx_version=a("CU_FUNC_ATTRIBUTE_PTX_VERSION"),
            binary_version=a("CU_FUNC_ATTRIBUTE_BINARY_VERSION"),
        )

    def set_max_dynamic_shared(self, nbytes: int) -> None:
        """Allow launches with up to ``nbytes`` of dynamic shared memory (needed above 48 KiB).  Never lowers
        what was allowed before."""
        if isinstance(nbytes, bool) or not isinstance(nbytes, int):
            raise TypeError(f"nbytes must be an int, got {type(nbytes).__name__}")
        if nbytes < 0:
            raise ValueError(f"nbytes must be >= 0, got {nbytes}")
        limit = self.device.properties.max_shared_per_block_optin
        static = self._attr("CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES")
        if nbytes + static > limit:
            raise ValueError(f"{self.name}: {nbytes} bytes of dynamic shared memory plus {static} static exceed "
                             f"the device's {limit} bytes per block")
        # the attribute belongs to the function, which plans of different sizes share: only ever raise it, so a
        # plan that needs less never takes away what an earlier one was allowed (its launch would fail)
        if nbytes > self._attr("CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"):
            driver.call("cuFuncSetAttribute", self.function,
                        driver.raw.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, nbytes)

    def set_shared_carveout(self, percent: int) -> None:
        """Prefer a shared-memory carveout of ``percent`` (0..100) of the SM's unified L1/shared storage for this
        kernel (``cuFuncSetAttribute`` PREFERRED_SHARED_MEMORY_CARVEOUT; -1: the driver's default).  An SM changes
        its carveout only when it is idle, so a kernel meant to share SMs with one that needs most of the shared
        memory (a PDL prologue beside a GEMM) should ask for the same carveout."""
        if isinstance(percent, bool) or not isinstance(percent, int):
            raise TypeError(f"percent must be an int, got {type(percent).__name__}")
        if not (percent == -1 or 0 <= percent <= 100):
            raise ValueError(f"percent must be -1 or in 0..100, got {percent}")
        driver.call("cuFuncSetAttribute", self.function,
                    driver.raw.CUfunction_attribute.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent)

    def __call__(self, *args, grid, block, cluster=None, shared_mem=0, stream=None, non_portable_cluster=False,
                 programmatic=False):
        """Launch with ``args`` in ``.param`` order (see :func:`nvfp4rt.launch.launch`;
        ``programmatic=True`` is a programmatic dependent launch)."""
        from .launch import launch

        return launch(self, args, grid=grid, block=block, cluster=cluster, shared_mem=shared_mem, stream=stream,
                      non_portable_cluster=non_portable_cluster, programmatic=programmatic)

    def prepare(self, *args, **geometry):
        """A :class:`nvfp4rt.launch.PreparedLaunch` with the arguments packed once (``geometry``: grid,
        block, cluster, shared_mem, stream, non_portable_cluster, programmatic)."""
        from .launch import PreparedLaunch

        return PreparedLaunch(self, args, **geometry)
