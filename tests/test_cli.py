"""CPU tests of the ``nvfp4rt`` command: argument parsing, the no-GPU behaviour of
``info`` and ``bench``, ``cache ls/show/export/sass/clear`` without a GPU, and ``bench --render``."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nvfp4rt import bench, cli, driver

from conftest import requires_gpu

ROOT = Path(__file__).resolve().parent.parent
NO_GPU = driver.unavailable_reason() is not None
needs_no_gpu = pytest.mark.skipif(not NO_GPU, reason="checks the behaviour on a machine without a GPU")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("NVFP4RT_CACHE_DIR", str(d))
    monkeypatch.delenv("NVFP4RT_CACHE", raising=False)
    return d


# ----------------------------------------------------------------------------- parsing

def test_bench_arguments_parse():
    args = cli.build_parser().parse_args(
        ["bench", "gemv", "--shapes", "default", "7168,2048,4", "--iters", "200", "--json", "out.json", "--no-peers"])
    assert args.command == "bench" and args.op == "gemv"
    assert args.shapes == ["default", "7168,2048,4"]
    assert args.iters == 200 and args.json == "out.json" and args.no_peers is True
    assert args.render is False and args.reuse_ceilings is False
    assert args.func is cli._cmd_bench


def test_bench_defaults():
    args = cli.build_parser().parse_args(["bench", "gemv"])
    assert args.iters == 100 and args.warmup == 10 and args.shapes is None and args.no_peers is False


@pytest.mark.parametrize("argv", [["bench", "gemv", "--iters", "0"], ["bench", "gemv", "--iters", "x"],
                                  ["cache"], ["cache", "rm"], [], ["frobnicate"]])
def test_bad_arguments_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2


def test_info_and_cache_parse():
    p = cli.build_parser()
    assert p.parse_args(["info", "--remeasure"]).remeasure is True
    assert p.parse_args(["cache", "ls"]).func is cli._cmd_cache_ls
    assert p.parse_args(["cache", "clear"]).func is cli._cmd_cache_clear
    assert p.parse_args(["cache", "show", "abcd"]).func is cli._cmd_cache_show
    args = p.parse_args(["cache", "export", "abcd", "-o", "k.cubin"])
    assert args.func is cli._cmd_cache_export and args.key == "abcd" and args.output == "k.cubin"
    assert p.parse_args(["cache", "sass", "abcd"]).func is cli._cmd_cache_sass


def test_lab_registration_hook_is_in_the_subcommand_list():
    assert cli._add_lab in cli.SUBCOMMANDS


def test_bench_without_op_or_render_is_a_usage_error(capsys):
    assert cli.main(["bench"]) == 2
    assert "--render" in capsys.readouterr().err


def test_bench_unknown_op_or_bad_shape_fails_before_touching_the_gpu(capsys):
    assert cli.main(["bench", "nope"]) == 2
    assert "unknown op 'nope'" in capsys.readouterr().err
    assert cli.main(["bench", "gemv", "--shapes", "1,2"]) == 2
    assert "m,k,l" in capsys.readouterr().err


# ----------------------------------------------------------------------------- no GPU

@needs_no_gpu
def test_info_without_gpu_exits_1_with_the_reason(capsys):
    assert cli.main(["info"]) == 1
    err = capsys.readouterr().err
    assert "no CUDA driver/device found" in err


@needs_no_gpu
def test_bench_without_gpu_exits_1_with_the_reason(capsys):
    assert cli.main(["bench", "gemv"]) == 1
    err = capsys.readouterr().err
    assert "bench needs a GPU" in err and "no CUDA driver/device found" in err


@needs_no_gpu
def test_info_as_a_process_exits_1():
    r = subprocess.run([sys.executable, "-m", "nvfp4rt.cli", "info"], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1
    assert "no CUDA driver/device found" in r.stderr


# ----------------------------------------------------------------------------- cache (any machine)

def _fake_entry(d: Path, key: str, payload: bytes = b"x" * 100) -> None:
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{key}.cubin").write_bytes(payload)


def test_cache_ls_lists_entries(cache_dir, capsys):
    _fake_entry(cache_dir, "ab" * 32)
    _fake_entry(cache_dir, "cd" * 32)
    assert cli.main(["cache", "ls"]) == 0
    out = capsys.readouterr().out
    assert str(cache_dir) in out and "2 entries" in out
    assert "ab" * 32 in out and "cd" * 32 in out


def test_cache_ls_on_a_missing_directory(cache_dir, capsys):
    assert cli.main(["cache", "ls"]) == 0
    assert "0 entries" in capsys.readouterr().out


def test_cache_clear_removes_entries_but_not_the_ceilings(cache_dir, capsys):
    _fake_entry(cache_dir, "ab" * 32)
    (cache_dir / "ceilings.json").write_text("{}")
    assert cli.main(["cache", "clear"]) == 0
    assert "removed 1 entries" in capsys.readouterr().out
    assert not list(cache_dir.glob("*.cubin"))
    assert (cache_dir / "ceilings.json").exists()


def _cached(cache_dir, key: str, sections: dict) -> bytes:
    from nvfp4rt.cache import CubinCache
    from test_cubin import elf

    blob = elf(sections)
    CubinCache(cache_dir).put(key, blob)
    return blob


def test_cache_show_names_the_kernels_of_an_entry_by_prefix(cache_dir, capsys):
    _cached(cache_dir, "ab" * 32, {".text.gemm_kernel": 4096, ".nv.info.gemm_kernel": 16, ".text.decode": 512})
    assert cli.main(["cache", "show", "abab"]) == 0
    out = capsys.readouterr().out
    assert "ab" * 32 in out and "gemm_kernel  4.0 KiB of machine code" in out and "decode  512 B" in out


def test_cache_export_writes_the_cubin_without_the_header(cache_dir, tmp_path, capsys):
    blob = _cached(cache_dir, "ab" * 32, {".text.k": 64})
    out = tmp_path / "k.cubin"
    assert cli.main(["cache", "export", "abab", "-o", str(out)]) == 0
    assert out.read_bytes() == blob and (cache_dir / f"{'ab' * 32}.cubin").read_bytes() != blob


@pytest.mark.parametrize("key,match", [("abab", "2 cached cubins have keys starting with 'abab'"),
                                       ("cdcd", "no cached cubin"), ("ab", "at least 4 lowercase hex"),
                                       ("ABAB", "at least 4 lowercase hex")])
def test_cache_entry_commands_name_a_bad_key(cache_dir, capsys, key, match):
    _cached(cache_dir, "abab" + "0" * 60, {".text.k": 64})
    _cached(cache_dir, "abab" + "1" * 60, {".text.k": 64})
    for cmd in ("show", "export", "sass"):
        assert cli.main(["cache", cmd, key]) == 1
        assert match in capsys.readouterr().err


def test_cache_sass_without_a_disassembler_says_so(cache_dir, capsys, monkeypatch):
    from nvfp4rt import cubin

    _cached(cache_dir, "ab" * 32, {".text.k": 64})
    monkeypatch.setattr(cubin, "find_disassembler", lambda: None)
    assert cli.main(["cache", "sass", "abab"]) == 1
    assert "no CUDA disassembler found: cuobjdump or nvdisasm" in capsys.readouterr().err


def test_cache_show_rejects_an_entry_that_is_no_cubin(cache_dir, capsys):
    from nvfp4rt.cache import CubinCache

    CubinCache(cache_dir).put("ab" * 32, b"not an elf file")
    assert cli.main(["cache", "show", "abab"]) == 1
    assert "not an ELF file" in capsys.readouterr().err


def test_cache_ls_as_a_process(cache_dir):
    _fake_entry(cache_dir, "ef" * 32)
    r = subprocess.run([sys.executable, "-m", "nvfp4rt.cli", "cache", "ls"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60, env=dict(os.environ, NVFP4RT_CACHE_DIR=str(cache_dir)))
    assert r.returncode == 0, r.stderr
    assert "ef" * 32 in r.stdout


# ----------------------------------------------------------------------------- render

def test_bench_render_writes_benchmarks_md(tmp_path, monkeypatch, capsys):
    from test_bench import _fake_result

    results = tmp_path / "results"
    bench.write_result(_fake_result(), results_dir=results)
    out = tmp_path / "BENCHMARKS.md"
    monkeypatch.setattr(bench, "checkout_root", lambda: tmp_path)
    assert cli.main(["bench", "--render", "--results-dir", str(results)]) == 0
    assert out.read_text() == bench.render_markdown(results)
    assert "| NVIDIA H100 80GB HBM3 |" in out.read_text()


def test_tools_bench_wrapper_passes_arguments_to_bench():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "bench.py"), "nope"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "unknown op 'nope'" in r.stderr


# ----------------------------------------------------------------------------- ceilings cache (CPU)

def test_ceilings_cache_roundtrip_per_device_and_driver(cache_dir):
    from nvfp4rt import ceilings

    assert ceilings.ceilings_path() == cache_dir / "ceilings.json"
    assert ceilings.cached_ceilings("H100", 13000) is None
    ceilings.store_ceilings("H100", 13000, {"read_tbps": 3.1})
    ceilings.store_ceilings("H200", 13000, {"read_tbps": 4.3})
    assert ceilings.cached_ceilings("H100", 13000) == {"read_tbps": 3.1}
    assert ceilings.cached_ceilings("H100", 13010) is None  # another driver: re-measure
    doc = json.loads((cache_dir / "ceilings.json").read_text())
    assert set(doc) == {"H100|driver 13000", "H200|driver 13000"}


def test_ceilings_cache_survives_a_corrupt_file(cache_dir):
    from nvfp4rt import ceilings

    cache_dir.mkdir(parents=True)
    (cache_dir / "ceilings.json").write_text("{truncated")
    assert ceilings.cached_ceilings("H100", 13000) is None
    ceilings.store_ceilings("H100", 13000, {"read_tbps": 3.0})
    assert ceilings.cached_ceilings("H100", 13000) == {"read_tbps": 3.0}


# ----------------------------------------------------------------------------- GPU

@pytest.mark.gpu
@requires_gpu
def test_info_on_gpu_prints_device_and_ceilings(cache_dir, capsys):
    """`nvfp4rt info` exits 0, names the device, arch and SM count, and caches the measured ceilings."""
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    props = driver.device(0).properties
    assert props.name in out and props.arch in out and str(props.sm_count) in out
    assert "TB/s" in out
    assert (cache_dir / "ceilings.json").exists()
