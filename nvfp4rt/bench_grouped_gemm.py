"""The ``grouped_gemm`` benchmark adapter: every group in one launch via :func:`nvfp4rt.grouped_gemm_raw`.

Registered with :mod:`nvfp4rt.bench` (``_load_builtin_ops``): ``nvfp4rt bench grouped_gemm``.
A shape is ``case`` = 1..4, the competition's grouped problems (FACTS section 2, in order).  Per
case: fresh inputs from :func:`nvfp4rt.data.grouped_gemm_data`, every c poisoned with NaN and
checked against :func:`nvfp4rt.reference.gemm_ref` before timing, our median time with L2
cleared, TFLOP/s (sum of 2mnk) and the percentage of the same-run fp16 ceiling.  Peers:

* ``nvfp4rt_gemm_per_group``: :func:`nvfp4rt.gemm_raw` once per group (the issue's 1.5x bar);
* ``cublas_fp16_per_group``: one cuBLAS fp16 ``torch.matmul`` per group on operands dequantised
  beforehand;
* ``nvfp4rt_first_grouped_kernel``: ptx/grouped_gemm_nvfp4_wgmma.ptx (A decoded in every CTA, 128-row
  tiles) through its own plan, when the op layer chose another kernel;
* ``nvfp4rt_cluster_grouped_kernel``: ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx (256-row tiles) through its own
  plan, when the op layer chose the m-tile kernel (the cluster GEMM by m tile).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .bench import BenchCheckError, OpBench, Peer, _dequant_fp4_host, register_op, torch_with_cuda
from .data import PRESETS

__all__ = ["GroupedGemmBench"]


@dataclass
class _GroupedState:
    shape: dict
    shapes: list
    host: object
    dev: list             # per group: dict of contiguous (1, rows, cols) device arrays
    views: list           # per group: (a, b, sfa, sfb, c) competition views
    stream: object
    torch_cache: dict = field(default_factory=dict)


def _cases() -> list:
    return [list(c) for c in PRESETS["grouped_gemm"]]


@register_op
class GroupedGemmBench(OpBench):
    """Grouped NVFP4 GEMM (one launch for all groups), the competition's four cases."""

    name = "grouped_gemm"
    shape_keys = ("case",)
    compute_bound = True
    presets = {
        "default": [{"case": i + 1} for i in range(4)],
        "small": [{"case": 0}],
    }
    #: case 0: a small ragged problem for quick runs
    SMALL_CASE = [(1, 1, 64), (63, 200, 320), (129, 7, 256)]

    def validate_shape(self, shape: dict) -> None:
        if not 1 <= shape["case"] <= len(_cases()):
            raise ValueError(f"grouped_gemm case must be 1..{len(_cases())}, got {shape['case']}")

    def _shapes(self, shape: dict) -> list:
        return self.SMALL_CASE if shape["case"] == 0 else [tuple(s) for s in _cases()[shape["case"] - 1]]

    def shape_label(self, shape: dict) -> str:
        s = self._shapes(shape)
        return f"case={shape['case']} ({len(s)} groups, n={s[0][1]}, k={s[0][2]})"

    def bytes(self, shape: dict) -> int:
        return sum((m + n) * (k // 2 + k // 16) + 2 * m * n for m, n, k in self._shapes(shape))

    def flops(self, shape: dict) -> int:
        return sum(2 * m * n * k for m, n, k in self._shapes(shape))

    def out_bytes(self, shape: dict) -> int:
        return sum(2 * m * n for m, n, _ in self._shapes(shape))

    def make_inputs(self, shape: dict, rng: np.random.Generator) -> _GroupedState:
        from .array import asarray
        from .data import grouped_gemm_data

        shapes = self._shapes(shape)
        d = grouped_gemm_data(shapes, seed=rng)
        if self.device is not None:
            self.device.activate()
        dev, views = [], []
        for g in d.groups:
            arrs = {}
            for name in ("a", "b", "sfa", "sfb", "c"):
                phys = g.physical(name)
                arrs[name] = asarray(phys.view(np.uint8) if name.startswith("sf") else phys)
            dev.append(arrs)
            views.append(tuple(arrs[x].transpose(1, 2, 0) for x in ("a", "b", "sfa", "sfb", "c")))
        return _GroupedState(dict(shape), shapes, d, dev, views, self.stream)

    def run(self, state: _GroupedState) -> None:
        from .ops.grouped_gemm import grouped_gemm_raw

        grouped_gemm_raw(state.views, stream=state.stream)

    def check(self, state: _GroupedState) -> None:
        from .reference import check, gemm_ref

        self.run_poisoned(state, [arrs["c"] for arrs in state.dev])
        for i, (arrs, g) in enumerate(zip(state.dev, state.host.groups)):
            res = check(arrs["c"].numpy().transpose(1, 2, 0), gemm_ref(g.a, g.b, g.sfa, g.sfb))
            if not res.ok:
                raise BenchCheckError(f"grouped_gemm {self.shape_label(state.shape)} group {i}: {res.report()}")

    def peers(self, state: _GroupedState) -> dict[str, Peer]:
        from .ops.gemm import gemm_raw

        def per_group_gemm():
            for v in state.views:
                gemm_raw(*v, stream=state.stream)

        peers = {"nvfp4rt_gemm_per_group": Peer(per_group_gemm, "nvfp4rt")}
        from .ops import grouped_gemm as GG

        if GG.variant_for(state.shapes) != "wgmma":
            layouts = [GG._raw_groups([v])[0][3] for v in state.views]
            first = GG.plan_grouped_gemm(state.shapes, layouts=layouts, variant="wgmma")
            state.torch_cache["first_plan"] = first
            peers["nvfp4rt_first_grouped_kernel"] = Peer(lambda: first(state.views, stream=state.stream), "nvfp4rt")
        if GG.variant_for(state.shapes) == "wgmma_mtiles":
            from .ops.grouped_gemm_cluster import supports as cluster_supports

            if cluster_supports(state.shapes):
                layouts = [GG._raw_groups([v])[0][3] for v in state.views]
                cl = GG.plan_grouped_gemm(state.shapes, layouts=layouts, variant="wgmma_cluster")
                state.torch_cache["cluster_plan"] = cl
                peers["nvfp4rt_cluster_grouped_kernel"] = Peer(lambda: cl(state.views, stream=state.stream), "nvfp4rt")
        torch = torch_with_cuda()
        if torch is None:
            return peers
        mats = []
        for g in state.host.groups:
            a16 = torch.from_numpy(_dequant_fp4_host(g.physical("a")[0], g.physical("sfa")[0].view(np.uint8))
                                   .astype(np.float16)).cuda()
            b16 = torch.from_numpy(_dequant_fp4_host(g.physical("b")[0], g.physical("sfb")[0].view(np.uint8))
                                   .astype(np.float16)).cuda()
            out = torch.empty((a16.shape[0], b16.shape[0]), dtype=torch.float16, device="cuda")
            mats.append((a16, b16.t(), out))

        def cublas_per_group():
            for a16, bt, out in mats:
                torch.matmul(a16, bt, out=out)

        state.torch_cache["mats"] = mats
        peers["cublas_fp16_per_group"] = Peer(cublas_per_group, "torch")
        return peers

    def release(self, state: _GroupedState) -> None:
        for arrs in state.dev:
            for arr in arrs.values():
                close = getattr(arr, "close", None)
                if close is not None:
                    close()
        state.torch_cache.clear()
        state.views.clear()
