"""The ``dual_gemm`` benchmark adapter: ``c = silu(A @ B1^T) * (A @ B2^T)`` via :func:`nvfp4rt.dual_gemm_silu_raw`.

Registered with :mod:`nvfp4rt.bench` (``_load_builtin_ops``), so ``nvfp4rt bench dual_gemm`` runs it.
Per shape: fresh inputs from :func:`nvfp4rt.data.dual_gemm_data` (the competition's dual GEMM
distribution), a correctness check on a NaN-poisoned c against
:func:`nvfp4rt.reference.dual_gemm_silu_ref` before timing, our median time with L2 cleared, TFLOP/s
(4mnk) and the percentage of the same-run fp16 ceiling.  Peers (cuBLAS fp16 through torch on
operands dequantised beforehand, the issue's "best cuBLAS fp16 path" is the better of the two):

* ``cublas_fp16_two_gemms``: two ``torch.matmul`` (A B1^T, A B2^T) in fp16, then silu * mul;
* ``cublas_fp16_concat_gemm``: one ``torch.matmul`` against [B1; B2] (2n rows), then silu * mul;
* ``nvfp4rt_first_dual_kernel``: ptx/dual_gemm_nvfp4_wgmma.ptx (A decoded in every CTA, 128-row tiles)
  through its own plan, when the op layer chose another kernel for the shape;
* ``nvfp4rt_cluster_dual_kernel``: ptx/dual_gemm_nvfp4_wgmma_cluster.ptx (256-row tiles) through its own plan,
  when the op layer chose the cluster GEMM's DUAL build (``nvfp4rt.ops.dual_gemm_tiles``).

The elementwise part runs in fp32 (``F.silu(h1.float()) * h2.float()`` then fp16), as the reference.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .bench import BenchCheckError, OpBench, Peer, _dequant_fp4_host, register_op, torch_with_cuda
from .data import PRESETS

__all__ = ["DualGemmBench"]

_NAMES = ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c")


@dataclass
class _DualState:
    shape: dict
    host: object
    dev: dict
    views: dict
    stream: object
    torch_cache: dict = field(default_factory=dict)


@register_op
class DualGemmBench(OpBench):
    """SiLU-gated NVFP4 dual GEMM on the competition's raw tensors (l = 1)."""

    name = "dual_gemm"
    shape_keys = ("m", "n", "k")
    compute_bound = True
    presets = {
        "default": [{"m": m, "n": n, "k": k} for m, n, k in PRESETS["dual_gemm"]],
        "small": [{"m": 256, "n": 512, "k": 1024}],
    }

    def validate_shape(self, shape: dict) -> None:
        if shape["k"] % 64:
            raise ValueError(f"dual_gemm shapes need k divisible by 64, got k={shape['k']}")

    def bytes(self, shape: dict) -> int:
        m, n, k = shape["m"], shape["n"], shape["k"]
        return (m + 2 * n) * (k // 2 + k // 16) + 2 * m * n

    def flops(self, shape: dict) -> int:
        return 4 * shape["m"] * shape["n"] * shape["k"]

    def out_bytes(self, shape: dict) -> int:
        return 2 * shape["m"] * shape["n"]

    def make_inputs(self, shape: dict, rng: np.random.Generator) -> _DualState:
        from .array import asarray
        from .data import dual_gemm_data

        d = dual_gemm_data(shape["m"], shape["n"], shape["k"], 1, seed=rng)
        if self.device is not None:
            self.device.activate()
        dev = {}
        for name in _NAMES:
            phys = d.physical(name)
            dev[name] = asarray(phys.view(np.uint8) if name.startswith("sf") else phys)
        views = {name: arr.transpose(1, 2, 0) for name, arr in dev.items()}
        return _DualState(dict(shape), d, dev, views, self.stream)

    def run(self, state: _DualState) -> None:
        from .ops.dual_gemm import dual_gemm_silu_raw

        v = state.views
        dual_gemm_silu_raw(*(v[x] for x in _NAMES), stream=state.stream)

    def check(self, state: _DualState) -> None:
        from .reference import check, dual_gemm_silu_ref

        c = state.dev["c"]
        self.run_poisoned(state, [c])
        h = state.host
        res = check(c.numpy().transpose(1, 2, 0), dual_gemm_silu_ref(h.a, h.b1, h.b2, h.sfa, h.sfb1, h.sfb2))
        if not res.ok:
            raise BenchCheckError(f"dual_gemm {self.shape_label(state.shape)}: {res.report()}")

    def peers(self, state: _DualState) -> dict[str, Peer]:
        from .ops import dual_gemm as D

        peers = {}
        m, n, k = (state.shape[x] for x in ("m", "n", "k"))
        variant = D.variant_for(m, n, k, 1, sm_count=self.device.properties.sm_count)
        args = [state.views[x] for x in _NAMES]
        if variant != "wgmma":
            first = D.DualGemmPlan(m, n, k, 1, device=self.device)
            state.torch_cache["first_plan"] = first
            peers["nvfp4rt_first_dual_kernel"] = Peer(lambda: first(*args, stream=state.stream), "nvfp4rt")
        if variant == "wgmma_tiles":
            from .ops.dual_gemm_cluster import DualGemmClusterPlan

            cluster = DualGemmClusterPlan(m, n, k, 1, device=self.device)
            state.torch_cache["cluster_plan"] = cluster
            peers["nvfp4rt_cluster_dual_kernel"] = Peer(lambda: cluster(*args, stream=state.stream), "nvfp4rt")
        torch = torch_with_cuda()
        if torch is None:
            return peers
        import torch.nn.functional as F
        h = state.host

        def deq(name, sf):
            return torch.from_numpy(_dequant_fp4_host(h.physical(name)[0], h.physical(sf)[0].view(np.uint8))
                                    .astype(np.float16)).cuda()

        a16, b1, b2 = deq("a", "sfa"), deq("b1", "sfb1"), deq("b2", "sfb2")
        n = b1.shape[0]
        bcat = torch.cat([b1, b2])  # [2n, k]
        b1t, b2t = b1.t(), b2.t()
        h1 = torch.empty((a16.shape[0], n), dtype=torch.float16, device="cuda")
        h2 = torch.empty_like(h1)
        hcat = torch.empty((a16.shape[0], 2 * n), dtype=torch.float16, device="cuda")
        out = torch.empty_like(h1)

        def two_gemms():
            torch.matmul(a16, b1t, out=h1)
            torch.matmul(a16, b2t, out=h2)
            out.copy_(F.silu(h1.float()) * h2.float())

        def concat_gemm():
            torch.matmul(a16, bcat.t(), out=hcat)
            out.copy_(F.silu(hcat[:, :n].float()) * hcat[:, n:].float())

        state.torch_cache.update(a16=a16, b1=b1, b2=b2, bcat=bcat, h1=h1, h2=h2, hcat=hcat, out=out)
        peers.update(cublas_fp16_two_gemms=Peer(two_gemms, "torch"), cublas_fp16_concat_gemm=Peer(concat_gemm, "torch"))
        return peers

    def release(self, state: _DualState) -> None:
        for arr in state.dev.values():
            close = getattr(arr, "close", None)
            if close is not None:
                close()
        state.torch_cache.clear()
        state.views.clear()
