"""The checked driver layer (nvfp4rt/driver.py): result checking, typed errors, sticky-error reporting.

CPU: how a CUresult becomes a typed exception (names the call, the result and its description; sticky
results say the context is lost), how outputs are unpacked, and the no-driver path.  GPU: a real sticky
error, provoked in a child process (it would end this process's context), and a recoverable error that
leaves the context usable.
"""
import json
import os
import subprocess
import sys

import pytest

from cuda.bindings.driver import CUresult

from nvfp4rt import driver
from conftest import requires_gpu

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_check_unpacks_outputs():
    ok = CUresult.CUDA_SUCCESS
    assert driver.check("cuX", (ok,)) is None
    assert driver.check("cuX", ok) is None
    assert driver.check("cuX", (ok, 7)) == 7
    assert driver.check("cuX", (ok, 1, 2)) == (1, 2)


def test_a_failed_call_names_the_call_the_result_and_its_description():
    with pytest.raises(driver.CudaError) as info:
        driver.check("cuMemAlloc", (CUresult.CUDA_ERROR_INVALID_VALUE, None))
    err = info.value
    assert type(err) is driver.CudaError
    assert err.call == "cuMemAlloc" and err.name == "CUDA_ERROR_INVALID_VALUE"
    assert err.result == CUresult.CUDA_ERROR_INVALID_VALUE
    assert str(err).startswith("cuMemAlloc failed: CUDA_ERROR_INVALID_VALUE (")
    assert err.description  # the driver's text where a driver is loaded, else the result's name


@pytest.mark.parametrize("name", ["CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_ASSERT", "CUDA_ERROR_LAUNCH_FAILED",
                                  "CUDA_ERROR_MISALIGNED_ADDRESS", "CUDA_ERROR_ILLEGAL_INSTRUCTION"])
def test_sticky_results_say_the_context_is_lost(name):
    err = driver.error_for("cuStreamSynchronize", getattr(CUresult, name))
    assert isinstance(err, driver.CudaContextLostError) and isinstance(err, driver.CudaError)
    assert "context is lost" in str(err) and "restart the process" in str(err)
    assert str(err).startswith(f"cuStreamSynchronize failed: {name}")


def test_out_of_memory_is_also_a_memory_error():
    err = driver.error_for("cuMemAlloc", CUresult.CUDA_ERROR_OUT_OF_MEMORY)
    assert isinstance(err, driver.CudaOutOfMemoryError) and isinstance(err, MemoryError)
    assert "context is lost" not in str(err)


def test_recoverable_results_are_plain_cuda_errors():
    for name in ("CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_NOT_FOUND", "CUDA_ERROR_INVALID_IMAGE"):
        err = driver.error_for("cuModuleGetFunction", getattr(CUresult, name))
        assert type(err) is driver.CudaError, name


def test_unavailable_error_says_no_driver_or_device():
    err = driver.CudaUnavailableError("libcuda.so not found")
    assert str(err) == "no CUDA driver/device found: libcuda.so not found"
    assert isinstance(err, driver.CudaError) and err.call == "cuInit"


@pytest.mark.skipif(driver.unavailable_reason() is None, reason="checks the behaviour on a machine without a GPU")
def test_without_a_gpu_import_works_and_use_raises_one_clear_error():
    import nvfp4rt

    assert driver.unavailable_reason().startswith("no CUDA driver/device found")
    with pytest.raises(driver.CudaUnavailableError, match="no CUDA driver/device found"):
        nvfp4rt.device()
    with pytest.raises(driver.CudaUnavailableError, match="no CUDA driver/device found"):
        driver.call("cuDeviceGetCount")


_STICKY_CHILD = r"""
import json, sys
from nvfp4rt import driver
from nvfp4rt.module import load
from nvfp4rt.ptxsource import ptx_dir

dev = driver.device(0)
kernel = load(ptx_dir() / "test_add_one.ptx", device=dev, cache=None).kernel("add_one")
kernel(0x10, 1, grid=(1, 1, 1), block=(1, 1, 1))   # x = 16: not a device address
out = {}
try:
    dev.synchronize()
except driver.CudaError as exc:
    out["sync"] = [type(exc).__name__, exc.call, exc.name, str(exc)]
try:
    driver.call("cuMemAlloc", 1024)
except driver.CudaError as exc:
    out["after"] = [type(exc).__name__, exc.call, exc.name]
print(json.dumps(out))
"""


@pytest.mark.gpu
@requires_gpu
def test_sticky_error_is_reported_as_context_lost_in_a_child_process():
    """A kernel writing to address 16 loses its context: the synchronize that reports it raises
    CudaContextLostError naming the call and the result, and so does every later call.  In a child
    process, so this test process keeps a working context."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", _STICKY_CHILD], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    kind, call, name, text = out["sync"]
    assert kind == "CudaContextLostError" and call.endswith("Synchronize"), out
    assert name in ("CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_FAILED"), out
    assert "context is lost" in text
    assert out["after"][0] == "CudaContextLostError" and out["after"][1] == "cuMemAlloc", out
    # this process is unaffected
    dev = driver.device(0)
    ptr = driver.call("cuMemAlloc", 1024)
    driver.call("cuMemFree", ptr)
    dev.synchronize()


@pytest.mark.gpu
@requires_gpu
def test_out_of_memory_is_recoverable():
    dev = driver.device(0)
    free, total = dev.mem_info()
    with pytest.raises(driver.CudaOutOfMemoryError, match="cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY"):
        driver.call("cuMemAlloc", total * 4)
    ptr = driver.call("cuMemAlloc", 1 << 20)  # the context still works
    driver.call("cuMemFree", ptr)


@pytest.mark.gpu
@requires_gpu
def test_device_properties_are_read_once_and_plausible():
    dev = driver.device(0)
    p = dev.properties
    assert p is dev.properties  # cached
    assert p.sm_count > 0 and p.l2_bytes > 0 and p.max_shared_per_block_optin >= 48 * 1024
    major, minor = dev.compute_capability
    assert dev.arch == (f"sm_{major}{minor}a" if (major, minor) == (9, 0) else f"sm_{major}{minor}")
