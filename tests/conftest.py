"""Shared test helpers.

``requires_gpu`` skips a test (with the driver's reason) where no CUDA driver or
device is available; GPU tests also carry ``@pytest.mark.gpu``.  ``requires_ptxas``
skips a test where no ptxas is found (the offline assembly checks).  ``tool_module(name)``
imports one of the checkout's ``tools/`` scripts (the PTX generators) as a module.
"""
import importlib
import sys
from pathlib import Path

import pytest

import nvfp4rt.driver

_GPU_REASON = nvfp4rt.driver.unavailable_reason()

requires_gpu = pytest.mark.skipif(_GPU_REASON is not None, reason=f"needs a CUDA GPU: {_GPU_REASON}")

requires_ptxas = pytest.mark.skipif(__import__("nvfp4rt.assemble", fromlist=["find_ptxas"]).find_ptxas() is None,
                                    reason="ptxas not found")


def tool_module(name: str):
    """The module ``tools/<name>.py`` of this checkout (tools/ is not a package)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)
