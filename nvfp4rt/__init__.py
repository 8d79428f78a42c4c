"""nvfp4rt: a framework-free Python runtime for handwritten NVFP4 PTX kernels.

Importing nvfp4rt never touches the GPU; the driver is initialised on first use,
and on a machine without one the first GPU call raises CudaUnavailableError.
"""
from .driver import (
    CudaContextLostError,
    CudaError,
    CudaOutOfMemoryError,
    CudaUnavailableError,
    Device,
    device,
)
from .array import DeviceArray, asarray, empty, from_dlpack, from_numpy, full, zeros
from .stream import Event, Stream, default_stream
from .module import Kernel, Module, PtxCompileError, load
from .launch import Pointer, PreparedLaunch, launch
from .tma import TensorMap
from .nvfp4 import NVFP4Tensor, dequantize, pack_fp4, quantize, unpack_fp4
from .ops.gemv import GemvPlan, gemv, gemv_raw, plan_gemv
from .ops.gemm import GemmLayout, gemm, gemm_raw, plan_gemm
from .ops.dual_gemm import DualGemmLayout, dual_gemm_silu, dual_gemm_silu_raw, plan_dual_gemm_silu
from .ops.grouped_gemm import grouped_gemm, grouped_gemm_raw, plan_grouped_gemm

__version__ = "0.1.0"
