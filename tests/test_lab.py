"""Tests of ``nvfp4rt lab``.

CPU: argument errors (exit 2 with a clear message), assembly errors quoted with
their line numbers, the gemv ABI check, custom specs missing pieces, the
whole run -> table -> JSON -> exit-code pipeline and the watch loop through a
fake op whose "device" methods are plain Python; the gemm ABI matching (mma or
wgmma by the parameter list) and its mismatch report, gemm shapes, and the
dual_gemm skeleton's discovery of a plan with ``kernel=``.  GPU: deliberately
wrong GEMV and GEMM kernels are caught, the built-in kernels given as FILE
report timings, the custom example runs.
"""
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from nvfp4rt import cli
from nvfp4rt.assemble import find_ptxas
from nvfp4rt.bench import Timing
from nvfp4rt.lab import core
from nvfp4rt.lab.core import Bound, LabOp, Options, Session, register_op
from nvfp4rt.lab.watch import watch
from nvfp4rt.ptxsource import parse_entries, ptx_dir
from nvfp4rt.reference import check

from conftest import requires_gpu

ROOT = Path(__file__).resolve().parent.parent
GEMV_PTX = ptx_dir() / "gemv_nvfp4.ptx"
GEMM_MMA_PTX = ptx_dir() / "gemm_nvfp4_mma.ptx"
GEMM_WGMMA_PTX = ptx_dir() / "gemm_nvfp4_wgmma.ptx"
EXAMPLE_PTX = ROOT / "docs" / "examples" / "scaled_add.ptx"
EXAMPLE_SPEC = ROOT / "docs" / "examples" / "scaled_add.py"
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas (CUDA toolkit) on PATH")


