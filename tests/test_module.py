"""Modules and kernels: argument checks on any machine; JIT, cache and launches on a GPU."""
from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from conftest import requires_gpu
from nvfp4rt import driver
from nvfp4rt.cache import CubinCache
from nvfp4rt.module import (COMPILERS, Kernel, PtxCompileError, choose_compiler, describe_compiler, link_ptx, load,
                            normalize_jit_options, ptxas_arguments, resolve_compiler, uses_setmaxnreg)
from nvfp4rt.ptxsource import PtxSource, ptx_dir

ROOT = Path(__file__).resolve().parent.parent
ADD_ONE = ptx_dir() / "test_add_one.ptx"

# the line of add_one that the broken variant turns into an unknown instruction type
BROKEN_LINE = next(i for i, line in enumerate(ADD_ONE.read_text().splitlines(), 1)
                   if line.strip().startswith("add.f32"))


def _broken_add_one() -> str:
    lines = ADD_ONE.read_text().splitlines()
    lines[BROKEN_LINE - 1] = lines[BROKEN_LINE - 1].replace("add.f32", "add.f33")
    return "\n".join(lines) + "\n"


@pytest.fixture(autouse=True)
def _default_compiler(monkeypatch):
    """These tests pin the default compiler's semantics (a cached cubin), whatever $NVFP4RT_COMPILER a whole-suite
    run sets for the kernels' tests; the tests of the choice set it themselves."""
    monkeypatch.delenv("NVFP4RT_COMPILER", raising=False)


# ---------------------------------------------------------------------- CPU: options and arguments

def test_jit_options_are_canonical():
    jo = driver.raw.CUjit_option
    a = normalize_jit_options({"max_registers": 128, jo.CU_JIT_OPTIMIZATION_LEVEL: 3, "CU_JIT_FTZ": True})
    assert a == {"CU_JIT_FTZ": 1, "CU_JIT_MAX_REGISTERS": 128, "CU_JIT_OPTIMIZATION_LEVEL": 3}
    assert list(a) == sorted(a)
    assert normalize_jit_options(None) == {} == normalize_jit_options({})


@pytest.mark.parametrize("options, error, match", [
    ([("max_registers", 1)], TypeError, "dict"),
    ({"error_log_buffer": 1}, ValueError, "managed by nvfp4rt"),
    ({"CU_JIT_LOG_VERBOSE": 0}, ValueError, "managed by nvfp4rt"),
    ({"no_such_option": 1}, ValueError, "unsupported JIT option"),
    ({"max_registers": 12.5}, TypeError, "int value"),
    ({"max_registers": True}, TypeError, "int value"),
    ({"max_registers": -1}, ValueError, "out of range"),
    ({"ftz": 2}, ValueError, "out of range"),
    ({"optimization_level": 7}, ValueError, "0..4"),
    ({3: 1}, TypeError, "keys"),
])
def test_bad_jit_options_are_rejected(options, error, match):
    with pytest.raises(error, match=match):
        normalize_jit_options(options)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(source_or_path=123), TypeError, "source"),
    (dict(constants=[("A", 1)]), TypeError, "constants"),
    (dict(options={"bogus": 1}), ValueError, "unsupported JIT option"),
    (dict(cache="yes"), TypeError, "cache"),
    (dict(device="cuda:0"), TypeError, "device"),
    (dict(device=True), TypeError, "device"),
    (dict(target=90), TypeError, "target"),
    (dict(source_or_path=PtxSource(".version 8.7\n"), constants={"A": 1}), ValueError, "already rendered"),
    (dict(compiler="nvcc"), ValueError, r"compiler must be one of \('auto', 'link', 'driver', 'ptxas'\)"),
    (dict(compiler="ptxas", options={"ftz": 1}), ValueError, "have no ptxas form"),
])
def test_load_validates_arguments_before_touching_the_gpu(kwargs, error, match):
    # on a machine without a GPU an unchecked argument would surface as CudaUnavailableError instead
    args = {"source_or_path": str(ADD_ONE), **kwargs}
    src = args.pop("source_or_path")
    with pytest.raises(error, match=match):
        load(src, **args)



# ---------------------------------------------------------------------- CPU: the compiler choice

