"""The ``nvfp4rt`` command: ``bench``, ``info``, ``cache`` (and ``lab``, registered by its own module).

Every subcommand is added by a small ``_add_<name>(subparsers)`` function that
sets ``func`` on its parser; :func:`main` dispatches to it.  ``lab`` lives in
``nvfp4rt.lab`` (written separately): when that module exists and defines
``add_parser(subparsers)``, :func:`_add_lab` calls it, nothing else is needed
here.  Commands that need a GPU print the driver's reason and exit 1 on a
machine without one; ``cache`` works anywhere.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

__all__ = ["main", "build_parser"]

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2


def _err(msg: str) -> None:
    print(f"nvfp4rt: {msg}", file=sys.stderr)


def _gpu_reason() -> str | None:
    from . import driver

    return driver.unavailable_reason()


def _human_bytes(n: int | float | None) -> str:
    if n is None:
        return "?"
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover


# --------------------------------------------------------------------------- bench

def _add_bench(sub) -> None:
    p = sub.add_parser("bench", help="benchmark an op against the measured ceilings and peers",
                       description="Benchmark an op: L2 cleared before every call, CUDA-event times, "
                                   "median of --iters calls; writes bench/results/<op>-<device>-<date>.json.")
    p.add_argument("op", nargs="?", help="op to benchmark (e.g. gemv); optional with --render")
    p.add_argument("--shapes", nargs="+", metavar="SHAPE",
                   help="preset names (default: the competition shapes) and/or comma-separated dims like 7168,16384,1")
    p.add_argument("--iters", type=_positive_int, default=100, help="timed calls per shape (default 100)")
    p.add_argument("--warmup", type=_nonneg_int, default=10, help="untimed calls first (default 10)")
    p.add_argument("--json", metavar="PATH", help="write the result here instead of bench/results/")
    p.add_argument("--no-peers", action="store_true", help="do not time the torch/cupy peers")
    p.add_argument("--reuse-ceilings", action="store_true",
                   help="use cached ceilings for this device/driver instead of re-measuring them")
    p.add_argument("--seed", type=int, default=None, help="seed of the random inputs (default: fresh)")
    p.add_argument("--device", type=_nonneg_int, default=0, help="device ordinal (default 0)")
    p.add_argument("--results-dir", metavar="DIR", help="results directory (default: <checkout>/bench/results)")
    p.add_argument("--render", action="store_true",
                   help="regenerate BENCHMARKS.md from the results directory (after the run, if OP is given)")
    p.set_defaults(func=_cmd_bench)


def _positive_int(text: str) -> int:
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text}")
    return v


def _nonneg_int(text: str) -> int:
    v = int(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text}")
    return v


def _cmd_bench(args) -> int:
    from . import bench

    if args.op is None and not args.render:
        _err("bench: give an OP to benchmark, or --render to regenerate BENCHMARKS.md")
        return EXIT_USAGE
    if args.op is not None:
        try:  # check the op and shapes before touching the GPU: typos fail fast everywhere
            bench.get_op(args.op)(None, None).parse_shapes(args.shapes)
        except (ValueError, TypeError) as exc:
            _err(f"bench: {exc}")
            return EXIT_USAGE
        reason = _gpu_reason()
        if reason is not None:
            _err(f"bench needs a GPU: {reason}")
            return EXIT_FAIL
        if args.iters < 100:
            _err(f"warning: --iters {args.iters} is below 100; medians of fewer calls are noisier")
        result = bench.run_bench(args.op, args.shapes, iters=args.iters, warmup=args.warmup,
                                 with_peers=not args.no_peers, reuse_ceilings=args.reuse_ceilings,
                                 seed=args.seed, device=args.device)
        path = bench.write_result(result, args.json, results_dir=args.results_dir)
        print(f"wrote {path}")
    if args.render:
        out = bench.write_markdown(args.results_dir)
        print(f"wrote {out}")
    return EXIT_OK


# --------------------------------------------------------------------------- info

def _add_info(sub) -> None:
    p = sub.add_parser("info", help="device, driver and measured ceilings",
                       description="Show the device, driver, the measured ceilings (measured once, then "
                                   "cached per device and driver) and the kernel cache.")
    p.add_argument("--device", type=_nonneg_int, default=0, help="device ordinal (default 0)")
    p.add_argument("--remeasure", action="store_true", help="measure the ceilings again and update the cache")
    p.set_defaults(func=_cmd_info)


def _cmd_info(args) -> int:
    reason = _gpu_reason()
    if reason is not None:
        _err(reason)
        return EXIT_FAIL
    from . import driver
    from .bench import _driver_version_text
    from .cache import bindings_version, default_cache
    from .ceilings import ceilings_path, get_ceilings

    dev = driver.device(args.device)
    p = dev.properties
    rows = [
        ("device", f"{p.ordinal}: {p.name}"),
        ("arch", f"{p.arch} (compute capability {p.compute_capability[0]}.{p.compute_capability[1]})"),
        ("driver", f"CUDA {_driver_version_text(driver.driver_version())}"),
        ("cuda-bindings", bindings_version()),
        ("SMs", str(p.sm_count)),
        ("L2", _human_bytes(p.l2_bytes)),
        ("shared memory", f"{_human_bytes(p.max_shared_per_block_optin)} per block (opt-in), "
                          f"{_human_bytes(p.max_shared_per_sm)} per SM"),
        ("cluster launch", "yes" if p.cluster_launch else "no"),
        ("memory", _human_bytes(p.total_memory)),
    ]
    for k, v in rows:
        print(f"{k:>16}: {v}")
    c = get_ceilings(dev, reuse=not args.remeasure, log=lambda m: print(m, file=sys.stderr))
    tc = c.get("fp16_tflops")
    print(f"{'read bandwidth':>16}: {c['read_tbps']:.2f} TB/s (bw_read.ptx, {_human_bytes(c.get('read_bytes'))})")
    print(f"{'fp16 tensor':>16}: " + ("n/a (neither torch nor cupy importable)" if tc is None
                                       else f"{tc:.0f} TFLOP/s ({c.get('fp16_source')})"))
    print(f"{'measured':>16}: {c.get('measured_at')} (cached in {ceilings_path()})")
    cache = default_cache()
    entries = cache.entries()
    print(f"{'kernel cache':>16}: {cache.directory} ({len(entries)} entries, {_human_bytes(sum(e.size for e in entries))})"
          + ("" if cache.enabled else " [disabled by NVFP4RT_CACHE]"))
    from .module import COMPILER_ENV, describe_compiler

    try:
        compiler = describe_compiler()
    except ValueError as e:
        compiler = f"invalid: {e}"
    print(f"{'compiler':>16}: {compiler} (${COMPILER_ENV}: auto, link, driver or ptxas; docs/runtime.md)")
    return EXIT_OK


# --------------------------------------------------------------------------- cache

def _add_cache(sub) -> None:
    p = sub.add_parser("cache", help="list, inspect or clear the compiled-kernel cache (no GPU needed)")
    csub = p.add_subparsers(dest="cache_cmd", metavar="{ls,show,export,sass,clear}")
    csub.required = True
    ls = csub.add_parser("ls", help="list cached cubins")
    ls.set_defaults(func=_cmd_cache_ls)
    key_help = "the entry: its key or a unique prefix of it (4 hex digits at least), as `cache ls` prints it"
    show = csub.add_parser("show", help="one entry's kernels and their machine-code size")
    show.add_argument("key", help=key_help)
    show.set_defaults(func=_cmd_cache_show)
    exp = csub.add_parser("export", help="write one entry's cubin (without the cache's header) to a file")
    exp.add_argument("key", help=key_help)
    exp.add_argument("-o", "--output", help="the file to write (default: <key>.cubin here)")
    exp.set_defaults(func=_cmd_cache_export)
    sa = csub.add_parser("sass", help="one entry's SASS (needs cuobjdump or nvdisasm from the CUDA toolkit)")
    sa.add_argument("key", help=key_help)
    sa.add_argument("-o", "--output", help="write the SASS to this file instead of standard output")
    sa.set_defaults(func=_cmd_cache_sass)
    cl = csub.add_parser("clear", help="remove every cached cubin")
    cl.set_defaults(func=_cmd_cache_clear)


def _cmd_cache_ls(args) -> int:
    import datetime as dt

    from .cache import default_cache

    cache = default_cache()
    entries = cache.entries()
    total = sum(e.size for e in entries)
    print(f"{cache.directory}: {len(entries)} entries, {_human_bytes(total)}"
          + ("" if cache.enabled else " (caching disabled by NVFP4RT_CACHE)"))
    for e in entries:
        when = dt.datetime.fromtimestamp(e.mtime, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")
        print(f"  {e.key}  {_human_bytes(e.size):>10}  {when}")
    return EXIT_OK


def _cached_cubin(key: str) -> tuple[str, bytes] | None:
    """(full key, cubin) of the entry ``key`` names, or None after an error line on stderr."""
    from .cache import default_cache

    cache = default_cache()
    try:
        full = cache.resolve(key)
    except (ValueError, KeyError) as e:
        print(f"nvfp4rt cache: {e.args[0]}", file=sys.stderr)
        return None
    payload = cache.get(full)
    if payload is None:
        print(f"nvfp4rt cache: entry {full[:16]} is not a valid cache entry (removed; it is rebuilt on next use)",
              file=sys.stderr)
        return None
    return full, payload


def _on_cached_cubin(key: str, action) -> int:
    """Run ``action(full_key, cubin)`` on the entry ``key`` names; its ValueError, RuntimeError (a missing or failing
    disassembler) or OSError becomes one error line and exit status 1."""
    got = _cached_cubin(key)
    if got is None:
        return EXIT_FAIL
    full, payload = got
    try:
        action(full, payload)
    except (ValueError, RuntimeError, OSError) as e:
        print(f"nvfp4rt cache: entry {full[:16]}: {e}", file=sys.stderr)
        return EXIT_FAIL
    return EXIT_OK


def _cmd_cache_show(args) -> int:
    from .cubin import kernels

    def show(full: str, payload: bytes) -> None:
        found = kernels(payload)
        print(f"{full}  {_human_bytes(len(payload))} cubin")
        for name, code in found.items():
            print(f"  {name}  {_human_bytes(code)} of machine code")
    return _on_cached_cubin(args.key, show)


def _cmd_cache_export(args) -> int:
    def export(full: str, payload: bytes) -> None:
        out = Path(args.output) if args.output else Path(f"{full}.cubin")
        out.write_bytes(payload)
        print(f"wrote {out} ({_human_bytes(len(payload))})")
    return _on_cached_cubin(args.key, export)


def _cmd_cache_sass(args) -> int:
    from .cubin import sass

    def disassemble(full: str, payload: bytes) -> None:
        text = sass(payload)
        if args.output:
            Path(args.output).write_text(text)
            print(f"wrote {args.output} ({text.count(chr(10))} lines)")
        else:
            sys.stdout.write(text)
    return _on_cached_cubin(args.key, disassemble)


def _cmd_cache_clear(args) -> int:
    from .cache import default_cache

    cache = default_cache()
    n = cache.clear()
    print(f"removed {n} entries from {cache.directory}")
    return EXIT_OK


# --------------------------------------------------------------------------- lab

def _add_lab(sub) -> None:
    """Register ``nvfp4rt lab`` when ``nvfp4rt.lab`` provides ``add_parser(subparsers)``.

    The contract for that function: add one parser to ``subparsers`` and
    ``set_defaults(func=...)`` with a function taking the parsed args and
    returning the exit status.
    """
    try:
        from . import lab
    except ImportError:
        return
    add = getattr(lab, "add_parser", None)
    if callable(add):
        add(sub)


#: Subcommand registration functions, in help order.
SUBCOMMANDS = [_add_bench, _add_info, _add_cache, _add_lab]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nvfp4rt", description="NVFP4 kernels on the CUDA driver API: "
                                                                 "benchmarks, device info, kernel cache.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 failure, 2 usage)."""
    from .driver import CudaError, CudaUnavailableError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except AssertionError as exc:  # bench.BenchCheckError: a wrong result is never timed
        _err(f"correctness check failed: {exc}")
        return EXIT_FAIL
    except CudaUnavailableError as exc:
        _err(str(exc))
        return EXIT_FAIL
    except CudaError as exc:
        _err(str(exc))
        return EXIT_FAIL
    except KeyboardInterrupt:
        _err("interrupted")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