def lab(argv, capsys):
    code = cli.main(["lab", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


# ----------------------------------------------------------------------------- bad arguments

def test_unknown_op_is_a_usage_error(capsys):
    code, _, err = lab(["frob", str(GEMV_PTX)], capsys)
    assert code == 2
    assert "unknown op 'frob'" in err and "gemv" in err and "custom" in err


def test_missing_file_is_a_usage_error(tmp_path, capsys):
    code, _, err = lab(["gemv", str(tmp_path / "nope.ptx")], capsys)
    assert code == 2 and "nope.ptx" in err and "not found" in err


@pytest.mark.parametrize("spec, words", [("1,2", "3 positive integers m,k,l"), ("256,48,1", "k divisible by 32"),
                                         ("0,1024,1", "positive"), ("a,b,c", "m,k,l"),
                                         ("huge", "preset 'huge'")])
def test_bad_shape_or_preset_is_a_usage_error(spec, words, capsys):
    code, _, err = lab(["gemv", str(GEMV_PTX), "--shapes", spec], capsys)
    assert code == 2 and words in err


@pytest.mark.parametrize("argv", [["gemv"], ["gemv", "x.ptx", "--iters", "0"], ["gemv", "x.ptx", "-D", "1x"],
                                  ["gemv", "x.ptx", "--data", "odd"]])
def test_argparse_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["lab", *argv])
    assert exc.value.code == 2


def test_dual_gemm_without_a_plan_fails_clearly(capsys):
    from nvfp4rt.lab.dual_gemm import find_dual_gemm_plans

    if find_dual_gemm_plans()[0]:
        pytest.skip("a dual GEMM plan with kernel= exists: lab dual_gemm is wired")
    code, _, err = lab(["dual_gemm", str(GEMM_MMA_PTX)], capsys)
    assert code == 1
    assert "dual_gemm" in err and ("no built-in dual_gemm kernel exists yet" in err
                                   or "no dual GEMM plan can launch your kernel yet" in err)


def test_custom_needs_a_spec(capsys):
    code, _, err = lab(["custom", str(EXAMPLE_PTX)], capsys)
    assert code == 2 and "--spec" in err


def test_custom_spec_not_found(tmp_path, capsys):
    code, _, err = lab(["custom", str(EXAMPLE_PTX), "--spec", str(tmp_path / "none.py")], capsys)
    assert code == 2 and "none.py" in err and "not found" in err


def _spec_without(tmp_path, name):
    text = EXAMPLE_SPEC.read_text()
    if name in ("SHAPE_KEYS", "PRESETS", "ENTRY"):
        text = re.sub(rf"^{name} = .*?(?=^[A-Za-z_])", "", text, flags=re.M | re.S)
    else:
        text = re.sub(rf"^def {name}\(.*?(?=^[A-Za-z_])", "", text, flags=re.M | re.S)
    assert re.search(rf"^(def )?{name}\b", text, re.M) is None
    p = tmp_path / f"spec_without_{name}.py"
    p.write_text(text)
    return p


@pytest.mark.parametrize("piece", ["SHAPE_KEYS", "PRESETS", "inputs", "outputs", "launch", "reference"])
def test_custom_spec_missing_pieces_are_named(piece, tmp_path, capsys):
    spec = _spec_without(tmp_path, piece)
    code, _, err = lab(["custom", str(EXAMPLE_PTX), "--spec", str(spec)], capsys)
    assert code == 2
    assert "lacks" in err and piece in err


def test_custom_spec_with_a_syntax_error(tmp_path, capsys):
    spec = tmp_path / "bad.py"
    spec.write_text("SHAPE_KEYS = (\n")
    code, _, err = lab(["custom", str(EXAMPLE_PTX), "--spec", str(spec)], capsys)
    assert code == 2 and "failed to import" in err and "SyntaxError" in err


def test_custom_spec_preset_shapes_are_checked(tmp_path, capsys):
    spec = tmp_path / "s.py"
    spec.write_text(EXAMPLE_SPEC.read_text().replace('"small": [(4096,)]', '"small": [(4096, 2)]'))
    code, _, err = lab(["custom", str(EXAMPLE_PTX), "--spec", str(spec)], capsys)
    assert code == 2 and "preset 'small'" in err


# ----------------------------------------------------------------------------- assembly (CPU, ptxas)

def _broken_copy(tmp_path):
    """The built-in GEMV with one instruction misspelt; returns (path, line number of the bad line)."""
    lines = GEMV_PTX.read_text().splitlines()
    for i, line in enumerate(lines):
        if re.match(r"\s+ld\.param\.u32\s", line):
            lines[i] = line.replace("ld.param.u32", "ld.parm.u32", 1)
            break
    else:
        pytest.fail("no ld.param.u32 in gemv_nvfp4.ptx to break")
    p = tmp_path / "broken.ptx"
    p.write_text("\n".join(lines) + "\n")
    return p, i + 1


@needs_ptxas
def test_assembly_errors_are_reported_with_line_numbers(tmp_path, capsys):
    path, line = _broken_copy(tmp_path)
    code, out, err = lab(["gemv", str(path)], capsys)
    assert code == 1
    assert f"broken.ptx:{line}: error" in out
    assert re.search(rf"^\s+{line} \|\s+ld\.parm\.u32", out, re.M), out


@needs_ptxas
def test_assembly_error_json(tmp_path, capsys):
    path, line = _broken_copy(tmp_path)
    out_json = tmp_path / "r.json"
    code, _, _ = lab(["gemv", str(path), "--json", str(out_json)], capsys)
    assert code == 1
    doc = json.loads(out_json.read_text())
    assert doc["status"] == "assemble_error" and doc["ok"] is False
    err = doc["assembly"]["errors"][0]
    assert err["line"] == line and "ld.parm.u32" in err["source"]


@needs_ptxas
def test_assemble_only_lists_resources_per_entry_and_exits_0(capsys):
    code, out, _ = lab(["gemv", str(GEMV_PTX), "--assemble-only"], capsys)
    assert code == 0
    assert re.search(r"^nvfp4_gemv\s+\d+\s+0\s+0\s", out, re.M), out
    assert "PASS" in out


@needs_ptxas
def test_json_to_stdout_is_one_document(capsys):
    code, out, _ = lab(["custom", str(EXAMPLE_PTX), "--spec", str(EXAMPLE_SPEC), "--assemble-only", "--json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["op"] == "custom" and doc["entry"] == "scaled_add" and doc["status"] == "assembled"
    (entry,) = doc["assembly"]["entries"]
    assert entry["name"] == "scaled_add" and entry["spill_stores"] == 0 and entry["registers"] > 0


def test_template_errors_name_the_line(tmp_path, capsys):
    p = tmp_path / "t.ptx"
    p.write_text(EXAMPLE_PTX.read_text().replace("0f3F800000", "{{MISSING}}")
                 .replace("fma.rn.f32          %o0, %alpha", "fma.rn.f32          %o0, {{MISSING}}"))
    code, out, _ = lab(["custom", str(p), "--spec", str(EXAMPLE_SPEC), "--assemble-only"], capsys)
    assert code == 1 and "MISSING" in out and "line" in out


def test_gemv_abi_mismatch_is_reported_before_any_launch(tmp_path, capsys):
    text = GEMV_PTX.read_text()
    p = tmp_path / "renamed.ptx"
    n = len(parse_entries(text)["nvfp4_gemv"].params)
    sig_end = text.index(")", text.index(".entry nvfp4_gemv("))
    p.write_text(text[:sig_end] + ",\n    .param .u32 extra_param\n" + text[sig_end:])
    code, out, _ = lab(["gemv", str(p), "--assemble-only"], capsys)
    assert code == 1
    assert "abi_error" in out and f"parameter {n}: unexpected .u32 extra_param" in out


def test_wrong_entry_name_lists_the_entries(capsys):
    code, out, _ = lab(["gemv", str(GEMV_PTX), "--entry", "nope", "--assemble-only"], capsys)
    assert code == 1 and "no .entry 'nope'" in out and "nvfp4_gemv" in out


def test_builtin_abi_matches_the_plan_arguments():
    """The gemv adapter launches through GemvPlan._args: its length must be the .entry's parameter count."""
    from nvfp4rt.ops import gemv as ops_gemv

    sig = parse_entries(GEMV_PTX.read_text())["nvfp4_gemv"]
    class AnyField:  # stands for the layout and geometry records, whatever fields they grow
        def __getattr__(self, name):
            return 0

    plan = object.__new__(ops_gemv.GemvPlan)
    plan.m, plan.k, plan.l, plan.alpha = 256, 1024, 2, 1.0
    plan.layout = plan.geometry = AnyField()
    assert len(plan._args(*[None] * 5)) == len(sig.params)


# ----------------------------------------------------------------------------- gemm (CPU)

def _signature(path, entry=None):
    from nvfp4rt.lab.abi import BuiltinAbi, builtin_signature

    entries = parse_entries(Path(path).read_text()) if entry is None else None
    return builtin_signature(BuiltinAbi("x", Path(path), entry or next(iter(entries))))


def test_gemm_abis_are_the_two_builtin_kernels():
    from nvfp4rt.lab.gemm import gemm_abis

    abis = {a.variant: a for a in gemm_abis()}
    assert abis["mma"].path == GEMM_MMA_PTX and abis["mma"].entry == "nvfp4_gemm_mma"
    if "wgmma" in abis:
        assert abis["wgmma"].path == GEMM_WGMMA_PTX and abis["wgmma"].entry == "nvfp4_gemm_wgmma"


@pytest.mark.parametrize("path, variant", [(GEMM_MMA_PTX, "mma"), (GEMM_WGMMA_PTX, "wgmma")])
def test_gemm_builtin_kernels_match_their_own_abi(path, variant):
    from nvfp4rt.lab.abi import match_abi
    from nvfp4rt.lab.gemm import gemm_abis

    if variant not in {a.variant for a in gemm_abis()}:
        pytest.skip(f"no {variant} GEMM in this checkout")
    assert match_abi("gemm", _signature(path), gemm_abis()).variant == variant


def _gemm_with_param_renamed(tmp_path, old="splits", new="nsplits"):
    text = GEMM_MMA_PTX.read_text()
    decl = f".param .u32 {old},"
    assert text.count(decl) == 1, f"gemm_nvfp4_mma.ptx no longer declares {decl}: update this test"
    p = tmp_path / "gemm_renamed.ptx"
    p.write_text(text.replace(decl, f".param .u32 {new},").replace(f"[{old}]", f"[{new}]"))
    return p


def test_gemm_abi_mismatch_names_the_closest_abi_first(tmp_path, capsys):
    p = _gemm_with_param_renamed(tmp_path)
    n = [q.name for q in parse_entries(GEMM_MMA_PTX.read_text())["nvfp4_gemm_mma"].params].index("splits")
    code, out, _ = lab(["gemm", str(p), "--assemble-only", "--json"], capsys)
    assert code == 1
    doc = json.loads(out)
    assert doc["status"] == "abi_error" and doc["abi"] is None
    err = doc["error"]
    assert "follows none of the gemm kernel ABIs" in err
    assert f"parameter {n}: expected .u32 splits, got .u32 nsplits" in err
    assert "against mma" in err
    if "against wgmma" in err:
        assert err.index("against mma") < err.index("against wgmma")


def test_gemv_kernel_under_gemm_is_an_abi_error(capsys):
    code, out, _ = lab(["gemm", str(GEMV_PTX), "--assemble-only"], capsys)
    assert code == 1 and "abi_error" in out and "against mma" in out


@needs_ptxas
@pytest.mark.parametrize("path, variant", [(GEMM_MMA_PTX, "mma"), (GEMM_WGMMA_PTX, "wgmma")])
def test_gemm_assemble_only_reports_the_matched_abi(path, variant, capsys):
    from nvfp4rt.lab.gemm import gemm_abis

    if variant not in {a.variant for a in gemm_abis()}:
        pytest.skip(f"no {variant} GEMM in this checkout")
    code, out, _ = lab(["gemm", str(path), "--assemble-only", "--json"], capsys)
    doc = json.loads(out)
    assert code == 0, doc["error"]
    assert doc["status"] == "assembled" and doc["abi"].startswith(f"{variant} (")
    (entry,) = doc["assembly"]["entries"]
    assert entry["spill_stores"] == 0 and entry["registers"] > 0


@needs_ptxas
@pytest.mark.parametrize("compiler, linked", [(None, True), ("link", True), ("ptxas", False), ("driver", False)])
def test_assemble_only_builds_as_the_chosen_compiler_would(compiler, linked, capsys, monkeypatch):
    """The offline report assembles what runs: a relocatable unit (ptxas -c) where the JIT linker builds the kernel
    (auto's choice for PTX without setmaxnreg, as here), else a whole program."""
    monkeypatch.delenv("NVFP4RT_COMPILER", raising=False)
    flag = ["--compiler", compiler] if compiler else []
    code, out, _ = lab(["gemm", str(GEMM_WGMMA_PTX), "--assemble-only", "--json", *flag], capsys)
    doc = json.loads(out)
    assert code == 0, doc["error"]
    assert doc["assembly"]["linked"] is linked and doc["assembly"]["entries"][0]["registers"] > 0
    code, out, _ = lab(["gemm", str(GEMM_WGMMA_PTX), "--assemble-only", *flag], capsys)
    assert code == 0 and ("ptxas -c (a relocatable unit" in out) is linked


def test_a_bad_compiler_in_the_environment_is_a_usage_error(capsys, monkeypatch):
    monkeypatch.setenv("NVFP4RT_COMPILER", "nvcc")
    code, _, err = lab(["gemm", str(GEMM_WGMMA_PTX), "--assemble-only"], capsys)
    assert code == 2 and "NVFP4RT_COMPILER must be one of" in err


@pytest.mark.parametrize("spec, words", [("128,256,100", "shape '128,256,100' for gemm: the GEMM ABIs need k divisible by 64"), ("1,2", "4 positive integers m,n,k,l"),
                                         ("128,0,256,1", "positive"), ("huge", "preset 'huge'"),
                                         ("1,2,3,4,5", "m,n,k,l")])
def test_gemm_bad_shape_is_a_usage_error(spec, words, capsys):
    code, _, err = lab(["gemm", str(GEMM_MMA_PTX), "--shapes", spec], capsys)
    assert code == 2 and words in err, err


def test_gemm_shapes_presets_and_the_short_form():
    from nvfp4rt.data import PRESETS
    from nvfp4rt.lab.gemm import GemmLab

    op = GemmLab(Options(op="gemm", file=GEMM_MMA_PTX))
    assert op.parse_shapes(None) == [dict(m=m, n=n, k=k, l=1) for m, n, k in PRESETS["gemm"]]
    assert op.parse_shapes(["128,256,512", "64,128,256,3"]) == [dict(m=128, n=256, k=512, l=1),
                                                                 dict(m=64, n=128, k=256, l=3)]
    assert all(s["k"] % 64 == 0 for s in op.parse_shapes(["small"]))
    s = dict(m=128, n=7168, k=16384, l=1)
    assert op.flops(s) == 2 * 128 * 7168 * 16384
    assert op.bytes(s) == (128 + 7168) * (16384 // 2 + 16384 // 16) + 2 * 128 * 7168
    assert op.compute_bound  # the floor is the larger of the bytes and the fp16 tensor-core time


def test_gemm_mma_plan_arguments_match_the_entry():
    """The mma ABI is launched through GemmMmaPlan._args: one value per .entry parameter."""
    from nvfp4rt.ops import gemm as ops_gemm

    sig = parse_entries(GEMM_MMA_PTX.read_text())["nvfp4_gemm_mma"]
    plan = object.__new__(ops_gemm.GemmMmaPlan)
    plan.m, plan.n, plan.k, plan.l, plan.alpha = 256, 512, 1024, 1, 1.0
    plan.layout = ops_gemm.GemmLayout.contiguous(256, 512, 1024, 1)
    plan.geometry = ops_gemm.mma_geometry(256, 512, 1024, 1, 132)
    assert len(plan._args(*[None] * 7)) == len(sig.params)
    import inspect

    assert "kernel" in inspect.signature(ops_gemm.GemmMmaPlan).parameters


def test_swap_kernel_replaces_the_kernel_before_the_first_launch():
    from types import SimpleNamespace

    from nvfp4rt.lab.gemm import swap_kernel

    allowed = []
    dev = SimpleNamespace(ordinal=0)
    kernel = SimpleNamespace(device=dev, set_max_dynamic_shared=allowed.append)
    plan = SimpleNamespace(_launch=None, device=dev, kernel="builtin", geometry=SimpleNamespace(shared_mem=200000))
    swap_kernel(plan, kernel)
    assert plan.kernel is kernel and allowed == [200000]
    plan._launch = object()
    with pytest.raises(RuntimeError, match="launched before"):
        swap_kernel(plan, kernel)
    with pytest.raises(ValueError, match="device 1"):
        swap_kernel(SimpleNamespace(_launch=None, device=dev, geometry=plan.geometry),
                    SimpleNamespace(device=SimpleNamespace(ordinal=1)))


def test_gemm_template_constants_become_plan_options():
    from nvfp4rt.lab.core import LabError
    from nvfp4rt.lab.gemm import GemmLab

    class Plan:
        def __init__(self, m, n, k, l=1, layout=None, *, device=None, normal_operands=True, a_decoder=False):
            pass

    consts = {"NORMAL_OPERANDS": "0", "A_DECODER": "1", "A_BUFS": "3", "OTHER": "x"}
    op = GemmLab(Options(op="gemm", file=GEMM_MMA_PTX, constants=consts))
    assert op.constant_options(Plan) == {"normal_operands": False, "a_decoder": True}  # no a_bufs: not taken
    assert GemmLab(Options(op="gemm", file=GEMM_MMA_PTX)).constant_options(Plan) == {}
    with pytest.raises(LabError, match="A_DECODER"):
        GemmLab(Options(op="gemm", file=GEMM_MMA_PTX, constants={"A_DECODER": "yes"})).constant_options(Plan)


def test_dual_gemm_discovery_needs_a_plan_with_kernel(tmp_path):
    import types

    from nvfp4rt.lab.dual_gemm import find_dual_gemm_plans, missing_reason

    def module(name, plan_init, with_file=True):
        mod = types.ModuleType(f"nvfp4rt.ops.{name}")
        cls = type("DualGemmWgmmaPlan", (), {"__init__": plan_init, "__module__": mod.__name__})
        mod.DualGemmWgmmaPlan = cls
        if with_file:
            mod._KERNEL_FILE, mod._ENTRY = "dual_gemm_nvfp4_wgmma.ptx", "nvfp4_dual_gemm_silu_wgmma"
        return name, mod

    def with_kernel(self, m, n, k, l=1, layout=None, *, device=None, kernel=None):
        pass

    def without_kernel(self, m, n, k, l=1, layout=None, *, device=None):
        pass

    found, skipped = find_dual_gemm_plans([module("dual_gemm_wgmma", with_kernel)])
    ((variant, cls, abi, _),) = found
    assert variant == "wgmma" and abi.entry == "nvfp4_dual_gemm_silu_wgmma" and skipped == []
    found, skipped = find_dual_gemm_plans([module("dual_gemm_wgmma", without_kernel)])
    assert found == [] and "takes no kernel=" in skipped[0]
    assert "kernel=" in missing_reason(skipped)
    found, skipped = find_dual_gemm_plans([module("dual_gemm", with_kernel, with_file=False)])
    assert found == [] and "_KERNEL_FILE" in skipped[0]
    found, skipped = find_dual_gemm_plans([("dual_gemm", ImportError("boom"))])
    assert found == [] and "fails to import" in skipped[0] and "boom" in skipped[0]
    assert "no built-in dual_gemm kernel exists yet" in missing_reason([])


def _dual_plans():
    from nvfp4rt.lab.dual_gemm import find_dual_gemm_plans

    return find_dual_gemm_plans()[0]


def test_dual_gemm_wired_when_a_plan_takes_kernel(capsys):
    found = _dual_plans()
    if not found:
        pytest.skip("no dual GEMM plan with kernel= in this checkout (lab dual_gemm fails clearly instead)")
    from nvfp4rt.lab import core as lab_core
    from nvfp4rt.lab.abi import match_abi
    from nvfp4rt.lab.dual_gemm import DualGemmLab

    assert lab_core.get_op("dual_gemm") is DualGemmLab
    for variant, _, abi, _ in found:
        assert match_abi("dual_gemm", _signature(abi.path, abi.entry), [a for _, _, a, _ in found]).variant == variant
    code, out, _ = lab(["dual_gemm", str(GEMM_WGMMA_PTX), "--assemble-only"], capsys)
    assert code == 1 and "abi_error" in out and "follows none of the dual_gemm kernel ABIs" in out
    op = DualGemmLab(Options(op="dual_gemm", file=GEMM_MMA_PTX))
    s = dict(m=256, n=4096, k=7168, l=1)
    assert op.flops(s) == 4 * 256 * 4096 * 7168
    assert op.bytes(s) == (256 + 2 * 4096) * (7168 // 2 + 7168 // 16) + 2 * 256 * 4096
    from nvfp4rt.data import PRESETS

    assert op.parse_shapes(None) == [dict(m=m, n=n, k=k, l=1) for m, n, k in PRESETS["dual_gemm"]]


# ----------------------------------------------------------------------------- no GPU

def test_without_gpu_the_run_assembles_then_fails_with_the_reason(capsys, monkeypatch):
    monkeypatch.setattr(LabOp, "gpu_reason", lambda self: "no CUDA driver here (test)")
    code, out, _ = lab(["custom", str(EXAMPLE_PTX), "--spec", str(EXAMPLE_SPEC), "--json"], capsys)
    assert code == 1
    doc = json.loads(out)
    assert doc["status"] == "no_gpu" and "no CUDA driver here" in doc["error"]
    assert doc["shapes"] == [] and doc["device"] is None


# ----------------------------------------------------------------------------- the pipeline, with a fake device

class _FakeKernel:
    def __init__(self, path, entry, target):
        from nvfp4rt.ptxsource import PtxSource

        self.signature = PtxSource.from_file(path, target).entries[entry]
        self.wrong = "WRONG" in Path(path).read_text()


@register_op
class _FakeOp(LabOp):
    """y = 2 * x on the "device" (numpy); a kernel file containing WRONG computes 2 * x + 1."""

    name = "fake_test_op"
    default_entry = "scaled_add"
    shape_keys = ("n",)
    presets = {"default": [(64,), (128,)], "small": [(8,)]}
    prepared = 0
    baselines = 0

    def gpu_reason(self):
        return None

    def open(self):
        return {"name": "Fake GPU", "arch": "sm_90a", "sm_count": 1, "driver": "13.0"}

    def device_arch(self):
        return "sm_90a"

    def load(self, path, entry, target, constants):
        return _FakeKernel(path, entry, target), {"from_cache": False, "seconds": 0.001}

    def time(self, fn, iters, warmup):
        for _ in range(warmup + iters):
            fn()
        return Timing.from_samples([10.0, 11.0, 12.0])

    def ceilings(self, log):
        return {"read_tbps": 1.0, "fp16_tflops": None}

    def bytes(self, shape):
        return 8 * shape["n"]

    def prepare(self, shape, rng):
        type(self).prepared += 1
        x = rng.standard_normal(shape["n"])
        return {"x": x, "ref": 2 * x}

    def bind(self, kernel, st):
        def run():
            return 2 * st["x"] + (1 if kernel.wrong else 0)

        return Bound(checks=lambda: [("normal", check(run(), st["ref"]))], run=run)

    def baseline(self, st):
        type(self).baselines += 1
        return lambda: None


def _fake_session(path, **kw):
    _FakeOp.prepared = _FakeOp.baselines = 0
    return Session(Options(op="fake_test_op", file=Path(path), iters=3, warmup=1, **kw), log=lambda m: None)


def test_pipeline_ok_table_and_json(tmp_path, capsys):
    p = tmp_path / "k.ptx"
    shutil.copy(EXAMPLE_PTX, p)
    out_json = tmp_path / "out" / "r.json"
    code, out, _ = lab(["fake_test_op", str(p), "--json", str(out_json), "--seed", "7"], capsys)
    assert code == 0, out
    assert "PASS" in out and "n=64" in out and "n=128" in out and "1.00x" in out
    doc = json.loads(out_json.read_text())
    assert doc["schema"] == core.RESULT_SCHEMA and doc["ok"] is True and doc["status"] == "ok"
    assert doc["data"]["seed"] == 7 and doc["device"]["name"] == "Fake GPU"
    assert set(doc["timing"]) == {"run_s", "edit_to_result_s", "phases_s", "session_setup_s"}
    assert doc["timing"]["edit_to_result_s"] is None  # only measured in --watch
    rec = doc["shapes"][0]
    assert rec["shape"] == {"n": 64} and rec["check"]["ok"] and rec["check"]["mismatches"] == 0
    assert rec["median_us"] == 11.0 and rec["builtin_us"] == 11.0 and rec["speedup_vs_builtin"] == 1.0
    assert rec["floor_us"] == pytest.approx(8 * 64 / 1e12 * 1e6)
    assert rec["pct_of_floor"] == pytest.approx(100 * rec["floor_us"] / 11.0)


@register_op
class _FakeComputeOp(_FakeOp):
    """The fake op, compute-bound, with a "measured" op floor of 10.5 us per call of op_floor."""

    name = "fake_compute_test_op"
    compute_bound = True
    floors = 0

    def flops(self, shape):
        return 1000 * shape["n"]

    def op_floor(self, shape, iters, warmup):
        type(self).floors += 1
        return 10.5


def test_compute_bound_floor_takes_the_measured_op_floor_once_per_shape(tmp_path):
    """The floor is the largest lower bound: the measured op floor (10.5 us) beats bytes / read ceiling
    (0.5 ns); it is measured once per shape and session, and re-measured after a reset."""
    p = tmp_path / "k.ptx"
    shutil.copy(EXAMPLE_PTX, p)
    _FakeComputeOp.floors = 0
    s = Session(Options(op="fake_compute_test_op", file=p, iters=3, warmup=1), log=lambda m: None)
    res = s.run()
    assert res["ok"], res["error"]
    for rec in res["shapes"]:
        assert rec["op_floor_us"] == 10.5 and rec["floor_us"] == 10.5
        assert rec["pct_of_floor"] == pytest.approx(100 * 10.5 / 11.0)
    assert _FakeComputeOp.floors == 2
    s.run()
    assert _FakeComputeOp.floors == 2
    s.reset()
    s.run()
    assert _FakeComputeOp.floors == 4


def test_op_floor_is_none_off_hopper_or_for_memory_bound_ops():
    op = _FakeComputeOp(Options(op="fake_compute_test_op", file=EXAMPLE_PTX))
    assert LabOp.op_floor(_FakeOp(Options(op="fake_test_op", file=EXAMPLE_PTX)), {"n": 8}, 1, 0) is None
    op.device_arch = lambda: "sm_80"
    assert LabOp.op_floor(op, {"n": 8}, 1, 0) is None


def test_pipeline_wrong_result_exits_1_and_is_not_timed(tmp_path, capsys):
    p = tmp_path / "k.ptx"
    p.write_text(EXAMPLE_PTX.read_text() + "// WRONG\n")
    code, out, err = lab(["fake_test_op", str(p), "--json"], capsys)
    assert code == 1
    doc = json.loads(out)
    assert doc["status"] == "mismatch" and not doc["ok"]
    rec = doc["shapes"][0]
    assert not rec["check"]["ok"] and rec["check"]["mismatches"] == 64 and rec["median_us"] is None
    assert "mismatch" in err


def test_watch_reruns_on_save_and_reuses_inputs(tmp_path):
    p = tmp_path / "k.ptx"
    shutil.copy(EXAMPLE_PTX, p)
    session = _fake_session(p, shapes=["small"])
    results = []
    edits = ["// edit\n", "// WRONG\n"]

    def fake_sleep(_):  # one save before each re-run: a correct edit, then a wrong one
        p.write_text(EXAMPLE_PTX.read_text() + edits[len(results) - 1])
        st = os.stat(p)
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9 * len(results)))

    code = watch(session, results.append, poll=0, max_runs=3, sleep=fake_sleep)
    assert [r["ok"] for r in results] == [True, True, False]
    assert code == 1  # the last run's status
    assert _FakeOp.prepared == 1 and _FakeOp.baselines == 1  # inputs, reference and built-in timing once
    assert results[0]["timing"]["edit_to_result_s"] is None
    assert all(r["timing"]["edit_to_result_s"] is not None for r in results[1:])
    assert [r["run"] for r in results] == [1, 2, 3]


@register_op
class _FakeKeyedOp(_FakeOp):
    """Like _FakeOp, but the built-in kernel to compare with depends on the kernel (as gemm's mma/wgmma do)."""

    name = "fake_keyed_test_op"

    def bind(self, kernel, st):
        self.key = "second" if "SECOND" in Path(kernel.path).read_text() else "first"
        return super().bind(kernel, st)

    def load(self, path, entry, target, constants):
        k, info = super().load(path, entry, target, constants)
        k.path = path
        return k, info

    def baseline_key(self, st):
        return self.key


def test_builtin_timing_is_kept_per_baseline_key(tmp_path):
    p = tmp_path / "k.ptx"
    shutil.copy(EXAMPLE_PTX, p)
    _FakeKeyedOp.prepared = _FakeKeyedOp.baselines = 0
    session = Session(Options(op="fake_keyed_test_op", file=p, iters=3, warmup=1, shapes=["small"]), log=lambda m: None)
    results = []
    edits = ["// edit\n", "// SECOND\n", "// SECOND again\n"]

    def fake_sleep(_):
        p.write_text(EXAMPLE_PTX.read_text() + edits[len(results) - 1])
        st = os.stat(p)
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9 * len(results)))

    watch(session, results.append, poll=0, max_runs=4, sleep=fake_sleep)
    assert [r["ok"] for r in results] == [True] * 4
    assert _FakeKeyedOp.baselines == 2  # once for "first", once for "second"; re-runs reuse them


def test_watch_ignores_unchanged_and_missing_files(tmp_path):
    p = tmp_path / "k.ptx"
    shutil.copy(EXAMPLE_PTX, p)
    session = _fake_session(p, shapes=["small"])
    results = []
    calls = {"n": 0}

    def fake_sleep(_):
        calls["n"] += 1
        if calls["n"] == 2:
            p.rename(tmp_path / "moved.ptx")  # mid-save: the file is briefly gone
        if calls["n"] == 3:
            (tmp_path / "moved.ptx").rename(p)
            st = os.stat(p)
            os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))

    watch(session, results.append, poll=0, max_runs=2, sleep=fake_sleep)
    assert len(results) == 2 and calls["n"] == 3


