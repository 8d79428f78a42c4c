"""Argument checks shared by the op plans: each raises an exception that names the argument."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

__all__ = ["positive_int", "finite_float", "device_ptr", "FP4_DTYPES", "SCALE_DTYPES", "check_dtype",
           "competition_operands"]


def positive_int(name: str, v) -> int:
    """``v`` as an int >= 1 (numpy integers too, bools never); ValueError naming ``name`` otherwise."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
        raise ValueError(f"{name} must be a positive int, got {v!r}")
    return int(v)


def flag(name: str, v) -> bool:
    """``v`` as a bool (numpy bools too, nothing else); ValueError naming ``name`` otherwise."""
    if not isinstance(v, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {v!r}")
    return bool(v)


def finite_float(name: str, v) -> float:
    """``v`` as a finite float (ints and numpy scalars too, bools never)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(v)):
        raise ValueError(f"{name} must be a finite float, got {v!r}")
    return float(v)


def device_ptr(name: str, arr) -> int:
    """The device address of ``arr`` (an object with an int ``.ptr``); TypeError/ValueError naming ``name``."""
    ptr = getattr(arr, "ptr", None)
    if isinstance(ptr, bool) or not isinstance(ptr, (int, np.integer)):
        raise TypeError(f"{name} must be a device array (an object with an int .ptr), got {type(arr).__name__}")
    if ptr == 0:
        raise ValueError(f"{name} is a null device pointer")
    return int(ptr)


FP4_DTYPES = frozenset({np.dtype(np.uint8), np.dtype(np.int8)})
SCALE_DTYPES = frozenset({np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(np.uint8)})


def check_dtype(name: str, arr, allowed, what: str) -> None:
    if np.dtype(arr.dtype) not in allowed:
        raise TypeError(f"{name} must hold {what}, got dtype {np.dtype(arr.dtype)}")


def competition_operands(fp4: dict, scales: dict, out: dict) -> None:
    """Rank and dtype of the competition's 3-D operands, each dict ``{name: array}``: packed e2m1 bytes,
    e4m3 scales (or their uint8 bits), fp16 outputs.  TypeError/ValueError naming the argument."""
    for name, arr in (*fp4.items(), *scales.items(), *out.items()):
        if len(arr.shape) != 3:
            raise ValueError(f"{name} must be 3-D (competition layout), got shape {tuple(arr.shape)}")
    for name, arr in fp4.items():
        check_dtype(name, arr, FP4_DTYPES, "packed e2m1 bytes (uint8)")
    for name, arr in scales.items():
        check_dtype(name, arr, SCALE_DTYPES, "e4m3 scales (float8_e4m3fn or uint8)")
    for name, arr in out.items():
        if np.dtype(arr.dtype) != np.float16:
            raise TypeError(f"{name} must be float16, got dtype {np.dtype(arr.dtype)}")
