#!/usr/bin/env python3
"""GPU checks of ``nvfp4rt lab``, with PASS/FAIL lines and the edit-to-result time.

    python3 tools/lab_check.py [--ops gemv gemm dual_gemm] [--shapes default] [--gemm-shapes default]
                               [--dual-shapes default] [--edits 3] [--out DIR]

gemv:
1. the built-in GEMV given as FILE: correct on both distributions, timed next
   to itself (the built-in) and the floor, at the benchmark shapes;
2. a deliberately wrong GEMV (alpha + 0.5, one added instruction): caught,
   non-zero status, nothing timed;
3. the custom example (docs/examples/scaled_add.{ptx,py}): runs and is timed;
4. edit -> result: the watch loop over a copy of the GEMV kernel at the
   benchmark shapes; each edit changes a comment (so the PTX text, and the
   cache key, change and the driver JIT really runs), and the time from the
   file's modification time to the finished result is reported; the bar is 2 s.
gemm:
5. the built-in mma GEMM given as FILE (its ABI found from its parameters):
   correct on both distributions and timed next to the built-in and the floor
   (the larger of bytes / read bandwidth and 2mnk / fp16 tensor rate) at the
   benchmark shapes; the same for the wgmma GEMM on an sm_90 device;
6. a wrong mma GEMM (alpha + 0.5): caught, nothing timed;
7. an mma GEMM with a renamed parameter: abi_error before any launch;
8. edit -> result of the mma GEMM at the benchmark shapes (reported; no bar).
dual_gemm (when nvfp4rt/ops/dual_gemm*.py has a plan taking kernel=; else SKIP with the reason):
9. the built-in dual GEMM as FILE: correct and timed at the benchmark shapes;
10. a wrong dual GEMM (alpha1 * 1.5; the kernel gets alpha1 * 2^28, so + 0.5 would vanish): caught,
    nothing timed.

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
GEMM_MMA = ptx_dir() / "gemm_nvfp4_mma.ptx"
GEMM_WGMMA = ptx_dir() / "gemm_nvfp4_wgmma.ptx"
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


def wrong_gemm(tmp: Path) -> Path:
    text = GEMM_MMA.read_text()
    m = re.search(r"^(\s*)ld\.param\.f32\s+(%\w+),\s*\[alpha\];[^\n]*$", text, re.M)
    if m is None:
        raise SystemExit("gemm_nvfp4_mma.ptx no longer loads alpha with ld.param.f32: update wrong_gemm()")
    p = tmp / "gemm_wrong.ptx"
    p.write_text(text[:m.end()] + f"\n{m.group(1)}add.f32 {m.group(2)}, {m.group(2)}, 0f3F000000;" + text[m.end():])
    return p


def renamed_gemm(tmp: Path) -> Path:
    text = GEMM_MMA.read_text()
    if text.count(".param .u32 splits,") != 1:
        raise SystemExit("gemm_nvfp4_mma.ptx no longer declares .param .u32 splits: update renamed_gemm()")
    p = tmp / "gemm_renamed.ptx"
    p.write_text(text.replace(".param .u32 splits,", ".param .u32 nsplits,").replace("[splits]", "[nsplits]"))
    return p


def timed_ok(res: dict) -> bool:
    return res["ok"] and all(r["median_us"] and r["builtin_us"] and r["floor_us"] for r in res["shapes"])


def gemm_checks(tmp: Path, shapes, edits: int, out: Path | None) -> None:
    from nvfp4rt.lab.gemm import gemm_abis

    res = one_run("gemm-mma-builtin", out, op="gemm", file=GEMM_MMA, shapes=shapes)
    verdict(timed_ok(res) and (res["abi"] or "").startswith("mma ("),
            "built-in mma GEMM as FILE: mma ABI, correct and timed against the built-in and the floor")
    has_wgmma = "wgmma" in {a.variant for a in gemm_abis()}
    if has_wgmma and tuple(driver.device(0).compute_capability) == (9, 0):
        res = one_run("gemm-wgmma-builtin", out, op="gemm", file=GEMM_WGMMA, shapes=shapes)
        verdict(timed_ok(res) and (res["abi"] or "").startswith("wgmma ("),
                "built-in wgmma GEMM as FILE: wgmma ABI, correct and timed against the built-in and the floor")
    else:
        print("SKIP: wgmma GEMM (needs nvfp4rt.ops.gemm_wgmma and an sm_90 device)\n")
    res = one_run("gemm-wrong", out, op="gemm", file=wrong_gemm(tmp), shapes=["small"])
    verdict(res["status"] == "mismatch" and res["shapes"] and all(r["median_us"] is None for r in res["shapes"]),
            "a wrong mma GEMM (alpha + 0.5) is caught and not timed")
    res = one_run("gemm-renamed", out, op="gemm", file=renamed_gemm(tmp), shapes=["small"])
    verdict(res["status"] == "abi_error" and "nsplits" in (res["error"] or "") and not res["shapes"],
            "an mma GEMM with a renamed parameter is an ABI error before any launch")
    edit_to_result(tmp, shapes, edits, out, op="gemm", source=GEMM_MMA, bar=None)


def dual_gemm_checks(tmp: Path, shapes, out: Path | None) -> None:
    from nvfp4rt.lab.dual_gemm import find_dual_gemm_plans, missing_reason

    found, skipped = find_dual_gemm_plans()
    if not found:
        print("SKIP: " + missing_reason(skipped) + "\n")
        return
    variant, _, abi, _ = found[0]
    if variant == "wgmma" and tuple(driver.device(0).compute_capability) != (9, 0):
        print("SKIP: the wgmma dual GEMM needs an sm_90 device\n")
        return
    res = one_run("dual-builtin", out, op="dual_gemm", file=abi.path, shapes=shapes)
    verdict(timed_ok(res) and (res["abi"] or "").startswith(variant + " ("),
            f"built-in {variant} dual GEMM as FILE: correct and timed against the built-in and the floor")
    text = abi.path.read_text()
    m = re.search(r"^(\s*)ld\.param\.f32\s+(%\w+),\s*\[alpha1\];[^\n]*$", text, re.M)
    if m is None:
        verdict(False, f"{abi.path.name} no longer loads alpha1 with ld.param.f32: update dual_gemm_checks()")
        return
    wrong = tmp / "dual_gemm_wrong.ptx"
    wrong.write_text(text[:m.end()] + f"\n{m.group(1)}mul.f32 {m.group(2)}, {m.group(2)}, 0f3FC00000;"
                     + text[m.end():])
    res = one_run("dual-wrong", out, op="dual_gemm", file=wrong, shapes=["small"])
    verdict(res["status"] == "mismatch" and res["shapes"] and all(r["median_us"] is None for r in res["shapes"]),
            "a wrong dual GEMM (alpha1 * 1.5) is caught and not timed")


def edit_to_result(tmp: Path, shapes, edits: int, out: Path | None, *, op: str = "gemv", source: Path = GEMV,
                   bar: float | None = BAR_S) -> None:
    path = tmp / f"{op}_edit.ptx"
    base = source.read_text()
    path.write_text(base)
    session = Session(Options(op=op, file=path, shapes=shapes, watch=True))
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
        save(out, f"{op}-edit-{res['run']}", res)

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
    verdict(ok_runs and len(turns) == edits, f"{op}: watch re-ran after each of {edits} edits, all correct")
    where = f"{op} at {' '.join(shapes or ['default'])} shapes (max {max(turns) if turns else float('nan'):.2f} s)"
    if bar is None:
        print(f"INFO: edit->result {where}; no bar for {op}\n")
    else:
        verdict(bool(turns) and max(turns) <= bar, f"edit->result <= {bar} s, {where}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", nargs="+", choices=("gemv", "gemm", "dual_gemm"), default=["gemv", "gemm", "dual_gemm"],
                    help="ops to check (default all)")
    ap.add_argument("--shapes", nargs="+", default=None, help="gemv shapes (default: the benchmark shapes)")
    ap.add_argument("--gemm-shapes", nargs="+", default=None, help="gemm shapes (default: the benchmark shapes)")
    ap.add_argument("--dual-shapes", nargs="+", default=None, help="dual_gemm shapes (default: the benchmark shapes)")
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
        if "gemv" in args.ops:
            res = one_run("builtin", args.out, op="gemv", file=GEMV, shapes=args.shapes)
            verdict(timed_ok(res), "built-in GEMV as FILE: correct and timed against the built-in and the floor")
            res = one_run("wrong", args.out, op="gemv", file=wrong_gemv(tmp), shapes=["small"])
            verdict(res["status"] == "mismatch" and all(r["median_us"] is None for r in res["shapes"]),
                    "a wrong GEMV (alpha + 0.5) is caught and not timed")
            res = one_run("custom", args.out, op="custom", file=EXAMPLE_PTX, spec=EXAMPLE_SPEC)
            verdict(res["ok"] and all(r["median_us"] and r["builtin_us"] for r in res["shapes"]),
                    "custom example (scaled_add) runs and is timed")
            edit_to_result(tmp, args.shapes, args.edits, args.out)
        if "gemm" in args.ops:
            gemm_checks(tmp, args.gemm_shapes, args.edits, args.out)
        if "dual_gemm" in args.ops:
            dual_gemm_checks(tmp, args.dual_shapes, args.out)
    print(f"\n{'ALL PASS' if failures == 0 else f'{failures} FAILED'}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
