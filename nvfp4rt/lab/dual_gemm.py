"""``nvfp4rt lab dual_gemm``: a user's kernel under the ABI of a built-in dual GEMM kernel.

``c = fp16(silu(A @ B1^T) * (A @ B2^T))`` (silu and the product in fp32), FACTS §2.  The adapter
is :class:`~nvfp4rt.lab.gemm.GemmLab` with six operands, the dual GEMM's data, reference, bytes
and flops; it registers itself only when the op layer has a plan that can launch a given
kernel.  What it expects of ``nvfp4rt/ops/dual_gemm*.py`` (any module of that name):

* a plan class (a class named ``...Plan`` defined there) whose constructor takes
  ``(m, n, k, l, layout, *, device=..., kernel=...)`` -- ``kernel=`` launches the given kernel
  with the built-in kernel's arguments and geometry, as ``GemvPlan`` and ``GemmMmaPlan`` do --
  and whose call is ``plan(a, b1, b2, sfa, sfb1, sfb2, c, stream=None)``;
* the built-in kernel's file and entry as the module's ``_KERNEL_FILE`` and ``_ENTRY`` (or the
  class's ``KERNEL_FILE`` / ``ENTRY``), for the ABI check;
* ``layout``: the module's ``DualGemmLayout.contiguous(m, n, k, l)`` when it has one, else
  :class:`nvfp4rt.ops.gemm.GemmLayout` 's (a plan that takes ``layout=None`` gets None).

Until such a plan exists, ``lab dual_gemm`` fails with exit status 1 and says what is missing.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil

from .abi import BuiltinAbi
from .core import register_missing, register_op
from .gemm import GemmLab

__all__ = ["DualGemmLab", "find_dual_gemm_plans", "missing_reason"]


def _op_modules() -> list:
    """(name, module or the import error) of every nvfp4rt/ops/dual_gemm*.py."""
    from .. import ops

    out = []
    for info in pkgutil.iter_modules(ops.__path__):
        if info.name.startswith("dual_gemm"):
            try:
                out.append((info.name, importlib.import_module(f"{ops.__name__}.{info.name}")))
            except Exception as exc:  # noqa: BLE001 - reported as the reason the op is unavailable
                out.append((info.name, exc))
    return out


def _plan_classes(mod) -> list:
    return [obj for name, obj in vars(mod).items()
            if inspect.isclass(obj) and name.endswith("Plan") and obj.__module__ == mod.__name__]


def _takes_kernel(cls) -> bool:
    try:
        return "kernel" in inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return False


def _kernel_file(mod, cls):
    f = getattr(cls, "KERNEL_FILE", None) or getattr(mod, "_KERNEL_FILE", None)
    e = getattr(cls, "ENTRY", None) or getattr(mod, "_ENTRY", None)
    return (f, e) if f and e else None


def _variant_name(module: str, kernel_file: str) -> str:
    """``dual_gemm_wgmma`` -> ``wgmma``; a module named just ``dual_gemm`` takes its kernel file's last word."""
    if module.startswith("dual_gemm_"):
        return module[len("dual_gemm_"):]
    return kernel_file.rsplit(".", 1)[0].rpartition("_")[2] or module


def find_dual_gemm_plans(modules=None) -> tuple[list, list[str]]:
    """([(variant, plan class, BuiltinAbi, module)], [why each candidate was passed over])."""
    from ..ptxsource import ptx_dir

    found, skipped = [], []
    for name, mod in (modules if modules is not None else _op_modules()):
        if isinstance(mod, Exception):
            skipped.append(f"nvfp4rt.ops.{name} fails to import ({type(mod).__name__}: {mod})")
            continue
        classes = _plan_classes(mod)
        if not classes:
            skipped.append(f"nvfp4rt.ops.{name} defines no ...Plan class")
        for cls in classes:
            kf = _kernel_file(mod, cls)
            if not _takes_kernel(cls):
                skipped.append(f"nvfp4rt.ops.{name}.{cls.__name__} takes no kernel= (the lab needs it to launch "
                               "your kernel with the built-in arguments and geometry)")
            elif kf is None:
                skipped.append(f"nvfp4rt.ops.{name}: no _KERNEL_FILE/_ENTRY naming {cls.__name__}'s built-in kernel")
            else:
                variant = str(getattr(cls, "variant", None) or _variant_name(name, kf[0]))
                found.append((variant, cls, BuiltinAbi(variant, ptx_dir() / kf[0], kf[1]), mod))
    return found, skipped


def missing_reason(skipped: list[str]) -> str:
    if not skipped:
        return ("lab dual_gemm: no built-in dual_gemm kernel exists yet (nvfp4rt/ops/dual_gemm*.py is missing), "
                "so there is no dual GEMM kernel ABI to run your kernel under; use `lab custom --spec` meanwhile")
    return ("lab dual_gemm: no dual GEMM plan can launch your kernel yet:\n"
            + "\n".join(f"  {s}" for s in skipped))


class DualGemmLab(GemmLab):
    """Dual GEMM with SiLU: ``c = silu(A @ B1^T) * (A @ B2^T)`` under a built-in dual GEMM kernel's ABI."""

    name = "dual_gemm"
    operands = ("a", "b1", "b2", "sfa", "sfb1", "sfb2")
    plans: list = []   # set at registration: [(variant, plan class, BuiltinAbi, module)]

    @property
    def presets(self) -> dict:
        from ..data import PRESETS

        return {"default": [(m, n, k, 1) for m, n, k in PRESETS["dual_gemm"]],
                "small": [(256, 512, 1024, 1), (192, 320, 768, 2)]}

    def abis(self) -> list[BuiltinAbi]:
        return [abi for _, _, abi, _ in self.plans]

    def bytes(self, shape: dict) -> int:
        m, n, k, l = shape["m"], shape["n"], shape["k"], shape["l"]
        return l * ((m + 2 * n) * (k // 2 + k // 16) + 2 * m * n)

    def flops(self, shape: dict) -> int:
        return 4 * shape["m"] * shape["n"] * shape["k"] * shape["l"]

    def out_bytes(self, shape: dict) -> int:
        return 2 * shape["m"] * shape["n"] * shape["l"]

    def make_data(self, shape: dict, rng, distribution: str):
        from ..data import dual_gemm_data
        from ..reference import dual_gemm_silu_ref

        d = dual_gemm_data(shape["m"], shape["n"], shape["k"], shape["l"], seed=rng, distribution=distribution)
        return d, dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)

    def _entry_of(self, variant: str):
        return next(p for p in self.plans if p[0] == variant)

    def layout(self, shape: dict):
        return None  # resolved per plan class in make_plan (the dual op may define its own layout)

    def make_plan(self, variant: str, st, kernel=None):
        _, cls, _, mod = self._entry_of(variant)
        s = st.shape
        dims = (s["m"], s["n"], s["k"], s["l"])
        layout_cls = getattr(mod, "DualGemmLayout", None)
        if layout_cls is None:
            from ..ops.gemm import GemmLayout as layout_cls
        layout = layout_cls.contiguous(*dims)
        kw = {"device": self.device}
        if kernel is not None:
            kw.update(self.constant_options(cls))
            kw["kernel"] = kernel
        return cls(*dims, layout, **kw)


def _register() -> None:
    found, skipped = find_dual_gemm_plans()
    if found:
        DualGemmLab.plans = found
        register_op(DualGemmLab)
    else:
        register_missing("dual_gemm", missing_reason(skipped))


_register()
