"""The content-addressed cubin cache, with a fake compiler (no GPU needed)."""
from __future__ import annotations

import hashlib
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from nvfp4rt import cache as cache_mod
from nvfp4rt.cache import CubinCache, default_cache

BASE = dict(ptx=".version 8.7\n.target sm_90a\n", arch="sm_90a",
            options={"CU_JIT_OPTIMIZATION_LEVEL": 4, "CU_JIT_MAX_REGISTERS": 128},
            driver_version=13000, bindings="13.5.0")


def _key(**changes):
    args = {**BASE, **changes}
    return CubinCache.key(args.pop("ptx"), args.pop("arch"), args.pop("options"), **args)


# ---------------------------------------------------------------------- keys

def test_key_is_stable_and_independent_of_option_order():
    assert _key() == _key()
    reordered = dict(reversed(list(BASE["options"].items())))
    assert list(reordered) != list(BASE["options"])
    assert _key(options=reordered) == _key()
    assert len(_key()) == 64 and int(_key(), 16) >= 0


@pytest.mark.parametrize("change", [
    {"ptx": BASE["ptx"] + "// one more comment\n"},
    {"arch": "sm_90"},
    {"options": {"CU_JIT_OPTIMIZATION_LEVEL": 3, "CU_JIT_MAX_REGISTERS": 128}},
    {"options": {"CU_JIT_OPTIMIZATION_LEVEL": 4, "CU_JIT_MAX_REGISTERS": 96}},
    {"options": {"CU_JIT_OPTIMIZATION_LEVEL": 4, "CU_JIT_MAX_REGISTERS": 128, "CU_JIT_GENERATE_LINE_INFO": 1}},
    {"options": {"CU_JIT_OPTIMIZATION_LEVEL": 4}},
    {"driver_version": 12080},
    {"bindings": "13.3.1"},
    {"schema": cache_mod.SCHEMA_VERSION + 1},
])
def test_key_changes_with_every_input(change):
    assert _key(**change) != _key()


def test_key_fields_cannot_run_into_each_other():
    # the same bytes split differently between PTX and arch must not collide
    assert _key(ptx="abc", arch="sm_90a") != _key(ptx="abcs", arch="m_90a")


def test_key_rejects_bad_arguments():
    with pytest.raises(TypeError, match="ptx"):
        CubinCache.key(123, "sm_90a", {}, driver_version=1, bindings="x")
    with pytest.raises(TypeError, match="arch"):
        CubinCache.key("x", "", {}, driver_version=1, bindings="x")
    with pytest.raises(TypeError, match="options"):
        CubinCache.key("x", "sm_90a", [("a", 1)], driver_version=1, bindings="x")


# ---------------------------------------------------------------------- entries

def test_put_get_round_trip_and_listing(tmp_path):
    c = CubinCache(tmp_path)
    k = _key()
    assert c.get(k) is None
    c.put(k, b"cubin-bytes")
    assert c.get(k) == b"cubin-bytes"
    [entry] = c.entries()
    assert entry.key == k and entry.size > len(b"cubin-bytes") and entry.path == c.path_for(k)
    assert c.size_bytes() == entry.size
    assert c.clear() == 1
    assert c.entries() == [] and c.get(k) is None


def test_write_is_atomic_and_leaves_no_temp_files(tmp_path):
    c = CubinCache(tmp_path)
    for i in range(5):
        c.put(_key(ptx=f"v{i}"), os.urandom(1000))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 5
    assert all(n.endswith(".cubin") and not n.startswith(".") for n in names)


def test_crash_before_replace_leaves_no_visible_entry(tmp_path):
    # what a writer killed between write and os.replace leaves behind: only its temp file
    c = CubinCache(tmp_path)
    k = _key()
    (tmp_path / f".{k}.abc123.tmp").write_bytes(b"partial")
    assert c.get(k) is None
    assert c.entries() == []
    payload, hit = c.get_or_build(k, lambda: b"rebuilt")
    assert (payload, hit) == (b"rebuilt", False)
    assert c.get(k) == b"rebuilt"


def _corrupt_empty(p: Path):
    p.write_bytes(b"")


def _corrupt_truncate(p: Path):
    p.write_bytes(p.read_bytes()[:-7])


def _corrupt_header_only(p: Path):
    p.write_bytes(p.read_bytes()[:cache_mod._HEADER.size])


def _corrupt_bitflip(p: Path):
    b = bytearray(p.read_bytes())
    b[-3] ^= 0x10
    p.write_bytes(bytes(b))


def _corrupt_magic(p: Path):
    b = bytearray(p.read_bytes())
    b[0] ^= 0xFF
    p.write_bytes(bytes(b))


