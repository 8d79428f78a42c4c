#!/usr/bin/env python3
"""GPU checks of ``nvfp4rt lab``, with PASS/FAIL lines and the edit-to-result time.

    python3 tools/lab_check.py [--shapes default] [--edits 3] [--out DIR]

1. the built-in GEMV given as FILE: correct on both distributions, timed next
   to itself (the built-in) and the floor, at the benchmark shapes;
2. a deliberately wrong GEMV (alpha + 0.5, one added instruction): caught,
   non-zero status, nothing timed;
3. the custom example (docs/examples/scaled_add.{ptx,py}): runs and is timed;
4. edit -> result: the watch loop over a copy of the GEMV kernel at the
   benchmark shapes; each edit changes a comment (so the PTX text, and the
   cache key, change and the driver JIT really runs), and the time from the
   file's modification time to the finished result is reported; the bar is 2 s.

Exit status 0 when everything passed.  Writes each run's JSON to --out.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nvfp4rt import driver  # noqa: E402
from nvfp4rt.lab import Options, Session, format_table, to_json, watch  # noqa: E402
from nvfp4rt.ptxsource import ptx_dir  # noqa: E402

GEMV = ptx_dir() / "gemv_nvfp4.ptx"
EXAMPLE_PTX = ROOT / "docs" / "examples" / "scaled_add.ptx"
EXAMPLE_SPEC = ROOT / "docs" / "examples" / "scaled_add.py"
BAR_S = 2.0

failures = 0


def verdict(ok: bool, what: str) -> None:
    global failures
    print(f"{'PASS' if ok else 'FAIL'}: {what}", flush=True)
    failures += 0 if ok else 1


def save(out: Path | None, name: str, res: dict) -> None:
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{name}.json").write_text(to_json(res) + "\n")


def one_run(name: str, out: Path | None, **opts) -> dict:
    t = time.perf_counter()
    s = Session(Options(**opts))
    try:
        res = s.run()
    finally:
        s.close()
    print(format_table(res))
    print(f"({name}: whole session {time.perf_counter() - t:.1f} s)\n", flush=True)
    save(out, name, res)
    return res


def wrong_gemv(tmp: Path) -> Path:
    text = GEMV.read_text()
    m = re.search(r"^(\s*)ld\.param\.f32\s+(%\w+),\s*\[alpha\];[^\n]*$", text, re.M)
    if m is None:
        raise SystemExit("gemv_nvfp4.ptx no longer loads alpha with ld.param.f32: update wrong_gemv()")
    p = tmp / "gemv_wrong.ptx"
    p.write_text(text[:m.end()] + f"\n{m.group(1)}add.f32 {m.group(2)}, {m.group(2)}, 0f3F000000;" + text[m.end():])
    return p


def edit_to_result(tmp: Path, shapes, edits: int, out: Path | None) -> None:
    path = tmp / "gemv_edit.ptx"
    base = GEMV.read_text()
    path.write_text(base)
    session = Session(Options(op="gemv", file=path, shapes=shapes, watch=True))
    results = []
    polls = {"n": 0}

    def sleep(poll):
        time.sleep(poll)
        polls["n"] += 1
        # save an edit once the previous result is in, and let a few polls pass between edits
        if polls["n"] % 5 == 0 and len(results) <= edits:
            path.write_text(base + f"\n// lab_check edit {len(results)} at {time.time()!r}\n")

    def emit(res):
        results.append(res)
        print(format_table(res) + "\n", flush=True)
        save(out, f"edit-{res['run']}", res)

    try:
        watch(session, emit, poll=0.1, max_runs=edits + 1, sleep=sleep)
    finally:
        session.close()
    turns = [r["timing"]["edit_to_result_s"] for r in results[1:] if r["timing"]["edit_to_result_s"] is not None]
    ok_runs = all(r["ok"] for r in results)
    loads = [r["load"]["from_cache"] for r in results[1:] if r.get("load")]
    first = results[0]["timing"]
    print(f"first run {first['run_s']:.2f} s + inputs/references {first['session_setup_s']:.2f} s (once per session)")
    if turns:
        print(f"edit->result over {len(turns)} edits: " + ", ".join(f"{t:.2f}" for t in turns)
              + f" s; median {statistics.median(turns):.2f} s, max {max(turns):.2f} s; JIT on every edit: "
              + str(not any(loads)))
        for r in results[1:]:
            print("  phases: " + ", ".join(f"{k} {v:.2f}" for k, v in r["timing"]["phases_s"].items()))
    verdict(ok_runs and len(turns) == edits, f"watch re-ran after each of {edits} edits, all correct")
    verdict(bool(turns) and max(turns) <= BAR_S, f"edit->result <= {BAR_S} s at {' '.join(shapes or ['default'])} shapes "
            f"(max {max(turns) if turns else float('nan'):.2f} s)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", nargs="+", default=None, help="gemv shapes (default: the benchmark shapes)")
    ap.add_argument("--edits", type=int, default=3, help="edits timed in the watch loop (default 3)")
    ap.add_argument("--out", type=Path, default=Path(os.environ["OUT"]) / "lab" if os.environ.get("OUT") else None,
                    help="directory for the JSON results (default $OUT/lab when $OUT is set)")
    args = ap.parse_args()
    reason = driver.unavailable_reason()
    if reason is not None:
        print(f"SKIP: needs a GPU: {reason}")
        return 1
    with tempfile.TemporaryDirectory(prefix="nvfp4rt-lab-check-") as tmp:
        tmp = Path(tmp)
        res = one_run("builtin", args.out, op="gemv", file=GEMV, shapes=args.shapes)
        verdict(res["ok"] and all(r["median_us"] and r["builtin_us"] and r["floor_us"] for r in res["shapes"]),
                "built-in GEMV as FILE: correct and timed against the built-in and the floor")
        res = one_run("wrong", args.out, op="gemv", file=wrong_gemv(tmp), shapes=["small"])
        verdict(res["status"] == "mismatch" and all(r["median_us"] is None for r in res["shapes"]),
                "a wrong GEMV (alpha + 0.5) is caught and not timed")
        res = one_run("custom", args.out, op="custom", file=EXAMPLE_PTX, spec=EXAMPLE_SPEC)
        verdict(res["ok"] and all(r["median_us"] and r["builtin_us"] for r in res["shapes"]),
                "custom example (scaled_add) runs and is timed")
        edit_to_result(tmp, args.shapes, args.edits, args.out)
    print(f"\n{'ALL PASS' if failures == 0 else f'{failures} FAILED'}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
