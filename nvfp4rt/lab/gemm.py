"""``nvfp4rt lab gemm`` / ``dual_gemm``: registered once their built-in kernels exist.

The lab runs a user's kernel under the ABI of the op's built-in kernel
(arguments, tensor maps, launch geometry from its plan).  Until
``nvfp4rt/ops/gemm.py`` (and the dual GEMM op) provide that, the names are
known to the lab but fail with a clear message; an adapter in the style of
``gemv.py`` replaces this stub then.
"""
from __future__ import annotations

import importlib.util

from .core import register_missing

for _op, _module in (("gemm", "nvfp4rt.ops.gemm"), ("dual_gemm", "nvfp4rt.ops.dual_gemm")):
    _present = importlib.util.find_spec(_module) is not None
    register_missing(_op, f"lab {_op}: no built-in {_op} kernel exists yet"
                     + (f" with a lab adapter ({_module} is there, nvfp4rt/lab has no adapter for it yet)"
                        if _present else f" ({_module} is missing), so there is no {_op} kernel ABI to run "
                        "your kernel under; use `lab custom --spec` meanwhile"))
