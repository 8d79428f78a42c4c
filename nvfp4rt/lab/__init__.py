"""``nvfp4rt lab``: the edit -> check -> measure loop for handwritten kernels.

    nvfp4rt lab OP FILE.ptx [--entry NAME] [--shapes PRESET | m,n,k,l ...] [--watch] [--json [PATH]]

One run renders FILE, assembles it offline with ``ptxas`` (errors quoted with
their PTX lines; registers, spills and shared memory per entry) while the
driver JIT-links it through the cubin cache, checks it against the op's
float64 reference on fresh random data (worst error, mismatch count), times it
next to the built-in kernel and the hardware floor (L2 cleared, median), and
prints one table.  ``--watch`` re-runs on every save; ``--json`` writes the
result for scripts; any failure exits non-zero.

OP is an adapter in this package (``gemv``, ``gemm``, ``dual_gemm``, ``custom``): see
:mod:`nvfp4rt.lab.core` for the interface and the run, :mod:`.report` for
the table and JSON, :mod:`.watch` for the re-run loop, and ``docs/lab.md`` for each op's
kernel ABI.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .core import (EXIT_FAIL, EXIT_OK, EXIT_USAGE, LabError, LabOp, LabUsageError, Options, Session, get_op,
                   op_names, register_op)
from .report import format_table, to_json
from .watch import watch

__all__ = ["add_parser", "run_lab", "LabOp", "LabError", "LabUsageError", "Options", "Session", "register_op",
           "get_op", "op_names", "format_table", "to_json", "watch"]

_ADAPTER_MODULES = ("gemv", "custom", "gemm", "dual_gemm")
_loaded = False


def _load_adapters() -> None:
    """Import the adapter modules once; each registers itself."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib

    for name in _ADAPTER_MODULES:
        importlib.import_module(f"{__name__}.{name}")


def _define(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, value


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text}")
    return v


def _nonneg_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text}")
    return v


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``lab`` on the ``nvfp4rt`` command (called by :mod:`nvfp4rt.cli`)."""
    p = subparsers.add_parser(
        "lab", help="assemble, check and time your own PTX kernel for an op (edit -> result loop)",
        description="Render and assemble FILE.ptx (ptxas, when present), JIT-load it through the cubin cache, "
                    "check it against the op's reference on fresh random data, time it against the built-in "
                    "kernel and the hardware floor (L2 cleared, median) and print one table. "
                    "Kernel ABIs of each op: docs/lab.md.",
        epilog="exit status: 0 all shapes correct (and timed), 1 any failure, 2 bad arguments")
    p.add_argument("op", help="gemv, gemm, dual_gemm, or custom (with --spec)")
    p.add_argument("file", help="the .ptx file with your kernel")
    p.add_argument("--entry", help="the .entry to run (default: the op's entry name, or the file's only entry)")
    p.add_argument("--shapes", nargs="+", metavar="SHAPE",
                   help="preset names (default: the benchmark shapes; 'small' for a quick one) and/or "
                        "comma-separated dims in the op's order, e.g. 7168,16384,1 for gemv m,k,l")
    p.add_argument("--spec", metavar="SPEC.py", help="custom op: the Python spec file (inputs, launch, reference)")
    p.add_argument("--watch", action="store_true", help="run again every time the file is saved (Ctrl-C stops)")
    p.add_argument("--json", nargs="?", const="-", metavar="PATH",
                   help="write the result as JSON to PATH (or, without PATH, to stdout instead of the table; "
                        "one line per run with --watch)")
    p.add_argument("--target", help="the target to build for (default: the device's arch, e.g. sm_90a)")
    p.add_argument("-D", dest="defines", action="append", type=_define, default=[], metavar="NAME=VALUE",
                   help="a template constant for {{NAME}} (repeatable)")
    p.add_argument("--iters", type=_positive_int, default=100, help="timed calls per shape (default 100)")
    p.add_argument("--warmup", type=_nonneg_int, default=10, help="untimed calls first (default 10)")
    p.add_argument("--seed", type=int, help="seed of the random inputs (default: fresh per session, printed)")
    p.add_argument("--data", choices=("both", "competition", "wide"), default="both",
                   help="input distributions checked (default both; timings use the first: competition)")
    p.add_argument("--no-baseline", action="store_true", help="do not time the built-in kernel")
    p.add_argument("--assemble-only", action="store_true", help="only render and assemble (no GPU needed)")
    p.add_argument("--device", type=_nonneg_int, default=0, help="device ordinal (default 0)")
    p.add_argument("--compiler", choices=("auto", "link", "driver", "ptxas"), default=None,
                   help="what builds the kernel (default: $NVFP4RT_COMPILER, else auto: a whole program where the PTX "
                        "uses setmaxnreg, else the driver's JIT linker; docs/runtime.md); the offline ptxas report "
                        "builds the same way (ptxas -c where the linker builds it)")
    p.add_argument("--watch-runs", type=_positive_int, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=run_lab)
    return p


def _options(args) -> Options:
    return Options(op=args.op, file=Path(args.file), entry=args.entry, shapes=args.shapes, target=args.target,
                   constants=dict(args.defines), iters=args.iters, warmup=args.warmup, seed=args.seed,
                   data=args.data, device=args.device, assemble_only=args.assemble_only,
                   spec=Path(args.spec) if args.spec else None, watch=args.watch, baseline=not args.no_baseline,
                   compiler=args.compiler)


def _err(msg: str) -> None:
    print(f"nvfp4rt lab: {msg}", file=sys.stderr)


def run_lab(args) -> int:
    """The ``lab`` command: returns the exit status."""
    try:
        session = Session(_options(args))
    except LabUsageError as exc:
        _err(str(exc))
        return EXIT_USAGE
    except LabError as exc:
        _err(str(exc))
        return EXIT_FAIL
    to_stdout = args.json == "-"
    json_path = None if (args.json is None or to_stdout) else Path(args.json)

    def emit(res: dict) -> None:
        if to_stdout:
            print(to_json(res), flush=True)
            if not res["ok"]:
                _err(f"{res['status']}: {res['error']}")
        else:
            if args.watch:
                print(f"\n=== run {res['run']} ===")
            print(format_table(res), flush=True)
        if json_path is not None:
            json_path.parent.mkdir(parents=True, exist_ok=True)
            json_path.write_text(to_json(res) + "\n")

    try:
        if args.watch:
            if not to_stdout:
                print(f"nvfp4rt lab: watching {session.path} (Ctrl-C stops)", file=sys.stderr)
            return watch(session, emit, max_runs=args.watch_runs)
        res = session.run()
        emit(res)
        return EXIT_OK if res["ok"] else EXIT_FAIL
    finally:
        session.close()
