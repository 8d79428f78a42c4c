"""The wgmma GEMM's consumer main loop as the dual and grouped kernels carry it (a test helper).

ptx/dual_gemm_nvfp4_wgmma.ptx and ptx/grouped_gemm_nvfp4_wgmma.ptx run the consumer main loop of
ptx/gemm_nvfp4_wgmma.ptx as of commit ``REFERENCE_COMMIT`` (B words and scales prefetched one piece
ahead, A decoded one k64 sub-step ahead of its wgmmas, four fragment sets, WG_WAIT / A16_BUFS) with
its A_DECODER=1 variant left out.  tests/test_gemm_wgmma.py replays that loop (mapping, swizzles,
descriptors, the a16/fragment hazard model); these helpers let the dual and grouped tests show that
their text is that loop, so the replay covers them:

* :func:`consumer_regions` cuts a kernel's consumer setup (up to ``mov.u32 %j3, 0;``) and unit loop
  (``UNIT_LOOP:`` up to the segment epilogue);
* :func:`without_a_decoder` turns the GEMM's text into its A_DECODER=0 form: the ``{{if A_DECODER}}``
  blocks resolved to their else branch (other conditionals such as NORMAL_OPERANDS kept), the lines
  that only the decoder variant's registers use dropped.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

REFERENCE_COMMIT = "fc4e9f9"
ROOT = Path(__file__).resolve().parent.parent
CONSUMERS = "    // ================================================================== consumers"
EPILOGUE = "    // ================================================================== segment epilogue"
_SETUP_END = "    mov.u32 %j3, 0;\n"
_DECODER_ONLY = re.compile(r"%(ab|aph|pab|p_pend|p_l0)\b")
_COND = re.compile(r"//\s*\{\{\s*(if\s+(\w+).*|else|endif)\s*\}\}")


def consumer_regions(text: str) -> tuple[str, str]:
    """(consumer setup, unit loop) of a wgmma kernel's text."""
    a = text.index(CONSUMERS)
    setup = text[a:text.index(_SETUP_END, a) + len(_SETUP_END)]
    loop = text[text.index("UNIT_LOOP:"):text.index(EPILOGUE)]
    return setup, loop


def without_a_decoder(text: str) -> str:
    out, stack = [], []  # stack entries: (is the A_DECODER conditional, branch kept)
    for line in text.split("\n"):
        m = _COND.fullmatch(line.strip())
        keep = all(k for is_dec, k in stack if is_dec)
        if m:
            tok = m.group(1)
            if tok.startswith("if"):
                is_dec = m.group(2) == "A_DECODER"
                stack.append((is_dec, not is_dec))
            elif tok == "else":
                is_dec = stack[-1][0]
                if is_dec:
                    stack[-1] = (True, True)
            else:
                is_dec = stack.pop()[0]
            if not is_dec and keep:
                out.append(line)
            continue
        if keep and not _DECODER_ONLY.search(line):
            out.append(line)
    if stack:
        raise ValueError("unbalanced {{if}} in the GEMM text")
    return "\n".join(out)


def reference_regions() -> tuple[str, str] | None:
    """The GEMM's (setup, unit loop) at REFERENCE_COMMIT in A_DECODER=0 form, or None without git/commit."""
    try:
        res = subprocess.run(["git", "show", f"{REFERENCE_COMMIT}:ptx/gemm_nvfp4_wgmma.ptx"], cwd=ROOT,
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if res.returncode != 0:
        return None
    setup, loop = consumer_regions(res.stdout)
    return without_a_decoder(setup), without_a_decoder(loop)
