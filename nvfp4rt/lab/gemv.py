"""``nvfp4rt lab gemv``: a user's kernel under the built-in GEMV ABI.

The ABI is the ``.entry nvfp4_gemv`` parameter list of ``ptx/gemv_nvfp4.ptx``
(read from that file at run time, so it follows the built-in kernel when its
list grows) and the launch contract computed by :class:`nvfp4rt.ops.gemv.GemvPlan`:
the user's kernel is launched by a ``GemvPlan(..., kernel=yours)``, with
exactly the arguments, grid, block and dynamic shared memory the plan gives
the built-in kernel (the occupancy it plans with is your kernel's own).

Data: per shape, the competition layout (each batch a contiguous K-major
block; b has 128 rows of which row 0 is the vector; c ``[m, 1, l]`` fp16,
poisoned with NaN before the check) in two distributions, the competition's
and the wide one (every e2m1 code and e4m3 scale range), references from
:func:`nvfp4rt.reference.gemv_ref`.  Timings use the competition data.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .core import Bound, LabOp, register_op

__all__ = ["GemvLab"]


@dataclass
class _DataSet:
    label: str
    ref: np.ndarray          # fp16 [m, 1, l]
    dev: dict                # a, b, sfa, sfb, c device arrays (batch-major)


@dataclass
class _State:
    shape: dict
    layout: object
    sets: list = field(default_factory=list)
    builtin_plan: object = None


@register_op
class GemvLab(LabOp):
    """Batched NVFP4 GEMV ``c[:, 0, b] = A[b] @ B[b][0]`` (FACTS §2)."""

    name = "gemv"
    default_entry = "nvfp4_gemv"
    shape_keys = ("m", "k", "l")

    @property
    def presets(self) -> dict:
        from ..data import PRESETS

        return {"default": PRESETS["gemv"], "small": [(256, 1024, 2), (512, 4096, 1)]}

    def validate_shape(self, shape: dict) -> None:
        from ..ops.gemv import MAX_K

        if shape["k"] % 32:
            raise ValueError(f"the GEMV ABI needs k divisible by 32, got k={shape['k']}")
        if shape["k"] > MAX_K:
            raise ValueError(f"k={shape['k']} is above the GEMV plan's limit {MAX_K}")

    def builtin_file(self):
        from ..ops import gemv as ops_gemv
        from ..ptxsource import ptx_dir

        return ptx_dir() / ops_gemv._KERNEL_FILE

    def bytes(self, shape: dict) -> int:
        m, k, l = shape["m"], shape["k"], shape["l"]
        return l * (m * k // 2 + m * k // 16 + k // 2 + k // 16 + 2 * m)

    def flops(self, shape: dict) -> int:
        return 2 * shape["m"] * shape["k"] * shape["l"]

    def _distributions(self) -> tuple[str, ...]:
        d = self.options.data
        return ("competition", "wide") if d == "both" else (d,)

    def describe_data(self) -> str:
        return "fresh random NVFP4 data, " + " and ".join(self._distributions()) + " distributions"

    def prepare(self, shape: dict, rng: np.random.Generator) -> _State:
        from ..array import asarray, empty
        from ..data import GEMV_B_ROWS, gemv_data
        from ..ops.gemv import GemvLayout
        from ..reference import gemv_ref

        m, k, l = shape["m"], shape["k"], shape["l"]
        layout = GemvLayout(a_row=k // 2, a_batch=m * k // 2, sfa_row=k // 16, sfa_batch=m * k // 16,
                            b_batch=GEMV_B_ROWS * k // 2, sfb_batch=GEMV_B_ROWS * k // 16, c_row=1, c_batch=m)
        st = _State(dict(shape), layout)
        self.device.activate()
        for dist in self._distributions():
            d = gemv_data(m, k, l, seed=rng, distribution=dist)
            ref = gemv_ref(d.a, d.b, d.sfa, d.sfb)
            dev = {name: asarray(np.ascontiguousarray(d.physical(name).view(np.uint8)), device=self.device)
                   for name in ("a", "b", "sfa", "sfb")}
            dev["c"] = empty((l, m, 1), np.float16, device=self.device)
            st.sets.append(_DataSet(dist, ref, dev))
        return st

    def _plan(self, st: _State, kernel=None):
        from ..ops.gemv import GemvPlan

        s = st.shape
        return GemvPlan(s["m"], s["k"], s["l"], st.layout, device=self.device, kernel=kernel)

    @staticmethod
    def _launcher(plan, ds: _DataSet, stream):
        d = ds.dev
        return lambda: plan(d["a"], d["b"], d["sfa"], d["sfb"], d["c"], stream=stream)

    def bind(self, kernel, st: _State) -> Bound:
        from .. import driver
        from ..reference import check

        plan = self._plan(st, kernel)
        stream = self.timer.stream
        runs = [self._launcher(plan, ds, stream) for ds in st.sets]

        def checks():
            out = []
            for ds, run in zip(st.sets, runs):
                c = ds.dev["c"]
                driver.call("cuMemsetD8", c.ptr, 0xFF, c.nbytes)  # fp16 NaN everywhere: unwritten rows fail
                run()
                self.timer.synchronize()
                got = c.numpy().transpose(1, 2, 0)  # (l, m, 1) -> [m, 1, l]
                out.append((ds.label, check(got, ds.ref)))
            return out

        return Bound(checks=checks, run=runs[0])

    def baseline(self, st: _State):
        if st.builtin_plan is None:
            st.builtin_plan = self._plan(st)
        return self._launcher(st.builtin_plan, st.sets[0], self.timer.stream)

    def release(self, st: _State) -> None:
        for ds in st.sets:
            for arr in ds.dev.values():
                arr.close()
        st.sets.clear()
        st.builtin_plan = None