@pytest.mark.parametrize("corrupt", [_corrupt_empty, _corrupt_truncate, _corrupt_header_only,
                                     _corrupt_bitflip, _corrupt_magic])
def test_damaged_entry_is_a_miss_and_is_rebuilt(tmp_path, corrupt):
    c = CubinCache(tmp_path)
    k = _key()
    c.put(k, b"good cubin payload " * 10)
    corrupt(c.path_for(k))
    assert c.get(k) is None
    assert not c.path_for(k).exists(), "an invalid entry must be removed"
    builds = []

    def fake_compiler():
        builds.append(1)
        return b"fresh cubin"

    c.put(k, b"good cubin payload " * 10)
    corrupt(c.path_for(k))
    payload, hit = c.get_or_build(k, fake_compiler)
    assert (payload, hit, len(builds)) == (b"fresh cubin", False, 1)
    assert c.get_or_build(k, fake_compiler) == (b"fresh cubin", True)
    assert len(builds) == 1


def test_builder_must_return_bytes(tmp_path):
    c = CubinCache(tmp_path)
    with pytest.raises(ValueError, match="non-empty bytes"):
        c.get_or_build(_key(), lambda: b"")
    with pytest.raises(TypeError, match="build_fn"):
        c.get_or_build(_key(), b"not callable")
    assert c.entries() == []


def test_bad_keys_are_rejected(tmp_path):
    c = CubinCache(tmp_path)
    for bad in ("../etc/passwd", "", "ABC", None):
        with pytest.raises(ValueError, match="hex"):
            c.get(bad)


# ---------------------------------------------------------------------- environment

def test_env_var_moves_the_default_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NVFP4RT_CACHE_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.delenv("NVFP4RT_CACHE", raising=False)
    c = default_cache()
    assert c.directory == tmp_path / "elsewhere" and c.enabled
    c.put(_key(), b"x")
    assert (tmp_path / "elsewhere" / (_key() + ".cubin")).is_file()


@pytest.mark.parametrize("value", ["0", "off", "OFF", "false"])
def test_env_var_disables_the_cache(tmp_path, monkeypatch, value):
    monkeypatch.setenv("NVFP4RT_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("NVFP4RT_CACHE", value)
    c = default_cache()
    assert not c.enabled
    builds = []
    for _ in range(2):
        payload, hit = c.get_or_build(_key(), lambda: builds.append(1) or b"built")
        assert (payload, hit) == (b"built", False)
    assert len(builds) == 2
    assert list(tmp_path.iterdir()) == []


def test_checkout_default_is_cubin_cache_dir(monkeypatch):
    monkeypatch.delenv("NVFP4RT_CACHE_DIR", raising=False)
    root = Path(cache_mod.__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / "cubin_cache").is_dir():
        assert cache_mod.default_directory() == root / "cubin_cache"
    else:
        assert cache_mod.default_directory().name == "nvfp4rt"


def test_user_cache_dir_outside_a_checkout(tmp_path, monkeypatch):
    monkeypatch.delenv("NVFP4RT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    fake_pkg = tmp_path / "site" / "nvfp4rt"
    fake_pkg.mkdir(parents=True)
    monkeypatch.setattr(cache_mod, "__file__", str(fake_pkg / "cache.py"))
    assert cache_mod.default_directory() == tmp_path / "nvfp4rt"


# ---------------------------------------------------------------------- several processes

def _cold_start_worker(directory: str, key: str, builds_dir: str, out_dir: str, index: int) -> None:
    """Runs in a spawned process: get_or_build with a slow fake compiler."""
    def slow_fake_compiler() -> bytes:
        Path(builds_dir, f"build-{os.getpid()}").write_bytes(b"")
        time.sleep(0.2)
        return hashlib.sha256(key.encode()).digest() * 64

    payload, hit = CubinCache(directory).get_or_build(key, slow_fake_compiler)
    Path(out_dir, f"{index}.bin").write_bytes(payload)


@pytest.mark.slow
def test_many_processes_starting_cold_all_succeed(tmp_path):
    directory, builds, outs = tmp_path / "cache", tmp_path / "builds", tmp_path / "outs"
    builds.mkdir()
    outs.mkdir()
    key = _key()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_cold_start_worker, args=(str(directory), key, str(builds), str(outs), i))
             for i in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * 8
    results = {p.read_bytes() for p in outs.iterdir()}
    expected = hashlib.sha256(key.encode()).digest() * 64
    assert results == {expected}
    assert CubinCache(directory).get(key) == expected
    n_builds = len(list(builds.iterdir()))
    if cache_mod.fcntl is not None:
        assert n_builds == 1, f"the per-key lock should allow one build, saw {n_builds}"
    assert not [p for p in directory.iterdir() if p.name.endswith(".tmp")]
