"""Shared test helpers.

``requires_gpu`` skips a test (with the driver's reason) where no CUDA driver or
device is available; GPU tests also carry ``@pytest.mark.gpu``.
"""
import pytest

import nvfp4rt.driver

_GPU_REASON = nvfp4rt.driver.unavailable_reason()

requires_gpu = pytest.mark.skipif(_GPU_REASON is not None, reason=f"needs a CUDA GPU: {_GPU_REASON}")
