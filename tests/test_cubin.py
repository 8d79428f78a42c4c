"""nvfp4rt.cubin on any machine: the kernels and machine-code sizes of a cubin read from its ELF section table (a
cubin built here in Python, and one from ptxas where it is installed), malformed input named, and the SASS step: the
tool it runs, the message when no disassembler exists, a failing tool's message."""
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from nvfp4rt import cubin
from nvfp4rt.assemble import find_ptxas


def elf(sections: dict, elf_class: int = 2) -> bytes:
    """A minimal little-endian ELF64 file holding ``sections`` ({name: size}, zero-filled) and its name table."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n in list(sections) + [".shstrtab"])
    offsets, pos = {}, 1
    for n in list(sections) + [".shstrtab"]:
        offsets[n] = pos
        pos += len(n) + 1
    data, at = b"", 64
    placed = {}
    for n, size in sections.items():
        placed[n] = (at + len(data), size)
        data += b"\0" * size
    strtab_at = 64 + len(data)
    data += names
    shoff = 64 + len(data)
    headers = [bytes(64)]  # the null section
    for n, (off, size) in placed.items():
        headers.append(struct.pack("<IIQQQQIIQQ", offsets[n], 1, 6, 0, off, size, 0, 0, 128, 0))
    headers.append(struct.pack("<IIQQQQIIQQ", offsets[".shstrtab"], 3, 0, 0, strtab_at, len(names), 0, 0, 1, 0))
    ident = b"\x7fELF" + bytes([elf_class, 1, 1]) + bytes(9)
    head = struct.pack("<16sHHIQQQIHHHHHH", ident, 2, 190, 1, 0, 0, shoff, 0, 64, 0, 0, 64, len(headers),
                       len(headers) - 1)
    return head + data + b"".join(headers)


def test_kernels_are_the_text_sections_with_their_sizes():
    blob = elf({".nv.info.alpha": 24, ".text.alpha": 256, ".nv.shared.alpha": 0, ".text.beta_kernel": 4096})
    assert cubin.kernels(blob) == {"alpha": 256, "beta_kernel": 4096}
    assert cubin.kernels(elf({".nv.info": 8})) == {}


@pytest.mark.parametrize("blob,match", [
    (b"", "not an ELF"), (b"MZ" + bytes(100), "not an ELF"),
    (elf({".text.k": 16}, elf_class=1), "ELF64 little-endian"),
    (elf({".text.k": 16})[:200], "section table does not fit"),
])
def test_malformed_cubins_are_named(blob, match):
    with pytest.raises(ValueError, match=match):
        cubin.kernels(blob)
    with pytest.raises(TypeError, match="cubin must be bytes"):
        cubin.kernels("not bytes")


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found")
def test_kernels_of_a_cubin_from_ptxas(tmp_path):
    body = "\n".join(f"    st.volatile.global.u32 [%a+{4 * i}], %r1;" for i in range(64))  # 64 stores stay
    ptx = f""".version 8.0
.target sm_90a
.address_size 64
.visible .entry small(.param .u64 p) {{ .reg .b64 %a; .reg .b32 %r1; ld.param.u64 %a, [p]; ld.global.u32 %r1, [%a];
    add.u32 %r1, %r1, 1; st.global.u32 [%a], %r1; ret; }}
.visible .entry large(.param .u64 p) {{ .reg .b64 %a; .reg .b32 %r1; ld.param.u64 %a, [p];
    ld.volatile.global.u32 %r1, [%a];
{body}
    st.global.u32 [%a], %r1; ret; }}
"""
    (tmp_path / "k.ptx").write_text(ptx)
    subprocess.run([find_ptxas(), "-arch=sm_90a", "-o", str(tmp_path / "k.cubin"), str(tmp_path / "k.ptx")],
                   check=True, capture_output=True)
    found = cubin.kernels((tmp_path / "k.cubin").read_bytes())
    assert set(found) == {"small", "large"} and 0 < found["small"] < found["large"]


def test_sass_names_the_missing_tools(monkeypatch):
    monkeypatch.setattr(cubin, "find_disassembler", lambda: None)
    with pytest.raises(cubin.DisassemblerNotFound, match="cuobjdump or nvdisasm"):
        cubin.sass(elf({".text.k": 16}))
    with pytest.raises(ValueError, match="not an ELF"):  # the input is checked before any tool is looked for
        cubin.sass(b"junk")


def _tool(tmp_path, code: str) -> list:
    script = tmp_path / "tool.py"
    script.write_text(code)
    return [sys.executable, str(script)]


def test_sass_runs_the_tool_on_the_cubin(tmp_path):
    blob = elf({".text.k": 16})
    tool = _tool(tmp_path, "import sys\ndata = open(sys.argv[1], 'rb').read()\n"
                           "print('Function : k', len(data))\n")
    assert cubin.sass(blob, tool).strip() == f"Function : k {len(blob)}"
    failing = _tool(tmp_path, "import sys\nsys.stderr.write('bad cubin')\nsys.exit(3)\n")
    with pytest.raises(RuntimeError, match=r"failed \(exit 3\): bad cubin"):
        cubin.sass(blob, failing)


@pytest.mark.skipif(cubin.find_disassembler() is None or find_ptxas() is None,
                    reason="no CUDA disassembler (cuobjdump / nvdisasm) or no ptxas on this machine")
def test_sass_of_a_ptxas_cubin(tmp_path):
    ptx = (".version 8.0\n.target sm_90a\n.address_size 64\n"
           ".visible .entry only_kernel() { ret; }\n")
    (tmp_path / "k.ptx").write_text(ptx)
    subprocess.run([find_ptxas(), "-arch=sm_90a", "-o", str(tmp_path / "k.cubin"), str(tmp_path / "k.ptx")],
                   check=True, capture_output=True)
    text = cubin.sass((tmp_path / "k.cubin").read_bytes())
    assert "only_kernel" in text and "EXIT" in text