def test_compiler_comes_from_the_argument_then_the_environment(monkeypatch):
    monkeypatch.delenv("NVFP4RT_COMPILER", raising=False)
    assert resolve_compiler() == "auto" and COMPILERS == ("auto", "link", "driver", "ptxas")
    monkeypatch.setenv("NVFP4RT_COMPILER", "ptxas")
    assert resolve_compiler() == "ptxas" and resolve_compiler("driver") == "driver"
    monkeypatch.setenv("NVFP4RT_COMPILER", "fast")
    with pytest.raises(ValueError, match=r"\$NVFP4RT_COMPILER must be one of .* got 'fast'"):
        resolve_compiler()
    with pytest.raises(ValueError, match="compiler must be one of"):
        resolve_compiler("LINK")


def test_auto_builds_only_setmaxnreg_kernels_as_whole_programs():
    """auto: the linker for PTX without setmaxnreg (a mention in a comment does not count); a whole program for PTX
    with it, by ptxas where it is found and takes the options, else by the driver's JIT; other names pass through."""
    plain = ADD_ONE.read_text() + "\n// setmaxnreg.inc.sync.aligned.u32 232; in a comment\n/* setmaxnreg.dec */\n"
    ws = _warp_specialised(200)
    assert not uses_setmaxnreg(plain) and uses_setmaxnreg(ws)
    assert choose_compiler("auto", plain, ptxas_found=True) == "link"
    assert choose_compiler("auto", ws, ptxas_found=True) == "ptxas"
    assert choose_compiler("auto", ws, ptxas_found=False) == "driver"
    assert choose_compiler("auto", ws, {"CU_JIT_FTZ": 1}, ptxas_found=True) == "driver"  # no ptxas form
    assert choose_compiler("auto", ws, {"CU_JIT_MAX_REGISTERS": 232}, ptxas_found=True) == "ptxas"
    for name in ("link", "driver", "ptxas"):
        assert choose_compiler(name, ws, ptxas_found=False) == name == choose_compiler(name, plain)


def test_describe_compiler_names_the_whole_program_builder(monkeypatch):
    import nvfp4rt.assemble as assemble_mod

    monkeypatch.setattr(assemble_mod, "find_ptxas", lambda: None)
    assert describe_compiler("auto") == ("auto (setmaxnreg kernels by the driver's whole-program JIT (no ptxas "
                                         "found); others by the JIT linker)")
    assert describe_compiler("driver") == "driver"
    monkeypatch.setenv("NVFP4RT_COMPILER", "link")
    assert describe_compiler() == "link"


def test_describe_compiler_names_the_ptxas_release(tmp_path, monkeypatch):
    """With a ptxas found, auto's description names its release line; the cache key keeps the build line."""
    import nvfp4rt.assemble as assemble_mod
    from nvfp4rt.module import _ptxas_release

    fake = tmp_path / "ptxas"
    fake.write_text("#!/bin/sh\necho 'ptxas: NVIDIA (R) Ptx optimizing assembler'\n"
                    "echo 'Cuda compilation tools, release 13.0, V13.0.88'\necho 'Build cuda_13.0.r13.0/compiler.1_0'\n")
    fake.chmod(0o755)
    monkeypatch.setattr(assemble_mod, "find_ptxas", lambda: str(fake))
    assert describe_compiler("auto") == ("auto (setmaxnreg kernels by ptxas (release 13.0, V13.0.88); others by the "
                                         "JIT linker)")
    assert _ptxas_release(str(fake)) == "Build cuda_13.0.r13.0/compiler.1_0"


def test_ptxas_arguments_map_the_jit_options():
    opts = normalize_jit_options({"max_registers": 64, "optimization_level": 4, "generate_line_info": True,
                                  "fma": False, "threads_per_block": 384, "min_cta_per_sm": 1})
    assert ptxas_arguments(opts) == ["--fmad=false", "-lineinfo", "--maxrregcount=64", "--minnctapersm=1", "-O3",
                                     "--maxntid=384"]
    with pytest.raises(ValueError, match=r"\['CU_JIT_FTZ', 'CU_JIT_PREC_DIV'\] have no ptxas form"):
        ptxas_arguments(normalize_jit_options({"ftz": 1, "prec_div": 0}))


