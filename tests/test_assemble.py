"""Offline PTX assembly with ptxas: declared targets, resource parsing, error reports."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nvfp4rt.assemble import (
    PtxAssemblyError,
    as_ptx_source,
    assemble,
    declared_targets,
    declared_variants,
    find_ptxas,
    parse_diagnostics,
    parse_ptxas_verbose,
)
from nvfp4rt.ptxsource import PtxSource, ptx_dir

ROOT = Path(__file__).resolve().parent.parent
PTXAS = find_ptxas()
requires_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)")

# A real `ptxas -arch=sm_90a -v` log (CUDA 13.0) for two entries and a called .func.
REAL_VERBOSE_LOG = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'gemv_kernel' for 'sm_90a'
ptxas info    : Function properties for gemv_kernel
    48 bytes stack frame, 12 bytes spill stores, 20 bytes spill loads
ptxas info    : Used 168 registers, used 1 barriers, 33792 bytes smem, 400 bytes cmem[0], 8 bytes cmem[2]
ptxas info    : Compile time = 5.123 ms
ptxas info    : Function properties for helper
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'add_one' for 'sm_90a'
ptxas info    : Function properties for add_one
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
ptxas info    : Compile time = 2.542 ms
"""

GOOD = """\
.version {{PTX_VERSION}}
.target {{TARGET}}
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    st.global.u32 [%rd1], %r1;
    ret;
}
"""

# line 9 holds an unknown instruction, line 10 a bad type
BROKEN = GOOD.replace("    mov.u32 %r1, %tid.x;\n", "    frobnicate.u32 %r1, %tid.x;\n    add.q32 %r2, %r1, 1;\n")


def _ptx_files():
    files = sorted(ptx_dir().glob("*.ptx"))
    return files


def test_verbose_parser_on_real_ptxas_output():
    funcs = parse_ptxas_verbose(REAL_VERBOSE_LOG)
    assert list(funcs) == ["gemv_kernel", "helper", "add_one"]
    g = funcs["gemv_kernel"]
    assert (g.is_entry, g.registers, g.barriers, g.stack_frame, g.spill_stores, g.spill_loads,
            g.shared_bytes, g.constant_banks, g.constant_bytes) == (True, 168, 1, 48, 12, 20, 33792, {0: 400, 2: 8}, 408)
    assert g.spills
    h = funcs["helper"]
    assert (h.is_entry, h.stack_frame, h.registers) == (False, 16, None)
    a = funcs["add_one"]
    assert (a.registers, a.shared_bytes, a.spills, a.constant_bytes) == (8, 0, False, 0)


def test_diagnostic_parser_maps_lines_to_source():
    src = PtxSource("line one\nline two\nline three\n", "k.ptx")
    log = ("ptxas application ptx input, line 2; error   : Unknown symbol 'x'\n"
           "ptxas /tmp/a.ptx, line 3; warning : something odd\n"
           "ptxas fatal   : Unexpected non-ASCII character encountered on line 1\n"
           "ptxas fatal   : Ptx assembly aborted due to errors\n")
    d = parse_diagnostics(log, src)
    assert [(x.severity, x.line, x.source_line) for x in d] == [
        ("error", 2, "line two"), ("warning", 3, "line three"), ("error", 1, "line one"), ("error", None, "")]
    assert d[0].message == "Unknown symbol 'x'"


def test_declared_targets_from_header_and_concrete_target(tmp_path):
    templ = tmp_path / "t.ptx"
    templ.write_text("// nvfp4rt: targets=sm_90a,sm_80 constants=TILE=64,NAME=abc ptx_version=8.0\n"
                     "// nvfp4rt: targets=sm_90a constants=TILE=128\n.version {{PTX_VERSION}}\n.target {{TARGET}}\n")
    assert declared_targets(templ) == ("sm_90a", "sm_80")
    v = declared_variants(templ)
    assert [(x.target, x.constants, x.ptx_version) for x in v] == [
        ("sm_90a", {"TILE": "64", "NAME": "abc"}, "8.0"), ("sm_80", {"TILE": "64", "NAME": "abc"}, "8.0"),
        ("sm_90a", {"TILE": "128"}, None)]
    concrete = tmp_path / "c.ptx"
    concrete.write_text(".version 8.7\n.target sm_90a\n")
    assert declared_targets(concrete) == ("sm_90a",)


def test_declared_targets_rejects_undeclared_or_contradictory_files(tmp_path):
    templ = tmp_path / "t.ptx"
    templ.write_text(".version {{PTX_VERSION}}\n.target {{TARGET}}\n")
    with pytest.raises(ValueError, match="nvfp4rt: targets="):
        declared_targets(templ)
    bad = tmp_path / "b.ptx"
    bad.write_text("// nvfp4rt: targets=sm_80\n.target sm_90a\n")
    with pytest.raises(ValueError, match="disagrees"):
        declared_targets(bad)
    junk = tmp_path / "j.ptx"
    junk.write_text("// nvfp4rt: targets=sm_90a tiles=3\n.target {{TARGET}}\n")
    with pytest.raises(ValueError, match="tiles=3"):
        declared_targets(junk)


