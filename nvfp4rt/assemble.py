"""Offline PTX assembly with ``ptxas``: resource reports and error checking without a GPU.

Why: the driver JIT needs a GPU, but ``ptxas`` from a CUDA toolkit assembles
PTX anywhere.  CI uses it to check that every file in ``ptx/`` assembles for the
targets it is meant for, and ``tools/ptxas_report.py`` prints what each kernel
costs (registers, spills, stack, shared and constant memory), which is how we
notice register pressure or spills before timing anything.

Declared targets: a file with a concrete ``.target sm_XX`` line is meant for
that target.  A templated file (``.target {{TARGET}}``) says what it is meant
for in one or more header comment lines::

    // nvfp4rt: targets=sm_90a,sm_80 constants=TILE_M=128,STAGES=4 ptx_version=8.7

Each such line is one *variant* (targets x one set of template constants);
``constants`` and ``ptx_version`` are optional.  :func:`declared_variants`
reads them; :func:`declared_targets` is the union of their targets.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .ptxsource import DEFAULT_PTX_VERSION, PtxSource

__all__ = [
    "AssemblyReport",
    "Diagnostic",
    "FunctionResources",
    "PtxAssemblyError",
    "Variant",
    "as_ptx_source",
    "assemble",
    "declared_targets",
    "declared_variants",
    "find_ptxas",
    "format_diagnostics",
    "parse_diagnostics",
    "parse_ptxas_verbose",
]

_TARGET_RE = re.compile(r"^sm_\d+[a-z]?$")


# ---------------------------------------------------------------------- sources

def as_ptx_source(source_or_path, target: str, constants: dict | None = None,
                  ptx_version: str | None = None) -> PtxSource:
    """Turn what a caller passed into rendered :class:`PtxSource`.

    Accepts a :class:`PtxSource` (already rendered: ``constants`` must then be
    None), a :class:`pathlib.Path`, or a ``str`` that is either PTX text (it
    has a newline) or a path to a ``.ptx`` file.
    """
    if not isinstance(target, str) or not _TARGET_RE.match(target):
        raise ValueError(f"target must look like 'sm_90a', got {target!r}")
    if constants is not None and not isinstance(constants, dict):
        raise TypeError(f"constants must be a dict of template values, got {type(constants).__name__}")
    if ptx_version is not None and not isinstance(ptx_version, str):
        raise TypeError(f"ptx_version must be a str such as '8.7', got {type(ptx_version).__name__}")
    version = ptx_version or DEFAULT_PTX_VERSION
    if isinstance(source_or_path, PtxSource):
        if constants:
            raise ValueError("constants were given for a PtxSource that is already rendered")
        return source_or_path
    if isinstance(source_or_path, os.PathLike):
        return PtxSource.from_file(Path(source_or_path), target, constants, version)
    if isinstance(source_or_path, str):
        if "\n" in source_or_path:
            return PtxSource.from_string(source_or_path, target, constants, version)
        path = Path(source_or_path)
        if not path.is_file():
            raise FileNotFoundError(f"PTX file {source_or_path!r} not found (a PTX text must contain newlines)")
        return PtxSource.from_file(path, target, constants, version)
    raise TypeError("source must be a PtxSource, a path or PTX text (str), "
                    f"got {type(source_or_path).__name__}")


# ---------------------------------------------------------------------- declarations

@dataclass(frozen=True)
class Variant:
    """One way a PTX file is meant to be built: a target and its template constants."""

    target: str
    constants: dict = field(default_factory=dict, hash=False)
    ptx_version: str | None = None


_HEADER_RE = re.compile(r"^\s*//\s*nvfp4rt:\s*(.*)$")
_CONCRETE_TARGET_RE = re.compile(r"^\s*\.target\s+(sm_\d+[a-z]?)\b", re.M)
_TEMPLATED_TARGET_RE = re.compile(r"^\s*\.target\s+\{\{\s*TARGET\s*\}\}", re.M)


def _parse_header(line: str, where: str) -> list[Variant]:
    fields: dict[str, str] = {}
    for item in line.split():
        name, sep, value = item.partition("=")
        if not sep or name not in ("targets", "constants", "ptx_version"):
            raise ValueError(f"{where}: cannot read {item!r} in the nvfp4rt header "
                             "(expected targets=..., constants=NAME=VALUE,..., ptx_version=X.Y)")
        fields[name] = value
    targets = [t for t in fields.get("targets", "").split(",") if t]
    if not targets:
        raise ValueError(f"{where}: the nvfp4rt header names no targets")
    for t in targets:
        if not _TARGET_RE.match(t):
            raise ValueError(f"{where}: target {t!r} does not look like sm_90a")
    constants: dict[str, str] = {}
    for pair in (p for p in fields.get("constants", "").split(",") if p):
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"{where}: constant {pair!r} is not NAME=VALUE")
        constants[name] = value
    return [Variant(t, dict(constants), fields.get("ptx_version")) for t in targets]


def declared_variants(path: str | os.PathLike) -> list[Variant]:
    """How the file at ``path`` is meant to be built (see the module docstring).

    Raises ValueError for a templated ``.target`` without an ``// nvfp4rt:``
    header, and for a header that disagrees with a concrete ``.target``.
    """
    path = Path(path)
    text = path.read_text()
    variants: list[Variant] = []
    for n, line in enumerate(text.splitlines(), 1):
        m = _HEADER_RE.match(line)
        if m:
            variants += _parse_header(m.group(1), f"{path.name}:{n}")
    concrete = _CONCRETE_TARGET_RE.search(text)
    if concrete:
        for v in variants:
            if v.target != concrete.group(1):
                raise ValueError(f"{path.name}: header target {v.target} disagrees with .target {concrete.group(1)}")
        return variants or [Variant(concrete.group(1))]
    if not variants:
        kind = "a templated .target {{TARGET}}" if _TEMPLATED_TARGET_RE.search(text) else "no .target line"
        raise ValueError(f"{path.name} has {kind} and no '// nvfp4rt: targets=sm_90a ...' header line "
                         "saying which targets it is meant for")
    return variants


def declared_targets(path: str | os.PathLike) -> tuple[str, ...]:
    """The targets the file at ``path`` is meant for, in declaration order, without repeats."""
    return tuple(dict.fromkeys(v.target for v in declared_variants(path)))


# ---------------------------------------------------------------------- ptxas

def find_cuda_tool(name: str) -> str | None:
    """A CUDA toolkit executable (``ptxas``, ``cuobjdump``, ``nvdisasm``): on PATH, else in ``$CUDA_HOME/bin``,
    ``$CUDA_PATH/bin`` or ``/usr/local/cuda/bin``; None if none."""
    found = shutil.which(name)
    if found:
        return found
    for base in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if base:
            candidate = Path(base) / "bin" / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return None


def find_ptxas() -> str | None:
    """The ``ptxas`` executable (:func:`find_cuda_tool`)."""
    return find_cuda_tool("ptxas")


@dataclass
class FunctionResources:
    """What ``ptxas -v`` reports for one function (sizes in bytes)."""

    name: str
    is_entry: bool = False
    registers: int | None = None
    barriers: int | None = None
    stack_frame: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    shared_bytes: int = 0
    local_bytes: int = 0
    constant_banks: dict = field(default_factory=dict)  # bank -> bytes, e.g. {0: 384}

    @property
    def constant_bytes(self) -> int:
        return sum(self.constant_banks.values())

    @property
    def spills(self) -> bool:
        return bool(self.spill_stores or self.spill_loads)


@dataclass(frozen=True)
class Diagnostic:
    """One ``line N; error/warning : message`` from ptxas or the driver JIT."""

    severity: str  # 'error' or 'warning'
    line: int | None
    message: str
    source_line: str = ""


@dataclass
class AssemblyReport:
    """The result of :func:`assemble`."""

    origin: str
    target: str
    cubin: bytes
    functions: dict  # name -> FunctionResources, in ptxas order
    warnings: list  # list[Diagnostic]
    log: str
    command: list

    @property
    def entries(self) -> dict:
        return {n: f for n, f in self.functions.items() if f.is_entry}

    def table(self) -> str:
        """A fixed-width table, one row per entry."""
        head = ("entry", "regs", "spill st", "spill ld", "stack", "smem", "lmem", "cmem")
        rows = [head] + [
            (f.name, str(f.registers if f.registers is not None else "?"), str(f.spill_stores),
             str(f.spill_loads), str(f.stack_frame), str(f.shared_bytes), str(f.local_bytes),
             str(f.constant_bytes))
            for f in self.entries.values()
        ]
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                 for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)


class PtxAssemblyError(RuntimeError):
    """ptxas rejected the PTX; the message quotes each error with its source line."""

    def __init__(self, origin: str, target: str, diagnostics: list, log: str):
        self.origin = origin
        self.target = target
        self.diagnostics = diagnostics
        self.log = log
        errors = [d for d in diagnostics if d.severity == "error"] or diagnostics
        body = format_diagnostics(origin, errors) if errors else log.strip()
        super().__init__(f"ptxas failed to assemble {origin} for {target}:\n{body}")


_DIAG_RE = re.compile(r"^ptxas\s+(?P<file>.*?),\s*line\s+(?P<line>\d+);\s*(?P<sev>error|warning)\s*:\s*(?P<msg>.*)$")
_PLAIN_DIAG_RE = re.compile(r"^ptxas\s+(?P<sev>error|warning|fatal)\s*:\s*(?P<msg>.*)$")


def parse_diagnostics(log: str, source: PtxSource | None = None) -> list[Diagnostic]:
    """Every error/warning line of a ptxas or JIT log, with the PTX source line when known.

    Handles ``ptxas <file>, line N; error   : msg`` (the JIT writes
    ``ptxas application ptx input, line N; ...``) and ``ptxas fatal   : msg``.
    """
    out = []
    for raw in log.splitlines():
        line = raw.strip()
        m = _DIAG_RE.match(line)
        if m:
            n = int(m.group("line"))
            src = source.source_line(n) if source is not None else ""
            out.append(Diagnostic(m.group("sev"), n, m.group("msg").strip(), src))
            continue
        m = _PLAIN_DIAG_RE.match(line)
        if m:
            sev = "error" if m.group("sev") == "fatal" else m.group("sev")
            on_line = re.search(r"\bon line (\d+)", m.group("msg"))  # e.g. non-ASCII characters
            n = int(on_line.group(1)) if on_line else None
            src = source.source_line(n) if (source is not None and n) else ""
            out.append(Diagnostic(sev, n, m.group("msg").strip(), src))
    return out


def format_diagnostics(origin: str, diagnostics: list) -> str:
    """``origin:N: error: message`` followed by the numbered source line."""
    lines = []
    for d in diagnostics:
        where = f"{origin}:{d.line}" if d.line is not None else origin
        lines.append(f"  {where}: {d.severity}: {d.message}")
        if d.line is not None and d.source_line:
            lines.append(f"    {d.line:>5} | {d.source_line.rstrip()}")
    return "\n".join(lines)


_ENTRY_RE = re.compile(r"Compiling entry function '([^']+)'")
_PROPS_RE = re.compile(r"Function properties for (\S+)")
_FRAME_RE = re.compile(r"(\d+) bytes stack frame,\s*(\d+) bytes spill stores,\s*(\d+) bytes spill loads")
_USED_RE = re.compile(r"Used (\d+) registers")
_BARRIERS_RE = re.compile(r"used (\d+) barriers")
_SMEM_RE = re.compile(r"(\d+) bytes smem")
_LMEM_RE = re.compile(r"(\d+) bytes lmem")
_CMEM_RE = re.compile(r"(\d+) bytes cmem\[(\d+)\]")


def parse_ptxas_verbose(log: str) -> dict:
    """Per-function resources from ``ptxas -v`` output: name -> :class:`FunctionResources`.

    ptxas prints, per entry: ``Compiling entry function 'k'``, then ``Function
    properties for k`` with an indented ``N bytes stack frame, ...`` line, then
    ``Used N registers, used B barriers, S bytes smem, C bytes cmem[0]``.
    Called ``.func`` functions get their own properties block.
    """
    functions: dict[str, FunctionResources] = {}
    entry: FunctionResources | None = None
    props: FunctionResources | None = None

    def get(name: str) -> FunctionResources:
        if name not in functions:
            functions[name] = FunctionResources(name)
        return functions[name]

    for line in log.splitlines():
        m = _ENTRY_RE.search(line)
        if m:
            entry = get(m.group(1))
            entry.is_entry = True
            props = None
            continue
        m = _PROPS_RE.search(line)
        if m:
            props = get(m.group(1))
            continue
        m = _FRAME_RE.search(line)
        if m and props is not None:
            props.stack_frame, props.spill_stores, props.spill_loads = (int(g) for g in m.groups())
            continue
        m = _USED_RE.search(line)
        if m and entry is not None:
            entry.registers = int(m.group(1))
            if (b := _BARRIERS_RE.search(line)):
                entry.barriers = int(b.group(1))
            if (s := _SMEM_RE.search(line)):
                entry.shared_bytes = int(s.group(1))
            if (lm := _LMEM_RE.search(line)):
                entry.local_bytes = int(lm.group(1))
            entry.constant_banks = {int(bank): int(n) for n, bank in _CMEM_RE.findall(line)}
    return functions


def assemble(source_or_path, target: str = "sm_90a", constants: dict | None = None,
             extra_args=(), *, ptx_version: str | None = None, ptxas: str | None = None) -> AssemblyReport:
    """Assemble rendered PTX with ``ptxas -arch=<target> -v`` and report resources.

    Raises :class:`PtxAssemblyError` (quoting each error's line and source text)
    when ptxas fails, and FileNotFoundError when no ptxas is installed.
    """
    source = as_ptx_source(source_or_path, target, constants, ptx_version)
    if isinstance(extra_args, (str, bytes)) or not all(isinstance(a, str) for a in extra_args):
        raise TypeError("extra_args must be a sequence of str command-line arguments")
    exe = ptxas or find_ptxas()
    if exe is None:
        raise FileNotFoundError("ptxas not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin")
    with tempfile.TemporaryDirectory(prefix="nvfp4rt-ptxas-") as tmp:
        ptx_path = Path(tmp) / (Path(source.origin).stem if source.origin != "<string>" else "input")
        ptx_path = ptx_path.with_suffix(".ptx")
        cubin_path = Path(tmp) / "out.cubin"
        ptx_path.write_text(source.text)
        cmd = [exe, f"-arch={target}", "-v", *extra_args, "-o", str(cubin_path), str(ptx_path)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        log = (proc.stdout or "") + (proc.stderr or "")
        diagnostics = parse_diagnostics(log, source)
        if proc.returncode != 0 or not cubin_path.is_file():
            raise PtxAssemblyError(source.origin, target, diagnostics, log)
        cubin = cubin_path.read_bytes()
    return AssemblyReport(
        origin=source.origin,
        target=target,
        cubin=cubin,
        functions=parse_ptxas_verbose(log),
        warnings=[d for d in diagnostics if d.severity == "warning"],
        log=log,
        command=cmd,
    )


# ---------------------------------------------------------------------- command line

def main(argv: list[str] | None = None) -> int:
    """``ptxas_report FILE.ptx [--target sm_90a] [-D NAME=VALUE ...] [--linked]``: print the per-entry table."""
    import argparse

    parser = argparse.ArgumentParser(prog="ptxas_report", description="Assemble a PTX file with ptxas -v "
                                     "and print registers, spills, stack, shared and constant memory per entry.")
    parser.add_argument("file", help="the .ptx file")
    parser.add_argument("--target", default=None,
                        help="e.g. sm_90a (default: the file's declared targets, else sm_90a)")
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE",
                        help="a template constant (repeatable); overrides the header's constants")
    parser.add_argument("--ptx-version", default=None, help="PTX ISA version for {{PTX_VERSION}}")
    parser.add_argument("--linked", action="store_true",
                        help="assemble as the driver's JIT linker builds it (ptxas -c, a relocatable unit: setmaxnreg "
                             "is ignored, C7504), which the runtime's default compiler uses for PTX without "
                             "setmaxnreg; without it, a whole program, as the runtime builds PTX that uses setmaxnreg")
    args = parser.parse_args(argv)

    defines = {}
    for d in args.defines:
        name, sep, value = d.partition("=")
        if not sep or not name:
            parser.error(f"-D {d!r}: expected NAME=VALUE")
        defines[name] = value
    try:
        if args.target:
            variants = [Variant(args.target)]
        else:
            try:
                variants = declared_variants(args.file)
            except ValueError:
                variants = [Variant("sm_90a")]
        status = 0
        for v in variants:
            consts = {**v.constants, **defines}
            try:
                report = assemble(args.file, v.target, consts or None, ("-c",) if args.linked else (),
                                  ptx_version=args.ptx_version or v.ptx_version)
            except PtxAssemblyError as exc:
                print(exc, file=sys.stderr)
                status = 1
                continue
            extra = " ".join(f"{k}={val}" for k, val in consts.items())
            mode = "  (as the JIT linker builds it: ptxas -c)" if args.linked else ""
            print(f"{report.origin}  [{v.target}{'  ' + extra if extra else ''}]{mode}")
            print(report.table())
            for w in report.warnings:
                print(f"warning: {w.message}" + (f" (line {w.line})" if w.line else ""))
            for line in report.log.splitlines():  # e.g. C7515: wgmma serialised (an info line, not a warning)
                if "Potential Performance Loss" in line:
                    print("performance: " + line.split(":", 1)[-1].strip())
            print()
        return status
    except (OSError, ValueError) as exc:
        print(f"ptxas_report: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