def _warp_specialised(live: int) -> str:
    """A 384-thread kernel whose consumers (warpgroups 1, 2) raise their registers to 232 with setmaxnreg and keep
    ``live`` values alive at once; the producers (warpgroup 0) lower theirs to 40."""
    loads = "\n".join(f"    ld.global.volatile.u32 %r{i}, [%p+{4 * i}];" for i in range(live))
    mix = "\n".join(f"    mad.lo.u32 %acc, %acc, %r{i}, %r{(7 * i) % live};" for i in range(live))
    again = "\n".join(f"    xor.b32 %acc, %acc, %r{(13 * i) % live};" for i in range(live))
    return f""".version 8.7
.target sm_90a
.address_size 64
.visible .entry warp_specialised(.param .u64 out)
.maxntid 384, 1, 1
.minnctapersm 1
{{
    .reg .b32 %r<{live}>, %tx, %acc;
    .reg .b64 %p;
    .reg .pred %producer;
    ld.param.u64 %p, [out];
    mov.u32 %tx, %tid.x;
    setp.lt.u32 %producer, %tx, 128;
    @%producer bra PRODUCERS;
    setmaxnreg.inc.sync.aligned.u32 232;
{loads}
    mov.u32 %acc, 0;
{mix}
{again}
    st.global.u32 [%p], %acc;
    ret;
PRODUCERS:
    setmaxnreg.dec.sync.aligned.u32 40;
    ret;
}}
"""


@pytest.mark.skipif(__import__("nvfp4rt.assemble", fromlist=["find_ptxas"]).find_ptxas() is None,
                    reason="ptxas not found")
def test_ptxas_builds_keep_setmaxnreg():
    """The ptxas compiler builds a whole program: 225 live values fit the consumers' 232 registers (no spill), where
    168 (the 384-thread block's average, all the linker JIT gives them) would spill; the cubin names its kernel."""
    from nvfp4rt.assemble import as_ptx_source
    from nvfp4rt.cubin import kernels
    from nvfp4rt.module import _ptxas_build

    cubin, log = _ptxas_build(as_ptx_source(_warp_specialised(225), "sm_90a"), "sm_90a", {})
    assert kernels(cubin) == {"warp_specialised": kernels(cubin)["warp_specialised"]}
    assert "0 bytes spill stores" in log and "C7504" not in log
    without = _warp_specialised(225).replace("    setmaxnreg.inc.sync.aligned.u32 232;\n", "")
    _, log = _ptxas_build(as_ptx_source(without, "sm_90a"), "sm_90a", {})
    assert "0 bytes spill stores" not in log  # the same values at 168 registers spill

def test_link_ptx_wants_a_rendered_source():
    with pytest.raises(TypeError, match="PtxSource"):
        link_ptx(ADD_ONE.read_text())


def test_compile_error_quotes_file_line_and_source():
    src = PtxSource(_broken_add_one().replace("{{PTX_VERSION}}", "8.7").replace("{{TARGET}}", "sm_90a"),
                    "ptx/test_add_one.ptx")
    log = (f"ptxas application ptx input, line {BROKEN_LINE}; error   : Unknown modifier '.f33'\n"
           "ptxas fatal   : Ptx assembly aborted due to errors")
    err = PtxCompileError("cuLinkAddData", driver.CUresult.CUDA_ERROR_INVALID_PTX, src, log)
    assert isinstance(err, driver.CudaError)
    msg = str(err)
    assert "cuLinkAddData failed: CUDA_ERROR_INVALID_PTX" in msg
    assert f"ptx/test_add_one.ptx:{BROKEN_LINE}: error: Unknown modifier '.f33'" in msg
    assert "add.f33" in msg and f"{BROKEN_LINE} |" in msg
    assert [d.line for d in err.diagnostics if d.severity == "error"] == [BROKEN_LINE, None]


def test_compile_error_without_parsable_lines_keeps_the_raw_log():
    err = PtxCompileError("cuLinkComplete", driver.CUresult.CUDA_ERROR_INVALID_PTX, PtxSource("x\n"),
                          "something the JIT said")
    assert "something the JIT said" in str(err)


def _fake_kernel() -> Kernel:
    fake_module = types.SimpleNamespace(device="dev0")
    return Kernel("add_one", "CUfunction", PtxSource(ADD_ONE.read_text()).entries["add_one"], fake_module)