# ----------------------------------------------------------------------------- GPU

def _wrong_gemv(tmp_path):
    """The built-in GEMV with alpha silently replaced by alpha + 0.5 (one added instruction)."""
    text = GEMV_PTX.read_text()
    m = re.search(r"^(\s*)ld\.param\.f32\s+(%\w+),\s*\[alpha\];[^\n]*$", text, re.M)
    if m is None:
        pytest.fail("gemv_nvfp4.ptx no longer loads alpha with ld.param.f32: update this test's substitution")
    bad = text[:m.end()] + f"\n{m.group(1)}add.f32 {m.group(2)}, {m.group(2)}, 0f3F000000;" + text[m.end():]
    p = tmp_path / "gemv_wrong.ptx"
    p.write_text(bad)
    return p


@pytest.mark.gpu
@requires_gpu
def test_gpu_wrong_gemv_kernel_is_caught(tmp_path, capsys):
    code, out, _ = lab(["gemv", str(_wrong_gemv(tmp_path)), "--shapes", "small", "--json"], capsys)
    assert code == 1
    doc = json.loads(out)
    assert doc["status"] == "mismatch"
    assert all(not r["check"]["ok"] and r["check"]["mismatches"] > 0 for r in doc["shapes"])
    assert all(r["median_us"] is None for r in doc["shapes"])


