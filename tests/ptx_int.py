"""A tiny interpreter for the 32-bit integer bookkeeping lines of our kernels (a test helper).

Tests read a few lines of a kernel's text (a launch index, a ring's stage and parity) and run them here against
Python's arithmetic. Supported: ``mov``, ``add``, ``sub``, ``mul.lo``, ``shl``, ``shr``, ``and``, ``or``, ``xor``,
``rem``, ``div`` on .u32/.b32, ``selp.b32``, ``setp.eq.u32``, ``mov.b64 {lo, hi}, x`` (a 64-bit value's halves), each
with an optional ``@p`` / ``@!p`` guard. Results wrap to 32 bits as in PTX and every one is checked to fit; any other
instruction fails.
"""
from __future__ import annotations

import re

M32 = 0xFFFFFFFF

_OPS = {"mov": lambda a: a, "add": lambda a, b: (a + b) & M32, "sub": lambda a, b: (a - b) & M32,
        "shl": lambda a, b: (a << b) & M32,
        "shr": lambda a, b: a >> b, "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
        "rem": lambda a, b: a % b, "div": lambda a, b: a // b}


def code_lines(text: str) -> list[str]:
    """The instruction lines of ``text``: comments, blank lines and the trailing ';' removed."""
    return [ln.split("//")[0].strip().rstrip(";") for ln in text.split("\n") if ln.split("//")[0].strip()]


def run(lines: list[str], regs: dict) -> dict:
    """Run ``lines`` (see :func:`code_lines`) on ``regs`` (register name -> int or bool); returns ``regs``."""
    val = lambda x: regs[x] if x.startswith("%") else int(x, 0)
    for ln in lines:
        if ln.startswith("@"):
            guard, ln = ln.split(None, 1)
            if bool(regs[guard.lstrip("@!")]) == guard.startswith("@!"):
                continue
        op, rest = ln.split(None, 1)
        if op == "mov.b64" and rest.startswith("{"):
            lo, hi, src = re.fullmatch(r"\{\s*(%\w+)\s*,\s*(%\w+)\s*\}\s*,\s*(\S+)", rest).groups()
            regs[lo], regs[hi] = val(src) & M32, val(src) >> 32
            continue
        dst, *src = [x.strip() for x in rest.split(",")]
        name, kind = op.split(".")[0], op.split(".")[-1]
        if op == "setp.eq.u32":
            regs[dst] = val(src[0]) == val(src[1])
        elif op == "mul.lo.u32":
            regs[dst] = (val(src[0]) * val(src[1])) & M32
        elif op == "selp.b32":
            regs[dst] = val(src[0]) if regs[src[2]] else val(src[1])
        elif name in _OPS and kind in ("u32", "b32") and len(op.split(".")) == 2:
            regs[dst] = _OPS[name](*(val(x) for x in src))
        else:
            raise AssertionError(f"unexpected instruction {ln!r}")
        assert 0 <= regs[dst] <= M32, (ln, regs[dst])  # every partial fits 32 bits
    return regs
