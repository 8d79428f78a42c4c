"""A tiny interpreter for the 32-bit integer bookkeeping lines of our kernels (a test helper).

Tests read a few lines of a kernel's text (a launch index, a ring's stage and parity) and run them here against
Python's arithmetic. Supported: ``mov``, ``add``, ``sub``, ``mul.lo``, ``mad.lo``, ``shl``, ``shr``, ``and``, ``or``,
``xor``, ``rem``, ``div``, ``min``, ``max`` on .u32/.b32, ``selp.b32``, ``setp.{eq,ne,lt,le,gt,ge}.u32``,
``mov.b64 {lo, hi}, x`` (a 64-bit value's halves), each with an optional ``@p`` / ``@!p`` guard. Results wrap to 32
bits as in PTX and every one is checked to fit; operands may be constant expressions such as ``128/2 - 1``; any other
instruction fails. :func:`replay_stmatrix_trans` follows a warp's fp16 staging through ``stmatrix`` into memory.
"""
from __future__ import annotations

import re

M32 = 0xFFFFFFFF

_OPS = {"mov": lambda a: a, "add": lambda a, b: (a + b) & M32, "sub": lambda a, b: (a - b) & M32,
        "shl": lambda a, b: (a << b) & M32,
        "shr": lambda a, b: a >> b, "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
        "rem": lambda a, b: a % b, "div": lambda a, b: a // b, "min": min, "max": max}
_CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
        "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}


def code_lines(text: str) -> list[str]:
    """The instruction lines of ``text``: comments, blank lines and the trailing ';' removed."""
    return [ln.split("//")[0].strip().rstrip(";") for ln in text.split("\n") if ln.split("//")[0].strip()]


def run(lines: list[str], regs: dict) -> dict:
    """Run ``lines`` (see :func:`code_lines`) on ``regs`` (register name -> int or bool); returns ``regs``."""
    def val(x):
        if x.startswith("%"):
            return regs[x]
        if re.fullmatch(r"[0-9 ()*/+-]+", x) and not re.fullmatch(r"-?\d+", x.strip()):
            return int(eval(x.replace("/", "//"), {"__builtins__": {}}))  # a PTX constant expression (128/2 - 1)
        return int(x, 0)

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
        if op.startswith("setp.") and op.endswith(".u32") and op.split(".")[1] in _CMP:
            regs[dst] = _CMP[op.split(".")[1]](val(src[0]), val(src[1]))
            continue
        elif op == "mul.lo.u32":
            regs[dst] = (val(src[0]) * val(src[1])) & M32
        elif op == "mad.lo.u32":
            regs[dst] = (val(src[0]) * val(src[1]) + val(src[2])) & M32
        elif op == "selp.b32":
            regs[dst] = val(src[0]) if regs[src[2]] else val(src[1])
        elif name in _OPS and kind in ("u32", "b32") and len(op.split(".")) == 2:
            regs[dst] = _OPS[name](*(val(x) for x in src))
        else:
            raise AssertionError(f"unexpected instruction {ln!r}")
        assert 0 <= regs[dst] <= M32, (ln, regs[dst])  # every partial fits 32 bits
    return regs


def replay_stmatrix_trans(lines: list[str], lane_addr: list[int], base: str) -> dict:
    """One warp's fp16 staging through ``stmatrix.sync.aligned.m8n8.x4.trans.shared.b16``, replayed: each accumulator
    followed through ``mul.f32 %v, %accN, ...`` and ``cvt.rn.f16x2.f32 d, hi, lo`` into the stmatrix registers, then the
    instruction applied (lane 8k + j holds row j's address of matrix k, ``lane_addr[lane]`` plus the instruction's
    ``[base+offset]``; fragment element (row l/4, column 2(l%4) + h) of lane l goes to that memory row, at byte 2 * its
    fragment row).  Lines that start with ``@``, ``setp``, ``bar.sync`` or ``bar.warp.sync`` (uniform guards, barriers)
    are passed over.  Returns {byte address: (lane, accumulator)}; fails on a byte written twice or on any other
    instruction."""
    v, packed, written = {}, {}, {}
    for ln in lines:
        if ln.startswith(("@", "setp", "bar.sync", "bar.warp.sync")):
            continue
        op, rest = ln.split(None, 1)
        ops = [x.strip() for x in rest.replace("{", "").replace("}", "").split(",")]
        if op == "mul.f32":
            v[ops[0]] = int(re.fullmatch(r"%acc(\d+)", ops[1]).group(1))
        elif op == "cvt.rn.f16x2.f32":
            packed[ops[0]] = (v[ops[2]], v[ops[1]])  # (low half = the second source, high half = the first)
        else:
            assert op == "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", ln
            off = eval(re.fullmatch(rf"\[{re.escape(base)}\+(.+)\]", ops[0]).group(1))
            for k, reg in enumerate(ops[1:]):
                for lane in range(32):
                    for h in (0, 1):
                        row, col = lane // 4, 2 * (lane % 4) + h
                        byte = lane_addr[8 * k + col] + off + 2 * row
                        assert byte not in written, f"byte {byte} written twice"
                        written[byte] = (lane, packed[reg][h])
    return written