@pytest.mark.gpu
@requires_gpu
def test_gpu_builtin_gemv_as_file_reports_timings(capsys):
    code, out, _ = lab(["gemv", str(GEMV_PTX), "--shapes", "small", "--json", "--iters", "20"], capsys)
    doc = json.loads(out)
    assert code == 0, doc["error"]
    assert doc["status"] == "ok" and doc["load"] is not None
    for r in doc["shapes"]:
        assert r["check"]["ok"] and r["check"]["data"] == ["competition", "wide"]
        assert r["median_us"] > 0 and r["builtin_us"] > 0 and r["floor_us"] > 0
        assert 0 < r["pct_of_floor"] <= 100


@pytest.mark.gpu
@requires_gpu
def test_gpu_custom_example_runs(capsys):
    code, out, _ = lab(["custom", str(EXAMPLE_PTX), "--spec", str(EXAMPLE_SPEC), "--shapes", "small", "--json"],
                       capsys)
    doc = json.loads(out)
    assert code == 0, doc["error"]
    (r,) = doc["shapes"]
    assert r["check"]["ok"] and r["check"]["total"] == 4096 and r["median_us"] > 0 and r["builtin_us"] > 0


@pytest.mark.gpu
@requires_gpu
def test_gpu_custom_wrong_kernel_is_caught(tmp_path, capsys):
    p = tmp_path / "wrong.ptx"
    p.write_text(EXAMPLE_PTX.read_text().replace("fma.rn.f32          %o3, %alpha, %x3, %y3;",
                                                 "mul.rn.f32          %o3, %alpha, %x3;"))
    assert p.read_text() != EXAMPLE_PTX.read_text()
    code, out, _ = lab(["custom", str(p), "--spec", str(EXAMPLE_SPEC), "--shapes", "small", "--json"], capsys)
    doc = json.loads(out)
    assert code == 1 and doc["status"] == "mismatch"
    assert doc["shapes"][0]["check"]["mismatches"] > 900  # every fourth element is wrong


