"""Spec of the worked `nvfp4rt lab custom` example: out = alpha * x + y in fp32.

    nvfp4rt lab custom docs/examples/scaled_add.ptx --spec docs/examples/scaled_add.py

Copy scaled_add.ptx, edit it, and run the lab on the copy: the table compares
your kernel with BASELINE (the original) and the read-bandwidth floor.
"""
import numpy as np

SHAPE_KEYS = ("n",)
PRESETS = {
    "default": [(1 << 24,), (1 << 26,)],   # 64 MiB and 256 MiB per operand: far above any L2
    "small": [(4096,)],
}
ENTRY = "scaled_add"
BASELINE = "scaled_add.ptx"
TOLERANCE = (1e-6, 1e-6)   # one fp32 FMA: the result is exact to fp32 rounding
_BLOCK = 256


def inputs(shape, rng):
    n = shape["n"]
    if n % 4:
        raise ValueError(f"n must be a multiple of 4, got {n}")
    return {
        "x": rng.standard_normal(n, dtype=np.float32),
        "y": rng.standard_normal(n, dtype=np.float32),
        "alpha": float(np.float32(rng.uniform(-4.0, 4.0))),
    }


def outputs(shape):
    return {"out": ((shape["n"],), np.float32)}


def launch(shape, args):
    n = shape["n"]
    return {
        "args": [args["out"], args["x"], args["y"], args["alpha"], n],
        "grid": (-(-n // (4 * _BLOCK)), 1, 1),
        "block": (_BLOCK, 1, 1),
        "shared_mem": 0,
    }


def reference(shape, inputs):
    x = inputs["x"].astype(np.float64)
    y = inputs["y"].astype(np.float64)
    return {"out": (inputs["alpha"] * x + y).astype(np.float32)}


def bytes_moved(shape):
    return 3 * 4 * shape["n"]


def flops(shape):
    return 2 * shape["n"]