def test_kernel_call_and_prepare_delegate_to_launch(monkeypatch):
    calls = []
    fake = types.ModuleType("nvfp4rt.launch")
    fake.launch = lambda kernel, args, **geo: calls.append(("launch", kernel, args, geo)) or "launched"

    class PreparedLaunch:
        def __init__(self, kernel, args, **geo):
            calls.append(("prepare", kernel, args, geo))

    fake.PreparedLaunch = PreparedLaunch
    monkeypatch.setitem(sys.modules, "nvfp4rt.launch", fake)
    import nvfp4rt
    monkeypatch.setattr(nvfp4rt, "launch", fake, raising=False)
    k = _fake_kernel()
    assert k(1, 2, grid=(4,), block=(128,)) == "launched"
    p = k.prepare(1, 2, grid=4, block=128, shared_mem=16)
    assert isinstance(p, PreparedLaunch)
    assert k(1, 2, grid=1, block=1, programmatic=True) == "launched"
    assert calls[0] == ("launch", k, (1, 2), dict(grid=(4,), block=(128,), cluster=None, shared_mem=0, stream=None,
                                                  non_portable_cluster=False, programmatic=False))
    assert calls[1] == ("prepare", k, (1, 2), dict(grid=4, block=128, shared_mem=16))
    assert calls[2][3]["programmatic"] is True


def test_kernel_knows_its_signature():
    k = _fake_kernel()
    assert [p.name for p in k.signature.params] == ["x", "n"]
    assert "add_one(u64 x, u32 n)" in repr(k)


def test_set_max_dynamic_shared_checks_its_argument():
    k = _fake_kernel()
    with pytest.raises(TypeError, match="int"):
        k.set_max_dynamic_shared(1.5)
    with pytest.raises(ValueError, match=">= 0"):
        k.set_max_dynamic_shared(-1)



def test_set_shared_carveout_checks_its_argument_before_the_driver():
    k = _fake_kernel()  # its function handle is a string: any driver call would fail differently
    with pytest.raises(TypeError, match="int"):
        k.set_shared_carveout(50.0)
    with pytest.raises(TypeError, match="int"):
        k.set_shared_carveout(True)
    for bad in (-2, 101):
        with pytest.raises(ValueError, match="-1 or in 0..100"):
            k.set_shared_carveout(bad)


# ---------------------------------------------------------------------- GPU

def _run_add_one(kernel, values: np.ndarray) -> np.ndarray:
    """Launch add_one through the raw driver on a copy of ``values``; returns the result."""
    n = values.size
    nbytes = values.nbytes
    dev_ptr = driver.call("cuMemAlloc", nbytes)
    try:
        driver.call("cuMemcpyHtoD", dev_ptr, values.ctypes.data, nbytes)
        block = 128
        params = ((int(dev_ptr), n), (ctypes.c_void_p, ctypes.c_uint32))
        driver.call("cuLaunchKernel", kernel.function, (n + block - 1) // block, 1, 1, block, 1, 1, 0,
                    driver.raw.CUstream(0), params, 0)
        driver.call("cuCtxSynchronize")
        out = np.empty_like(values)
        driver.call("cuMemcpyDtoH", out.ctypes.data, dev_ptr, nbytes)
        return out
    finally:
        driver.call("cuMemFree", dev_ptr)


@pytest.mark.gpu
@requires_gpu
def test_jit_load_from_string_and_run(tmp_path):
    mod = load(ADD_ONE.read_text(), cache=CubinCache(tmp_path))
    assert not mod.from_cache and mod.cubin[:4] == b"\x7fELF"
    assert set(mod.entries) == {"add_one"}
    k = mod.kernel("add_one")
    assert mod["add_one"] is k
    x = np.arange(1000, dtype=np.float32) * 0.5 - 7
    np.testing.assert_array_equal(_run_add_one(k, x), x + 1)
    with pytest.raises(KeyError, match="add_one"):
        mod.kernel("nope")
    mod.close()
    assert mod.closed
    with pytest.raises(ValueError, match="closed"):
        mod.kernel("add_one")


