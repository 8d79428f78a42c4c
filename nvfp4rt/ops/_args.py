"""Argument checks shared by the op plans: each raises an exception that names the argument."""
from __future__ import annotations

import math

import numpy as np

__all__ = ["positive_int", "finite_float", "device_ptr"]


def positive_int(name: str, v) -> int:
    """``v`` as an int >= 1 (numpy integers too, bools never); ValueError naming ``name`` otherwise."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
        raise ValueError(f"{name} must be a positive int, got {v!r}")
    return int(v)


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
