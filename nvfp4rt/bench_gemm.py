"""The ``gemm`` benchmark adapter: NVFP4 GEMM through :func:`nvfp4rt.ops.gemm.gemm_raw`.

Registered with :mod:`nvfp4rt.bench` (its ``_load_builtin_ops`` imports this module), so
``nvfp4rt bench gemm`` runs it.  Per shape, in the harness's order:

* fresh inputs from :func:`nvfp4rt.data.gemm_data` (the competition's GEMM distribution: every
  byte pattern, scales in {0, 1, 2, 3}), drawn from the run's generator, l = 1;
* a correctness check before any timing: c poisoned with 0xFF bytes (fp16 NaN), one call,
  :func:`nvfp4rt.reference.gemm_ref` (float64) and the competition's tolerance;
* our median time with L2 cleared before each call, hence TFLOP/s and the percentage of the fp16
  tensor-core ceiling that the harness measures in the same run (an 8192^3 cuBLAS matmul);
* the peer: cuBLAS fp16 ``torch.matmul`` on operands dequantised on the host beforehand (exact
  in fp16), timed the same way with L2 cleared.

``NVFP4RT_GEMM_VARIANT=mma|wgmma|wgmma_cluster`` forces a kernel variant (default: the runtime's choice).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from .bench import BenchCheckError, OpBench, Peer, _dequant_fp4_host, register_op, torch_with_cuda
from .data import PRESETS
from .ops.gemm import VARIANTS

__all__ = ["GemmBench"]


@dataclass
class _GemmState:
    shape: dict
    host: object          # nvfp4rt.data.GemmData (competition views of batch-major arrays)
    dev: dict             # contiguous (l, rows, cols) device arrays
    views: dict           # competition views [rows, cols, l]
    stream: object
    torch_cache: dict = field(default_factory=dict)


@register_op
class GemmBench(OpBench):
    """NVFP4 GEMM ``c[:, :, 0] = A @ B^T`` on the competition's raw tensors (l = 1)."""

    name = "gemm"
    shape_keys = ("m", "n", "k")
    compute_bound = True
    presets = {
        "default": [{"m": m, "n": n, "k": k} for m, n, k in PRESETS["gemm"]],
        "small": [{"m": 256, "n": 512, "k": 1024}],
    }

    def validate_shape(self, shape: dict) -> None:
        if shape["k"] % 64:
            raise ValueError(f"gemm shapes need k divisible by 64, got k={shape['k']}")

    def bytes(self, shape: dict) -> int:
        m, n, k = shape["m"], shape["n"], shape["k"]
        return m * k // 2 + m * k // 16 + n * k // 2 + n * k // 16 + 2 * m * n

    def flops(self, shape: dict) -> int:
        return 2 * shape["m"] * shape["n"] * shape["k"]

    def out_bytes(self, shape: dict) -> int:
        return 2 * shape["m"] * shape["n"]

    @property
    def variant(self):
        v = os.environ.get("NVFP4RT_GEMM_VARIANT") or None
        if v is not None and v not in VARIANTS:
            raise ValueError(f"NVFP4RT_GEMM_VARIANT must be one of {VARIANTS}, got {v!r}")
        return v

    def make_inputs(self, shape: dict, rng: np.random.Generator) -> _GemmState:
        from .array import asarray
        from .data import gemm_data

        d = gemm_data(shape["m"], shape["n"], shape["k"], 1, seed=rng)
        if self.device is not None:
            self.device.activate()
        dev = {}
        for name in ("a", "b", "sfa", "sfb", "c"):
            phys = d.physical(name)
            dev[name] = asarray(phys.view(np.uint8) if name.startswith("sf") else phys)
        views = {name: arr.transpose(1, 2, 0) for name, arr in dev.items()}
        return _GemmState(dict(shape), d, dev, views, self.stream)

    def run(self, state: _GemmState) -> None:
        from .ops.gemm import gemm_raw

        v = state.views
        gemm_raw(v["a"], v["b"], v["sfa"], v["sfb"], v["c"], stream=state.stream, variant=self.variant)

    def check(self, state: _GemmState) -> None:
        from .reference import check, gemm_ref

        c = state.dev["c"]
        self.run_poisoned(state, [c])
        got = c.numpy().transpose(1, 2, 0)
        h = state.host
        res = check(got, gemm_ref(h.a, h.b, h.sfa, h.sfb))
        if not res.ok:
            raise BenchCheckError(f"gemm {self.shape_label(state.shape)}: {res.report()}")

    def peers(self, state: _GemmState) -> dict[str, Peer]:
        """cuBLAS fp16 ``torch.matmul(A, B^T)`` on pre-dequantised operands (torch with CUDA only)."""
        torch = torch_with_cuda()
        if torch is None:
            return {}
        h = state.host
        a16 = torch.from_numpy(_dequant_fp4_host(h.physical("a")[0], h.physical("sfa")[0].view(np.uint8))
                               .astype(np.float16)).cuda()
        b16 = torch.from_numpy(_dequant_fp4_host(h.physical("b")[0], h.physical("sfb")[0].view(np.uint8))
                               .astype(np.float16)).cuda()
        bt = b16.t()
        out = torch.empty((a16.shape[0], b16.shape[0]), dtype=torch.float16, device="cuda")

        def cublas_matmul():
            torch.matmul(a16, bt, out=out)

        state.torch_cache.update(a16=a16, b16=b16, out=out)
        return {"cublas_fp16_matmul": Peer(cublas_matmul, "torch")}

    def release(self, state: _GemmState) -> None:
        for arr in state.dev.values():
            close = getattr(arr, "close", None)
            if close is not None:
                close()
        state.torch_cache.clear()
        state.views.clear()