@pytest.mark.gpu
@requires_gpu
def test_load_from_path_uses_the_cache_and_reports_attributes(tmp_path):
    cache = CubinCache(tmp_path)
    first = load(ADD_ONE, cache=cache)
    second = load(str(ADD_ONE), cache=cache)
    assert (first.from_cache, second.from_cache) == (False, True)
    assert first.key == second.key and first.cubin == second.cubin
    assert len(cache.entries()) == 1
    k = second.kernel("add_one")
    attrs = k.attributes()
    assert 0 < attrs.registers <= 255
    assert attrs.static_shared_bytes == 0 and attrs.local_bytes == 0
    assert attrs.max_threads_per_block >= 256
    np.testing.assert_array_equal(_run_add_one(k, np.ones(77, np.float32)), np.full(77, 2, np.float32))
    optin = k.device.properties.max_shared_per_block_optin
    k.set_max_dynamic_shared(optin)
    assert k.attributes().max_dynamic_shared_bytes == optin
    with pytest.raises(ValueError, match="exceed"):
        k.set_max_dynamic_shared(optin + 1)


@pytest.mark.gpu
@requires_gpu
def test_shared_carveout_reaches_the_function(tmp_path):
    k = load(ADD_ONE, cache=CubinCache(tmp_path)).kernel("add_one")
    attr = driver.raw.CUfunction_attribute.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
    k.set_shared_carveout(25)
    assert driver.call("cuFuncGetAttribute", attr, k.function) == 25
    k.set_shared_carveout(100)
    assert driver.call("cuFuncGetAttribute", attr, k.function) == 100
    k.set_shared_carveout(-1)
    assert driver.call("cuFuncGetAttribute", attr, k.function) == -1
    np.testing.assert_array_equal(_run_add_one(k, np.arange(300, dtype=np.float32)), np.arange(300) + 1)


@pytest.mark.gpu
@requires_gpu
def test_a_smaller_dynamic_shared_request_keeps_the_larger_allowance(tmp_path):
    """Plans of different sizes share one cached kernel: the second plan's smaller request must not take away
    the first plan's allowance (its launches then failed with CUDA_ERROR_INVALID_VALUE)."""
    k = load(ADD_ONE, cache=CubinCache(tmp_path)).kernel("add_one")
    big = k.device.properties.max_shared_per_block_optin
    k.set_max_dynamic_shared(big)
    k.set_max_dynamic_shared(64 * 1024)
    assert k.attributes().max_dynamic_shared_bytes == big
    import nvfp4rt

    out = nvfp4rt.from_numpy(np.zeros(256, np.float32))
    k(out.ptr, 256, grid=2, block=128, shared_mem=big)  # a launch that needs the first allowance
    k.device.synchronize()
    np.testing.assert_array_equal(out.numpy(), np.ones(256, np.float32))


@pytest.mark.gpu
@requires_gpu
def test_jit_options_change_the_cache_key(tmp_path):
    cache = CubinCache(tmp_path)
    a = load(ADD_ONE, cache=cache)
    b = load(ADD_ONE, cache=cache, options={"max_registers": 32, "generate_line_info": True})
    assert a.key != b.key and not b.from_cache
    assert len(cache.entries()) == 2


@pytest.mark.gpu
@requires_gpu
def test_broken_ptx_raises_compile_error_with_the_line(tmp_path):
    with pytest.raises(PtxCompileError) as info:
        load(_broken_add_one(), cache=CubinCache(tmp_path))
    msg = str(info.value)
    assert f"<string>:{BROKEN_LINE}: error" in msg, msg
    assert "add.f33" in msg
    assert CubinCache(tmp_path).entries() == [], "a failed build must not leave an entry"


_TIMING_SCRIPT = """
import json, sys
from nvfp4rt.cache import CubinCache
from nvfp4rt.module import load
m = load(sys.argv[1], cache=CubinCache(sys.argv[2]))
print(json.dumps({"from_cache": m.from_cache, "seconds": m.load_seconds}))
"""


@pytest.mark.gpu
@requires_gpu
def test_cold_jit_vs_warm_cache_load_time(tmp_path):
    # each load runs in a fresh process; the driver's own JIT cache is disabled so "cold" really compiles
    env = {**os.environ, "CUDA_CACHE_DISABLE": "1", "PYTHONPATH": str(ROOT)}
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", _TIMING_SCRIPT, str(ADD_ONE), str(tmp_path)],
                             capture_output=True, text=True, env=env, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    cold, warm = runs
    print(f"\nadd_one load: cold (JIT) {cold['seconds'] * 1e3:.2f} ms, warm (cache hit) {warm['seconds'] * 1e3:.2f} ms")
    assert (cold["from_cache"], warm["from_cache"]) == (False, True)
    assert warm["seconds"] < cold["seconds"]