def test_source_coercion_validates_arguments(tmp_path):
    with pytest.raises(ValueError, match="target"):
        as_ptx_source(GOOD, "hopper")
    with pytest.raises(TypeError, match="constants"):
        as_ptx_source(GOOD, "sm_90a", constants=[("A", 1)])
    with pytest.raises(TypeError, match="source"):
        as_ptx_source(42, "sm_90a")
    with pytest.raises(FileNotFoundError):
        as_ptx_source("no_such_file.ptx", "sm_90a")
    with pytest.raises(ValueError, match="already rendered"):
        as_ptx_source(PtxSource("x\n"), "sm_90a", constants={"A": 1})
    p = tmp_path / "g.ptx"
    p.write_text(GOOD)
    for given in (p, str(p)):
        s = as_ptx_source(given, "sm_90a")
        assert s.origin == str(p) and ".target sm_90a" in s.text
    assert ".target sm_80" in as_ptx_source(GOOD, "sm_80").text


@requires_ptxas
@pytest.mark.parametrize("path", _ptx_files(), ids=lambda p: p.name)
def test_every_ptx_file_assembles_for_its_declared_targets(path):
    variants = declared_variants(path)
    assert variants, f"{path.name} declares no targets"
    for v in variants:
        report = assemble(path, v.target, v.constants or None, ptx_version=v.ptx_version)
        assert report.cubin[:4] == b"\x7fELF", f"{path.name} for {v.target}: not an ELF cubin"
        assert report.entries, f"{path.name} for {v.target}: no entry functions reported"


def test_ptx_dir_holds_the_test_kernel():
    assert (ptx_dir() / "test_add_one.ptx").is_file()


@requires_ptxas
def test_assemble_reports_resources_of_a_string():
    report = assemble(GOOD, "sm_90a")
    assert list(report.entries) == ["k"]
    assert report.entries["k"].registers > 0
    assert report.cubin[:4] == b"\x7fELF"
    assert "-arch=sm_90a" in report.command and "-v" in report.command
    assert "k" in report.table()


@requires_ptxas
def test_broken_ptx_reports_line_numbers_and_source_lines():
    with pytest.raises(PtxAssemblyError) as info:
        assemble(BROKEN, "sm_90a")
    err = info.value
    lines = {d.line for d in err.diagnostics if d.severity == "error" and d.line}
    assert lines == {9, 10}, err.diagnostics
    msg = str(err)
    assert "<string>:9: error" in msg and "frobnicate.u32 %r1, %tid.x;" in msg
    assert "<string>:10: error" in msg and "add.q32 %r2, %r1, 1;" in msg


@requires_ptxas
def test_broken_file_error_names_the_file(tmp_path):
    p = tmp_path / "broken_kernel.ptx"
    p.write_text(BROKEN)
    with pytest.raises(PtxAssemblyError, match=r"broken_kernel\.ptx:9: error"):
        assemble(p, "sm_90a")


@requires_ptxas
def test_report_tool_prints_table_and_fails_on_errors(tmp_path):
    tool = ROOT / "tools" / "ptxas_report.py"
    ok = subprocess.run([sys.executable, str(tool), str(ptx_dir() / "test_add_one.ptx")],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "add_one" in ok.stdout and "sm_90a" in ok.stdout and "sm_80" in ok.stdout
    p = tmp_path / "bad.ptx"
    p.write_text(BROKEN)
    bad = subprocess.run([sys.executable, str(tool), str(p), "--target", "sm_90a"], capture_output=True, text=True)
    assert bad.returncode != 0
    assert "bad.ptx:9" in bad.stderr


@requires_ptxas
def test_report_tool_shows_the_linker_build_of_a_warp_specialised_kernel(capsys):
    """--linked assembles as the driver's JIT linker builds (ptxas -c): a relocatable unit that ignores setmaxnreg
    (C7504), so the grouped cluster kernel's 232-register consumers get 168 and its wgmmas are serialised; the whole
    program keeps setmaxnreg (docs/runtime.md, "Which compiler builds a module")."""
    from nvfp4rt.assemble import main

    kernel = str(ptx_dir() / "grouped_gemm_nvfp4_wgmma_cluster.ptx")
    assert main([kernel, "--linked"]) == 0
    linked = capsys.readouterr().out
    assert "(as the JIT linker builds it: ptxas -c)" in linked and "(C7504)" in linked
    assert main([kernel]) == 0
    whole = capsys.readouterr().out
    assert "C7504" not in whole and "serialized" not in whole
