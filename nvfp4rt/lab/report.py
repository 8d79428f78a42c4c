"""The lab's output: the one table a run prints, and its JSON document."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

__all__ = ["format_table", "to_json"]


def _f(v, fmt=".1f", none="-") -> str:
    return none if v is None else format(v, fmt)


def format_table(res: dict) -> str:
    """The human-readable report of one run."""
    lines = []
    head = f"nvfp4rt lab {res['op']} {res['file']}"
    if res.get("entry"):
        head += f"  [entry {res['entry']}, {res.get('target')}]"
    if res.get("device"):
        head += f"  on {res['device']['name']}"
    lines.append(head)
    asm = res.get("assembly")
    if asm is not None:
        if asm.get("ptxas") is None:
            lines.append("ptxas: not found, offline assembly skipped (the driver JIT still checks the PTX)")
        elif asm.get("entries"):
            if asm.get("linked"):
                lines.append("ptxas -c (a relocatable unit, as the JIT linker builds it: setmaxnreg ignored)")
            rows = [("entry", "regs", "spill st", "spill ld", "stack", "smem", "lmem")]
            rows += [(e["name"], _f(e["registers"], "d", "?"), str(e["spill_stores"]), str(e["spill_loads"]),
                      str(e["stack_bytes"]), str(e["shared_bytes"]), str(e["local_bytes"])) for e in asm["entries"]]
            lines += _grid(rows)
            for e in asm["entries"]:
                if e["spill_stores"] or e["spill_loads"] or e["local_bytes"]:
                    lines.append(f"warning: {e['name']} spills to local memory")
            for w in asm.get("warnings", []):
                lines.append(f"ptxas warning: line {w['line']}: {w['message']}" if w["line"] else
                             f"ptxas warning: {w['message']}")
    if res.get("abi"):
        lines.append(f"ABI: {res['abi']}")
    if res.get("load"):
        ld = res["load"]
        how = "cache hit" if ld["from_cache"] else "JIT"
        lines.append(f"loaded in {ld['seconds'] * 1e3:.0f} ms ({how}" + (f", compiler {ld['compiler']})"
                                                                       if ld.get("compiler") else ")"))
        for note in ld.get("jit_notes") or ():
            lines.append(f"JIT note: {note}")
    if res["shapes"]:
        rows = [("shape", "check", "max abs err", "mismatches", "median us", "p10-p90 us", "built-in us",
                 "vs built-in", "floor us", "% of floor")]
        for r in res["shapes"]:
            c = r["check"]
            rows.append((r["label"], "ok" if c["ok"] else "WRONG", _f(c["max_abs_err"], ".3g"),
                         f"{c['mismatches']}/{c['total']}", _f(r["median_us"]),
                         "-" if r["p10_us"] is None else f"{r['p10_us']:.1f}-{r['p90_us']:.1f}",
                         _f(r["builtin_us"]), "-" if r["speedup_vs_builtin"] is None else f"{r['speedup_vs_builtin']:.2f}x",
                         _f(r["floor_us"]), _f(r["pct_of_floor"], ".0f")))
        lines += _grid(rows)
        for r in res["shapes"]:
            if r["check"]["detail"]:
                lines.append(f"{r['label']}: {r['check']['detail']}")
        d = res.get("data") or {}
        lines.append(f"data: {d.get('kind')}, seed {d.get('seed')} (drawn once per session; --seed repeats it)")
    tm = res.get("timing") or {}
    ph = tm.get("phases_s") or {}
    parts = ", ".join(f"{k} {v:.2f}" for k, v in ph.items())
    turn = f"run {tm.get('run_s', 0):.2f} s" + (f" ({parts})" if parts else "")
    if tm.get("edit_to_result_s") is not None:
        turn = f"edit->result {tm['edit_to_result_s']:.2f} s; " + turn
    if tm.get("session_setup_s"):
        turn += f"; inputs+references once per session {tm['session_setup_s']:.2f} s"
    lines.append(turn)
    if res["ok"]:
        lines.append(f"PASS ({res['status']})")
    else:
        lines.append(f"FAIL ({res['status']}): {res.get('error')}")
    return "\n".join(lines)


def _grid(rows) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    out.insert(1, "  ".join("-" * w for w in widths))
    return out


def to_json(res: dict) -> str:
    return json.dumps(res, default=_json_default, sort_keys=False)


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