def _wrong_gemm(tmp_path):
    """The built-in mma GEMM with alpha silently replaced by alpha + 0.5 (one added instruction)."""
    text = GEMM_MMA_PTX.read_text()
    m = re.search(r"^(\s*)ld\.param\.f32\s+(%\w+),\s*\[alpha\];[^\n]*$", text, re.M)
    if m is None:
        pytest.fail("gemm_nvfp4_mma.ptx no longer loads alpha with ld.param.f32: update this test's substitution")
    bad = text[:m.end()] + f"\n{m.group(1)}add.f32 {m.group(2)}, {m.group(2)}, 0f3F000000;" + text[m.end():]
    p = tmp_path / "gemm_wrong.ptx"
    p.write_text(bad)
    return p


@pytest.mark.gpu
@requires_gpu
def test_gpu_wrong_gemm_kernel_is_caught(tmp_path, capsys):
    code, out, _ = lab(["gemm", str(_wrong_gemm(tmp_path)), "--shapes", "small", "--json"], capsys)
    assert code == 1
    doc = json.loads(out)
    assert doc["status"] == "mismatch" and doc["abi"].startswith("mma (")
    assert all(not r["check"]["ok"] and r["check"]["mismatches"] > 0 for r in doc["shapes"])
    assert all(r["median_us"] is None for r in doc["shapes"])


