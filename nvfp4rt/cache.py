"""A content-addressed on-disk cache of compiled cubins.

Why: the driver's JIT takes tens of milliseconds per PTX module (64 ms for a
tiny one on the device machine), and a benchmark or a test session loads the
same modules over and over.  A cubin is a pure function of its inputs, so it is
stored under the sha256 of everything that reaches the compiler:

    schema version, rendered PTX bytes, target arch, every JIT option
    (name=value, sorted by name), driver version, cuda-bindings version

Change any of these and the key changes; nothing else changes it.

Entries are ``<key>.cubin`` files holding a fixed header (magic, schema,
payload length, sha256 of the payload) followed by the payload.  Writes go to a
temporary file in the same directory, are fsynced and then renamed over the
final name with ``os.replace``, so a reader sees either no entry or a complete
one.  A reader still verifies the header and checksum: an empty, truncated or
corrupted entry (a full disk, a copied-in file, a bit flip) counts as a miss,
is removed and gets rebuilt; it is never handed to the driver.

Concurrency: several processes starting cold may all miss at once.  Atomic
replace alone makes that safe (each writes the same bytes); to avoid doing the
same JIT work N times, :meth:`CubinCache.get_or_build` also takes an exclusive
``fcntl.flock`` on ``<key>.lock`` around the build and re-checks the cache once
it holds the lock.  ``flock`` locks belong to open file descriptions and are
dropped by the kernel when a process exits or crashes, so a lock file left on
disk is never "stale": it is just an empty file.  Lock files are kept (removing
them while another process waits on them would let two processes hold "the"
lock on different inodes).  If locking is unavailable (no ``fcntl``, a file
system without locks) or takes longer than ``lock_timeout`` seconds, the
process builds anyway; correctness never depends on the lock.

Location: ``$NVFP4RT_CACHE_DIR`` if set; else ``<checkout>/cubin_cache/`` when
nvfp4rt runs from a source checkout (the package's parent directory holds
``pyproject.toml`` and ``cubin_cache/``); else ``$XDG_CACHE_HOME/nvfp4rt`` or
``~/.cache/nvfp4rt``.  ``NVFP4RT_CACHE=0`` (or ``off``/``false``/``no``)
disables caching: every lookup misses and nothing is written.
"""
from __future__ import annotations

import errno
import hashlib
import os
import struct
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

try:  # POSIX only; the cache works without it (see the module docstring)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

__all__ = [
    "SCHEMA_VERSION",
    "CacheEntry",
    "CubinCache",
    "default_cache",
    "default_directory",
    "cache_enabled",
    "bindings_version",
]

#: Bump when the key recipe or the entry format changes: old entries then never match.
SCHEMA_VERSION = 1

_MAGIC = b"NVF4CUBN"
# magic, schema (u32), payload length (u64), sha256(payload)
_HEADER = struct.Struct("<8sIQ32s")
_SUFFIX = ".cubin"
_LOCK_SUFFIX = ".lock"
_TMP_SUFFIX = ".tmp"
_OFF_VALUES = frozenset({"0", "off", "false", "no"})


def bindings_version() -> str:
    """The installed cuda-bindings version (part of every key)."""
    try:
        from cuda.bindings import __version__
        return str(__version__)
    except Exception:  # pragma: no cover - very old bindings
        return "unknown"


def cache_enabled() -> bool:
    """False when ``NVFP4RT_CACHE`` is ``0``, ``off``, ``false`` or ``no``."""
    return os.environ.get("NVFP4RT_CACHE", "1").strip().lower() not in _OFF_VALUES


