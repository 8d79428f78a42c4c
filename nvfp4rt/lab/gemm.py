"""``nvfp4rt lab gemm``: a user's kernel under the ABI of one of the built-in GEMM kernels.

The GEMM has two built-in kernels, and so two ABIs (docs/lab.md lists both):

* ``mma`` -- ``.entry nvfp4_gemm_mma`` of ``ptx/gemm_nvfp4_mma.ptx`` (portable, sm_80+):
  plain pointers, byte strides, split-K workspace; launched by
  :class:`nvfp4rt.ops.gemm.GemmMmaPlan` ``(..., kernel=yours)``;
* ``wgmma`` -- ``.entry nvfp4_gemm_wgmma`` of ``ptx/gemm_nvfp4_wgmma.ptx`` (sm_90a only):
  four TMA tensor maps passed by value, stream-K geometry; launched by
  :class:`nvfp4rt.ops.gemm_wgmma.GemmWgmmaPlan`.

The kernel's ``.entry`` parameter list decides which (:func:`nvfp4rt.lab.abi.match_abi`: it
must repeat one built-in list exactly); that variant's plan gives the user's kernel exactly the
arguments, grid, block and dynamic shared memory it gives the built-in one, and the built-in
kernel of the same variant is the one timed next to it.

Data: per shape, the competition layout (each batch a contiguous K-major block: a ``(l, m,
k/2)``, b ``(l, n, k/2)``, sfa ``(l, m, k/16)``, sfb ``(l, n, k/16)``, c ``(l, m, n)`` fp16,
poisoned with NaN bytes before the check) in two distributions, the competition's GEMM one
(every byte pattern, scales {0..3}) and the wide one, references from
:func:`nvfp4rt.reference.gemm_ref`.  Timings use the competition data.  The floor is the
larger of bytes moved / read bandwidth and ``2 m n k l`` / the fp16 tensor-core rate.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np

from .abi import BuiltinAbi, match_abi
from .core import Bound, LabError, LabOp, LabUsageError, register_op

__all__ = ["GemmLab", "gemm_abis", "wgmma_plan_takes_kernel", "swap_kernel"]


def gemm_abis() -> list[BuiltinAbi]:
    """The built-in GEMM kernels present in this checkout, one ABI per variant (mma first)."""
    from ..ops import gemm as ops_gemm
    from ..ptxsource import ptx_dir

    out = [BuiltinAbi("mma", ptx_dir() / ops_gemm._MMA_FILE, ops_gemm._MMA_ENTRY)]
    mod = ops_gemm._wgmma_module()
    if mod is not None:
        out.append(BuiltinAbi("wgmma", ptx_dir() / mod._KERNEL_FILE, mod._ENTRY))
    return out


def wgmma_plan_takes_kernel() -> bool:
    """True when ``GemmWgmmaPlan`` accepts ``kernel=`` (else the lab swaps the kernel in before the first launch)."""
    from ..ops import gemm as ops_gemm

    mod = ops_gemm._wgmma_module()
    return mod is not None and "kernel" in inspect.signature(mod.GemmWgmmaPlan).parameters


def _flag(text: str) -> bool:
    if text in ("0", "1"):
        return text == "1"
    raise ValueError(text)


_flag.__name__ = "0 or 1"

#: template constants of the built-in kernels -> the plan keyword that must agree with them
_CONSTANT_OPTIONS = {"NORMAL_OPERANDS": ("normal_operands", _flag), "A_DECODER": ("a_decoder", _flag),
                     "A_BUFS": ("a_bufs", int)}


@dataclass
class _DataSet:
    label: str
    ref: np.ndarray          # fp16 [m, n, l]
    dev: dict                # a, b, sfa, sfb, c device arrays (batch-major)


@dataclass
class _State:
    shape: dict
    layout: object
    sets: list = field(default_factory=list)
    builtin_plans: dict = field(default_factory=dict)   # variant -> plan of the built-in kernel


@register_op
class GemmLab(LabOp):
    """NVFP4 GEMM ``c[:, :, b] = A[b] @ B[b]^T`` (FACTS §2), under the mma or the wgmma ABI."""

    name = "gemm"
    default_entry = None          # the file's only entry (or --entry): the ABI comes from its parameters
    shape_keys = ("m", "n", "k", "l")
    compute_bound = True
    #: device inputs in the order the plans take them (c follows)
    operands = ("a", "b", "sfa", "sfb")

    def __init__(self, options):
        super().__init__(options)
        self._variant = None      # the variant the last checked kernel follows

    @property
    def presets(self) -> dict:
        from ..data import PRESETS

        return {"default": [(m, n, k, 1) for m, n, k in PRESETS["gemm"]],
                "small": [(256, 512, 1024, 1), (192, 320, 768, 2)]}

    def parse_shapes(self, specs) -> list[dict]:
        """Presets and ``m,n,k,l``; ``m,n,k`` is short for ``m,n,k,1`` (the benchmark shapes have one batch)."""
        out = []
        for spec in specs or ["default"]:
            if not (isinstance(spec, str) and spec.count(",") == 2):
                out += super().parse_shapes([spec])
                continue
            try:
                out += super().parse_shapes([spec + ",1"])
            except LabUsageError as exc:
                raise LabUsageError(str(exc).replace(repr(spec + ",1"), repr(spec))) from None
        return out

    def validate_shape(self, shape: dict) -> None:
        from ..ops.gemm import K_MULTIPLE

        if shape["k"] % K_MULTIPLE:
            raise ValueError(f"the GEMM ABIs need k divisible by {K_MULTIPLE}, got k={shape['k']}")

    def abis(self) -> list[BuiltinAbi]:
        """The built-in kernels whose ABIs a user's kernel may follow."""
        return gemm_abis()

    def builtin_file(self):
        return self.abis()[0].path

    def check_abi(self, signature) -> str:
        abi = match_abi(self.name, signature, self.abis())
        self._variant = abi.variant
        return abi.describe()

    def bytes(self, shape: dict) -> int:
        m, n, k, l = shape["m"], shape["n"], shape["k"], shape["l"]
        return l * ((m + n) * (k // 2 + k // 16) + 2 * m * n)

    def flops(self, shape: dict) -> int:
        return 2 * shape["m"] * shape["n"] * shape["k"] * shape["l"]

    def out_bytes(self, shape: dict) -> int:
        return 2 * shape["m"] * shape["n"] * shape["l"]

    def _distributions(self) -> tuple[str, ...]:
        d = self.options.data
        return ("competition", "wide") if d == "both" else (d,)

    def describe_data(self) -> str:
        return f"fresh random NVFP4 {self.name} data, " + " and ".join(self._distributions()) + " distributions"

    def make_data(self, shape: dict, rng, distribution: str):
        """(host data with competition-layout fields and ``.physical(name)``, fp16 reference [m, n, l])."""
        from ..data import gemm_data
        from ..reference import gemm_ref

        d = gemm_data(shape["m"], shape["n"], shape["k"], shape["l"], seed=rng, distribution=distribution)
        return d, gemm_ref(d.a, d.b, d.sfa, d.sfb)

    def layout(self, shape: dict):
        from ..ops.gemm import GemmLayout

        return GemmLayout.contiguous(shape["m"], shape["n"], shape["k"], shape["l"])

    # ------------------------------------------------------------------ device side
    def prepare(self, shape: dict, rng: np.random.Generator) -> _State:
        from ..array import asarray, empty

        m, n, l = shape["m"], shape["n"], shape["l"]
        st = _State(dict(shape), self.layout(shape))
        self.device.activate()
        for dist in self._distributions():
            d, ref = self.make_data(shape, rng, dist)
            dev = {name: asarray(np.ascontiguousarray(d.physical(name).view(np.uint8)), device=self.device)
                   for name in self.operands}
            dev["c"] = empty((l, m, n), np.float16, device=self.device)
            st.sets.append(_DataSet(dist, ref, dev))
        return st

    def constant_options(self, plan_cls) -> dict:
        """Plan keywords implied by the user's ``-D`` constants (``-D A_DECODER=1`` -> ``a_decoder=True``).

        A built-in kernel's template constants select variants whose host side differs (alpha's
        scale, the block size, the shared memory), so a kernel built with them must be launched
        by a plan built with the matching options; only options the plan class takes are passed.
        """
        params = inspect.signature(plan_cls).parameters
        out = {}
        for const, (kw, conv) in _CONSTANT_OPTIONS.items():
            if const in self.options.constants and kw in params:
                try:
                    out[kw] = conv(str(self.options.constants[const]).strip())
                except ValueError:
                    raise LabError(f"-D {const}={self.options.constants[const]!r}: expected {conv.__name__} "
                                   f"(it selects {plan_cls.__name__}'s {kw})", status="unsupported") from None
        return out

    def _plan(self, variant: str, st: _State, kernel=None):
        """The variant's plan for this shape; with ``kernel``, one that launches it instead of the built-in."""
        from ..driver import CudaError

        try:
            return self.make_plan(variant, st, kernel)
        except CudaError:
            raise  # a driver failure (a lost context, say) is reported as such, not as "unsupported"
        except (ValueError, RuntimeError) as exc:
            label = " ".join(f"{k}={v}" for k, v in st.shape.items())
            raise LabError(f"the {variant} ABI cannot run {label} on this device: {exc}",
                           status="unsupported") from None

    def make_plan(self, variant: str, st: _State, kernel=None):
        from ..ops import gemm as ops_gemm

        s = st.shape
        dims = (s["m"], s["n"], s["k"], s["l"])
        if variant == "mma":
            return ops_gemm.GemmMmaPlan(*dims, st.layout, device=self.device, kernel=kernel)
        cls = ops_gemm._plan_class("wgmma")
        kw = {"device": self.device}
        if kernel is not None:
            kw.update(self.constant_options(cls))  # e.g. alpha's scale follows the user's -D NORMAL_OPERANDS
        if kernel is not None and wgmma_plan_takes_kernel():
            return cls(*dims, st.layout, kernel=kernel, **kw)
        plan = cls(*dims, st.layout, **kw)
        if kernel is not None:
            swap_kernel(plan, kernel)
        return plan

    def _launcher(self, plan, ds: _DataSet, stream):
        args = [ds.dev[name] for name in self.operands] + [ds.dev["c"]]
        return lambda: plan(*args, stream=stream)

    def bind(self, kernel, st: _State) -> Bound:
        from .. import driver
        from ..reference import check

        variant = match_abi(self.name, kernel.signature, self.abis()).variant
        self._variant = variant
        plan = self._plan(variant, st, kernel)
        stream = self.timer.stream
        runs = [self._launcher(plan, ds, stream) for ds in st.sets]

        def checks():
            out = []
            for ds, run in zip(st.sets, runs):
                c = ds.dev["c"]
                driver.call("cuMemsetD8", c.ptr, 0xFF, c.nbytes)  # fp16 NaN everywhere: unwritten tiles fail
                run()
                self.timer.synchronize()
                got = c.numpy().transpose(1, 2, 0)  # (l, m, n) -> [m, n, l]
                out.append((ds.label, check(got, ds.ref)))
            return out

        return Bound(checks=checks, run=runs[0])

    def baseline_key(self, st: _State):
        return self._variant

    def baseline(self, st: _State):
        variant = self._variant or "mma"
        plan = st.builtin_plans.get(variant)
        if plan is None:
            plan = st.builtin_plans[variant] = self._plan(variant, st)
        return self._launcher(plan, st.sets[0], self.timer.stream)

    def release(self, st: _State) -> None:
        for ds in st.sets:
            for arr in ds.dev.values():
                arr.close()
        st.sets.clear()
        st.builtin_plans.clear()


def swap_kernel(plan, kernel) -> None:
    """Make a fresh plan that prepares its launch from ``plan.kernel`` launch ``kernel`` instead.

    Used for GemmWgmmaPlan until it takes ``kernel=`` itself (docs/lab.md names the change).

    The plan prepares its launch from ``plan.kernel`` on the first call, so replacing the kernel
    before any call gives the user's kernel the plan's arguments, tensor maps and geometry; the
    kernel also needs the plan's dynamic shared memory allowed (above 48 KiB).
    """
    if getattr(plan, "_launch", None) is not None:
        raise RuntimeError("GemmWgmmaPlan was launched before its kernel could be replaced")
    if kernel.device.ordinal != plan.device.ordinal:
        raise ValueError(f"kernel is loaded on device {kernel.device.ordinal}, the plan runs on {plan.device.ordinal}")
    kernel.set_max_dynamic_shared(plan.geometry.shared_mem)
    plan.kernel = kernel