def _gemm_variant_available(variant):
    from nvfp4rt import driver
    from nvfp4rt.lab.gemm import gemm_abis

    if variant not in {a.variant for a in gemm_abis()}:
        return False
    return variant == "mma" or tuple(driver.device(0).compute_capability) == (9, 0)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("path, variant", [(GEMM_MMA_PTX, "mma"), (GEMM_WGMMA_PTX, "wgmma")])
def test_gpu_builtin_gemm_as_file_reports_timings(path, variant, capsys):
    if not _gemm_variant_available(variant):
        pytest.skip(f"the {variant} GEMM needs its module and (wgmma) an sm_90 device")
    code, out, _ = lab(["gemm", str(path), "--shapes", "small", "--json", "--iters", "20"], capsys)
    doc = json.loads(out)
    assert code == 0, doc["error"]
    assert doc["status"] == "ok" and doc["abi"].startswith(f"{variant} (") and doc["load"] is not None
    for r in doc["shapes"]:
        assert r["check"]["ok"] and r["check"]["data"] == ["competition", "wide"]
        assert r["check"]["total"] == 2 * r["shape"]["m"] * r["shape"]["n"] * r["shape"]["l"]
        assert r["median_us"] > 0 and r["builtin_us"] > 0 and r["floor_us"] > 0
        assert 0 < r["pct_of_floor"] <= 100