def default_directory() -> Path:
    """Where the cache lives by default (see the module docstring for the order)."""
    env = os.environ.get("NVFP4RT_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "cubin_cache").is_dir():
        return checkout / "cubin_cache"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "nvfp4rt"


def default_cache() -> "CubinCache":
    """A cache following the current environment variables (cheap; build one per use)."""
    return CubinCache(default_directory(), enabled=cache_enabled())


@dataclass(frozen=True)
class CacheEntry:
    """One stored cubin, as listed by :meth:`CubinCache.entries`."""

    key: str
    size: int  # bytes on disk, header included
    mtime: float
    path: Path


class CubinCache:
    """Content-addressed store of compiled cubins in one directory.

    ``directory=None`` means :func:`default_directory`.  With ``enabled=False``
    every lookup misses and nothing is written (``get_or_build`` just builds).
    """

    def __init__(self, directory: str | os.PathLike | None = None, *, enabled: bool = True,
                 lock_timeout: float = 600.0):
        if directory is not None and not isinstance(directory, (str, os.PathLike)):
            raise TypeError(f"directory must be a path or None, got {type(directory).__name__}")
        self.directory = Path(directory) if directory is not None else default_directory()
        self.enabled = bool(enabled)
        self.lock_timeout = float(lock_timeout)

    def __repr__(self) -> str:
        state = "" if self.enabled else ", disabled"
        return f"CubinCache({str(self.directory)!r}{state})"

    # ------------------------------------------------------------------ keys

    @staticmethod
    def key(ptx: str | bytes, arch: str, options: Mapping[str, object] | None = None, *,
            driver_version: int | None = None, bindings: str | None = None,
            schema: int = SCHEMA_VERSION) -> str:
        """The hex sha256 naming the cubin built from these inputs.

        ``options`` are the JIT options by name (any order: they are sorted).
        ``driver_version`` defaults to the running driver's; ``bindings`` to the
        installed cuda-bindings version.  Each field is length-prefixed so that
        no two different input tuples can produce the same byte stream.
        """
        if isinstance(ptx, str):
            ptx = ptx.encode()
        if not isinstance(ptx, (bytes, bytearray)):
            raise TypeError(f"ptx must be str or bytes, got {type(ptx).__name__}")
        if not isinstance(arch, str) or not arch:
            raise TypeError(f"arch must be a non-empty str such as 'sm_90a', got {arch!r}")
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise TypeError(f"options must be a mapping of option name to value, got {type(options).__name__}")
        if driver_version is None:
            from . import driver
            driver_version = driver.driver_version()
        if bindings is None:
            bindings = bindings_version()

        h = hashlib.sha256()

        def field(tag: str, data: bytes) -> None:
            h.update(tag.encode() + b"\0" + len(data).to_bytes(8, "little") + data)

        field("schema", str(int(schema)).encode())
        field("ptx", bytes(ptx))
        field("arch", arch.encode())
        for name in sorted(options, key=str):
            value = options[name]
            field("option", f"{name}={type(value).__name__}:{value!r}".encode())
        field("driver", str(int(driver_version)).encode())
        field("bindings", str(bindings).encode())
        return h.hexdigest()

    # ------------------------------------------------------------------ paths

    def path_for(self, key: str) -> Path:
        """The entry file for ``key`` (which must be a hex digest)."""
        if not isinstance(key, str) or not key or any(c not in "0123456789abcdef" for c in key):
            raise ValueError(f"cache key must be a lowercase hex string, got {key!r}")
        return self.directory / (key + _SUFFIX)

    # ------------------------------------------------------------------ read/write

    def get(self, key: str) -> bytes | None:
        """The payload stored under ``key``, or None (missing, disabled or invalid).

        An invalid entry (wrong magic or schema, short, checksum mismatch) is
        removed so that the next writer replaces it.
        """
        path = self.path_for(key)
        if not self.enabled:
            return None
        try:
            blob = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError:
            return None
        payload = _decode(blob)
        if payload is None:
            _unlink_quietly(path)
        return payload

    def put(self, key: str, payload: bytes) -> Path | None:
        """Store ``payload`` under ``key`` atomically; returns the entry path (None if disabled)."""
        path = self.path_for(key)
        if not isinstance(payload, (bytes, bytearray, memoryview)):
            raise TypeError(f"payload must be bytes, got {type(payload).__name__}")
        payload = bytes(payload)
        if not payload:
            raise ValueError("refusing to cache an empty payload")
        if not self.enabled:
            return None
        self.directory.mkdir(parents=True, exist_ok=True)
        header = _HEADER.pack(_MAGIC, SCHEMA_VERSION, len(payload), hashlib.sha256(payload).digest())
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{key}.", suffix=_TMP_SUFFIX)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(header)
                f.write(payload)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            _unlink_quietly(Path(tmp))
            raise
        _fsync_dir(self.directory)
        return path

    def get_or_build(self, key: str, build_fn: Callable[[], bytes]) -> tuple[bytes, bool]:
        """``(payload, hit)``: the cached payload, or ``build_fn()`` stored and returned.

        ``build_fn`` is the compiler (injectable so tests use a fake one).  While
        building, a per-key ``flock`` keeps other processes from compiling the
        same key; they wait and then read the entry this process wrote.
        """
        if not callable(build_fn):
            raise TypeError(f"build_fn must be callable, got {type(build_fn).__name__}")
        payload = self.get(key)
        if payload is not None:
            return payload, True
        if not self.enabled:
            return _checked_build(build_fn), False
        self.directory.mkdir(parents=True, exist_ok=True)
        with _KeyLock(self.directory / (key + _LOCK_SUFFIX), self.lock_timeout):
            payload = self.get(key)  # another process may have built it while we waited
            if payload is not None:
                return payload, True
            payload = _checked_build(build_fn)
            self.put(key, payload)
        return payload, False

    # ------------------------------------------------------------------ listing

    def entries(self) -> list[CacheEntry]:
        """Every stored entry (valid or not: listing does not read payloads), oldest first."""
        out = []
        if not self.directory.is_dir():
            return out
        for p in self.directory.glob("*" + _SUFFIX):
            if p.name.startswith("."):
                continue
            try:
                st = p.stat()
            except FileNotFoundError:
                continue
            out.append(CacheEntry(p.name[: -len(_SUFFIX)], st.st_size, st.st_mtime, p))
        out.sort(key=lambda e: (e.mtime, e.key))
        return out

    def resolve(self, prefix: str) -> str:
        """The one stored key that starts with ``prefix`` (at least 4 lowercase hex digits, as ``cache ls`` prints
        them).  Raises ValueError for a malformed prefix, KeyError when no key or several keys match."""
        if not isinstance(prefix, str) or len(prefix) < 4 or any(c not in "0123456789abcdef" for c in prefix):
            raise ValueError(f"key must be at least 4 lowercase hex digits of a cached key, got {prefix!r}")
        found = [e.key for e in self.entries() if e.key.startswith(prefix)]
        if not found:
            raise KeyError(f"no cached cubin in {self.directory} has a key starting with {prefix!r}")
        if len(found) > 1:
            raise KeyError(f"{len(found)} cached cubins have keys starting with {prefix!r}: "
                           + ", ".join(k[:16] for k in found[:4]) + (" ..." if len(found) > 4 else ""))
        return found[0]

    def size_bytes(self) -> int:
        """Total bytes of stored entries."""
        return sum(e.size for e in self.entries())

    def clear(self) -> int:
        """Remove every entry, lock file and leftover temp file; returns the number of entries removed.

        Safe to run while other processes use the cache: they at worst rebuild.
        """
        n = 0
        if not self.directory.is_dir():
            return 0
        for p in list(self.directory.iterdir()):
            name = p.name
            if name.endswith(_SUFFIX) and not name.startswith("."):
                n += _unlink_quietly(p)
            elif name.endswith(_LOCK_SUFFIX) or (name.startswith(".") and name.endswith(_TMP_SUFFIX)):
                _unlink_quietly(p)
        return n


# ---------------------------------------------------------------------- helpers

def _decode(blob: bytes) -> bytes | None:
    """The payload of a stored entry, or None when the entry is not intact."""
    if len(blob) < _HEADER.size:
        return None
    magic, schema, length, digest = _HEADER.unpack_from(blob)
    if magic != _MAGIC or schema != SCHEMA_VERSION or length == 0:
        return None
    payload = blob[_HEADER.size:]
    if len(payload) != length or hashlib.sha256(payload).digest() != digest:
        return None
    return payload


def _checked_build(build_fn: Callable[[], bytes]) -> bytes:
    payload = build_fn()
    if not isinstance(payload, (bytes, bytearray, memoryview)) or len(payload) == 0:
        raise ValueError(f"the cubin builder returned {type(payload).__name__} of length "
                         f"{len(payload) if hasattr(payload, '__len__') else '?'}; expected non-empty bytes")
    return bytes(payload)


def _unlink_quietly(path: Path) -> int:
    try:
        path.unlink()
        return 1
    except FileNotFoundError:
        return 0
    except OSError:
        return 0


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable (best effort: not every platform can open a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class _KeyLock:
    """An exclusive ``flock`` on a lock file, waited for up to ``timeout`` seconds.

    Never raises for locking trouble: without a lock the caller only risks
    duplicate work, so an unusable lock degrades to no lock.
    """

    def __init__(self, path: Path, timeout: float):
        self.path = path
        self.timeout = timeout
        self.fd: int | None = None

    def __enter__(self) -> "_KeyLock":
        if fcntl is None:
            return self
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return self
        deadline = time.monotonic() + self.timeout
        delay = 0.005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.fd = fd
                return self
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    break  # e.g. ENOLCK: no locking on this file system
            if time.monotonic() >= deadline:
                break
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
        os.close(fd)
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            finally:
                os.close(self.fd)
                self.fd = None