# ---------------------------------------------------------------------- GPU: the three compilers

@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("compiler", COMPILERS)
def test_every_compiler_loads_a_working_kernel(tmp_path, compiler):
    from nvfp4rt.assemble import find_ptxas

    if compiler == "ptxas" and find_ptxas() is None:
        pytest.skip("ptxas not found")
    cache = CubinCache(tmp_path)
    mod = load(ADD_ONE, cache=cache, compiler=compiler)
    assert mod.compiler == (compiler if compiler != "auto" else "link")  # add_one uses no setmaxnreg
    x = np.arange(300, dtype=np.float32) - 150
    np.testing.assert_array_equal(_run_add_one(mod.kernel("add_one"), x), x + 1)
    if compiler == "driver":  # the driver hands back no cubin: nothing enters nvfp4rt's cache
        assert (mod.cubin, mod.key, mod.from_cache) == (b"", None, False) and cache.entries() == []
    else:
        again = load(ADD_ONE, cache=cache, compiler=compiler)
        assert mod.cubin[:4] == b"\x7fELF" and (mod.from_cache, again.from_cache) == (False, True)
        assert again.key == mod.key


@pytest.mark.gpu
@requires_gpu
def test_the_linker_ignores_setmaxnreg_and_the_whole_program_paths_keep_it(tmp_path):
    """Session 42's finding, kept true: the JIT linker says C7504 (setmaxnreg ignored) for a warp-specialised kernel,
    the driver's whole-program JIT does not; a ptxas build's cache key differs from the linker's."""
    from nvfp4rt.assemble import find_ptxas

    text = _warp_specialised(200)
    linked = load(text, cache=None, compiler="link")
    whole = load(text, cache=None, compiler="driver")
    assert "C7504" in linked.jit_log and "C7504" not in whole.jit_log
    if find_ptxas() is not None:
        cache = CubinCache(tmp_path)
        keys = {load(text, cache=cache, compiler=c).key for c in ("link", "ptxas")}
        assert len(keys) == 2 and len(cache.entries()) == 2


@pytest.mark.gpu
@requires_gpu
def test_auto_builds_a_setmaxnreg_kernel_as_a_whole_program(tmp_path):
    """The default compiler keeps setmaxnreg: no C7504 in the log, built by ptxas (cached) or the driver's JIT."""
    from nvfp4rt.assemble import find_ptxas

    mod = load(_warp_specialised(200), cache=CubinCache(tmp_path))
    assert mod.compiler == ("ptxas" if find_ptxas() is not None else "driver")
    assert "C7504" not in mod.jit_log
    assert (mod.key is not None) == (mod.compiler == "ptxas")


@pytest.mark.gpu
@requires_gpu
def test_auto_falls_back_to_the_driver_when_ptxas_fails(tmp_path, monkeypatch):
    """Where ptxas cannot build (here: a stand-in that fails like an older toolkit would), auto warns, names the
    file, and the driver's whole-program JIT builds the kernel; an explicit compiler="ptxas" raises instead."""
    import nvfp4rt.module as module_mod
    from nvfp4rt.assemble import PtxAssemblyError

    def failing_ptxas(source, arch, options):
        raise PtxAssemblyError(source.origin, arch, [], "ptxas fatal   : Unsupported .version 9.9")

    monkeypatch.setattr(module_mod, "_ptxas_build", failing_ptxas)
    monkeypatch.setattr(module_mod, "choose_compiler",
                        lambda c, text, opts=None: "ptxas" if c == "auto" else c)  # as if ptxas were found
    with pytest.warns(RuntimeWarning, match="ptxas could not build .*driver's whole-program JIT"):
        mod = load(_warp_specialised(200), cache=CubinCache(tmp_path))
    assert mod.compiler == "driver" and "C7504" not in mod.jit_log
    with pytest.raises(PtxAssemblyError, match="Unsupported .version"):
        load(_warp_specialised(200), cache=CubinCache(tmp_path), compiler="ptxas")