def _wrong_dual_gemm(path, tmp_path):
    """A built-in dual GEMM with alpha1 silently replaced by alpha1 * 1.5 (one added instruction; a product,
    since the default subnormal-operand kernel receives alpha1 * 2^28, where + 0.5 would round away)."""
    text = Path(path).read_text()
    m = re.search(r"^(\s*)ld\.param\.f32\s+(%\w+),\s*\[alpha1\];[^\n]*$", text, re.M)
    if m is None:
        pytest.fail(f"{Path(path).name} no longer loads alpha1 with ld.param.f32: update this test's substitution")
    bad = text[:m.end()] + f"\n{m.group(1)}mul.f32 {m.group(2)}, {m.group(2)}, 0f3FC00000;" + text[m.end():]
    p = tmp_path / "dual_gemm_wrong.ptx"
    p.write_text(bad)
    return p


def _dual_gemm_builtin_or_skip():
    from nvfp4rt import driver

    found = _dual_plans()
    if not found:
        pytest.skip("no dual GEMM plan with kernel= in this checkout")
    variant, _, abi, _ = found[0]
    if variant == "wgmma" and tuple(driver.device(0).compute_capability) != (9, 0):
        pytest.skip("the wgmma dual GEMM needs an sm_90 device")
    return variant, abi.path


