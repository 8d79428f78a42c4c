"""Library operations (GEMV, ...) built on the runtime and the kernels in ptx/."""
