"""nvfp4rt: a framework-free Python runtime for handwritten NVFP4 PTX kernels.

Importing nvfp4rt never touches the GPU; the driver is initialised on first use.
"""
from .driver import CudaError, CudaContextLostError, CudaOutOfMemoryError, CudaUnavailableError, Device, device

__version__ = "0.1.0"