@pytest.mark.gpu
@requires_gpu
def test_gpu_builtin_dual_gemm_as_file_reports_timings(capsys):
    variant, path = _dual_gemm_builtin_or_skip()
    code, out, _ = lab(["dual_gemm", str(path), "--shapes", "small", "--json", "--iters", "20"], capsys)
    doc = json.loads(out)
    assert code == 0, doc["error"]
    assert doc["status"] == "ok" and doc["abi"].startswith(f"{variant} (")
    for r in doc["shapes"]:
        assert r["check"]["ok"] and r["check"]["data"] == ["competition", "wide"]
        assert r["median_us"] > 0 and r["builtin_us"] > 0 and r["floor_us"] > 0 and 0 < r["pct_of_floor"] <= 100


@pytest.mark.gpu
@requires_gpu
def test_gpu_wrong_dual_gemm_kernel_is_caught(tmp_path, capsys):
    _, path = _dual_gemm_builtin_or_skip()
    code, out, _ = lab(["dual_gemm", str(_wrong_dual_gemm(path, tmp_path)), "--shapes", "small", "--json"], capsys)
    assert code == 1
    doc = json.loads(out)
    assert doc["status"] == "mismatch"
    assert all(not r["check"]["ok"] and r["check"]["mismatches"] > 0 for r in doc["shapes"])



# ---------------------------------------------------------------------- the JIT's performance notes

def test_jit_notes_are_the_logs_performance_lines():
    from nvfp4rt.lab.core import jit_notes

    log = ("ptxas info    : (C7504) Potential Performance Loss: 'setmaxnreg' ignored to maintain compatibility "
           "across compilation units.\nptxas info    : Used 168 registers, used 16 barriers\n"
           "ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are serialized\n")
    assert jit_notes(log) == ["C7504: 'setmaxnreg' ignored to maintain compatibility across compilation units.",
                              "C7512: wgmma.mma_async instructions are serialized"]
    assert jit_notes("") == [] and jit_notes(None) == []


def test_the_table_shows_the_compiler_and_the_jit_notes():
    from nvfp4rt.lab.report import format_table

    base = {"op": "gemv", "file": "k.ptx", "entry": "k", "target": "sm_90a", "status": "ok", "ok": True,
            "shapes": [], "assembly": None, "abi": None}
    res = dict(base, load={"from_cache": False, "seconds": 0.25, "compiler": "link",
                           "jit_notes": ["C7504: 'setmaxnreg' ignored"]})
    text = format_table(res)
    assert "loaded in 250 ms (JIT, compiler link)" in text and "JIT note: C7504: 'setmaxnreg' ignored" in text
    cached = format_table(dict(base, load={"from_cache": True, "seconds": 0.01}))
    assert "loaded in 10 ms (cache hit)" in cached and "JIT note" not in cached
