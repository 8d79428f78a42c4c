"""What a compiled cubin holds, without a GPU: its kernels and their code size, and its SASS.

A cubin is an ELF64 file.  Each kernel's machine code is the section ``.text.<name>``, so the section table alone
names the kernels and gives their code size (what the SM's instruction caches must hold).  The SASS itself needs a
disassembler from the CUDA toolkit, ``cuobjdump`` or ``nvdisasm``; ``ptxas`` alone does not ship one, so
:func:`sass` says so by name when neither is found.
"""
from __future__ import annotations

import struct
import subprocess
import tempfile
from pathlib import Path

__all__ = ["kernels", "find_disassembler", "sass", "DisassemblerNotFound"]

_ELF_MAGIC = b"\x7fELF"
_ELF_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")  # e_ident .. e_shstrndx (ELF64, little-endian)
_SECTION = struct.Struct("<IIQQQQIIQQ")           # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, ...
_TEXT = ".text."


class DisassemblerNotFound(RuntimeError):
    """Neither ``cuobjdump`` nor ``nvdisasm`` is on this machine."""


def kernels(cubin: bytes) -> dict[str, int]:
    """``{kernel name: machine-code bytes}`` of every ``.text.<name>`` section of ``cubin``, in file order.

    Raises ValueError naming what is wrong when ``cubin`` is not a little-endian ELF64 file with a readable section
    table."""
    if not isinstance(cubin, (bytes, bytearray, memoryview)):
        raise TypeError(f"cubin must be bytes, got {type(cubin).__name__}")
    b = bytes(cubin)
    if len(b) < _ELF_HEADER.size or b[:4] != _ELF_MAGIC:
        raise ValueError("cubin is not an ELF file (no \\x7fELF magic)")
    if b[4] != 2 or b[5] != 1:
        raise ValueError(f"cubin must be ELF64 little-endian, got class {b[4]} and data encoding {b[5]}")
    *_, shoff, _flags, _ehsize, _phentsize, _phnum, shentsize, shnum, shstrndx = _ELF_HEADER.unpack_from(b, 0)
    if shentsize != _SECTION.size or shstrndx >= shnum or shoff + shnum * shentsize > len(b):
        raise ValueError(f"cubin's section table does not fit the file ({shnum} sections of {shentsize} bytes "
                         f"at {shoff}, file of {len(b)} bytes)")
    sections = [_SECTION.unpack_from(b, shoff + i * shentsize) for i in range(shnum)]
    names_at, names_size = sections[shstrndx][4], sections[shstrndx][5]
    if names_at + names_size > len(b):
        raise ValueError("cubin's section-name table lies past the end of the file")

    def name(offset: int) -> str:
        start = names_at + offset
        end = b.find(b"\0", start, names_at + names_size)
        if offset >= names_size or end < 0:
            raise ValueError(f"cubin has a section name at {offset} outside its name table")
        return b[start:end].decode("ascii", "replace")

    return {n[len(_TEXT):]: s[5] for s in sections if (n := name(s[0])).startswith(_TEXT)}


def find_disassembler() -> list[str] | None:
    """The command (argument list, the cubin's path to follow) of a CUDA disassembler: ``cuobjdump -sass`` or
    ``nvdisasm``, where :func:`nvfp4rt.assemble.find_cuda_tool` finds one; None if none."""
    from .assemble import find_cuda_tool

    for tool, args in (("cuobjdump", ["-sass"]), ("nvdisasm", [])):
        found = find_cuda_tool(tool)
        if found:
            return [found, *args]
    return None


def sass(cubin: bytes, disassembler: list[str] | None = None, timeout: float = 120.0) -> str:
    """The SASS text of ``cubin`` from :func:`find_disassembler`'s tool (or ``disassembler``, an argument list that
    takes the cubin's path last).  Raises DisassemblerNotFound when there is none, ValueError when ``cubin`` is not
    one (see :func:`kernels`), and RuntimeError with the tool's message when it fails."""
    kernels(cubin)  # a clear error before any tool runs
    cmd = disassembler if disassembler is not None else find_disassembler()
    if not cmd:
        raise DisassemblerNotFound("no CUDA disassembler found: cuobjdump or nvdisasm (from the CUDA toolkit; ptxas "
                                   "alone has none) on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin")
    with tempfile.TemporaryDirectory(prefix="nvfp4rt-sass-") as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(bytes(cubin))
        try:
            r = subprocess.run([*cmd, str(path)], capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise RuntimeError(f"{cmd[0]} could not disassemble the cubin: {e}") from e
    if r.returncode != 0 or not r.stdout.strip():
        raise RuntimeError(f"{Path(cmd[0]).name} failed (exit {r.returncode}): {(r.stderr or r.stdout).strip()[:500]}")
    return r.stdout
