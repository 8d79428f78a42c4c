"""PTX source text: light templating and ``.entry`` signature parsing.

Templating: a ``.ptx`` file may use ``{{NAME}}`` placeholders, and whole-line
conditionals ``// {{if NAME}}`` / ``// {{else}}`` / ``// {{endif}}`` (PTX has no
preprocessor; a section is kept when NAME's value is non-zero, or for
``{{if NAME >= 89}}`` style comparisons with an integer, when that holds).  Conditional
lines and dropped sections become empty lines, so line numbers in ptxas and JIT
logs still point into the file as written.  The runtime always
provides ``PTX_VERSION`` (e.g. ``8.7``), ``TARGET`` (e.g. ``sm_90a``) and ``SM``
(e.g. ``90``); callers add named constants (tile sizes and the like).  ``.version`` / ``.target`` lines
may also be written as ``.version {{PTX_VERSION}}`` / ``.target {{TARGET}}``.
The rendered text is what gets hashed, assembled and JIT-linked.

Signatures: every ``.entry`` parameter list is parsed into :class:`Param`
records (name, PTX type, size, alignment, by-value byte arrays such as a
128-byte ``CUtensorMap``) so that launches can pack arguments and check them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Param", "EntrySignature", "PtxSource", "render", "parse_entries", "PtxTemplateError", "DEFAULT_PTX_VERSION"]

#: The PTX ISA version written into templates when the caller gives none.
#: 8.7 is accepted by CUDA 12.8+ drivers and ptxas and has every sm_90a feature we use.
DEFAULT_PTX_VERSION = "8.7"

_SCALAR_SIZES = {
    "b8": 1, "u8": 1, "s8": 1,
    "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2,
    "b32": 4, "u32": 4, "s32": 4, "f32": 4,
    "b64": 8, "u64": 8, "s64": 8, "f64": 8,
}


class PtxTemplateError(ValueError):
    """A template placeholder has no value, or a value is malformed."""


@dataclass(frozen=True)
class Param:
    """One kernel parameter as declared in ``.param``.

    ``ptx_type`` is e.g. ``u64`` or ``f32``; ``count`` is the array length for
    ``.b8 name[128]`` style by-value arrays (1 for scalars).
    """

    name: str
    ptx_type: str
    count: int = 1
    align: int | None = None
    is_pointer_hint: bool = False  # declared with .ptr (state space attribute)

    @property
    def elem_size(self) -> int:
        return _SCALAR_SIZES[self.ptx_type]

    @property
    def size(self) -> int:
        return self.elem_size * self.count

    @property
    def alignment(self) -> int:
        return self.align or self.elem_size

    @property
    def is_array(self) -> bool:
        return self.count > 1

    @property
    def kind(self) -> str:
        """'float', 'signed', 'unsigned', 'bits' or 'bytes' (a by-value array)."""
        if self.is_array:
            return "bytes"
        t = self.ptx_type[0]
        return {"f": "float", "s": "signed", "u": "unsigned", "b": "bits"}[t]


@dataclass(frozen=True)
class EntrySignature:
    name: str
    params: tuple[Param, ...]
    line: int  # 1-based line of the .entry directive in the rendered text

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"kernel {self.name} has no parameter {name!r}; it has {[p.name for p in self.params]}")


_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def render(text: str, target: str, constants: dict | None = None, ptx_version: str = DEFAULT_PTX_VERSION) -> str:
    """Fill ``{{NAME}}`` placeholders; ``TARGET`` and ``PTX_VERSION`` are always defined.

    Raises :class:`PtxTemplateError` naming the placeholder and its line when a
    value is missing, and when a value is not an int, float, bool or a plain token.
    """
    sm = re.match(r"(?:sm|compute)_(\d+)", target)
    values: dict[str, str] = {"TARGET": target, "PTX_VERSION": ptx_version, "SM": sm.group(1) if sm else "0"}
    for key, val in (constants or {}).items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(key)):
            raise PtxTemplateError(f"template constant name {key!r} is not an identifier")
        if isinstance(val, bool):
            val = int(val)
        if isinstance(val, (int, float)):
            values[key] = repr(val)
        elif isinstance(val, str) and re.fullmatch(r"[A-Za-z0-9_.+\-]+", val):
            values[key] = val
        else:
            raise PtxTemplateError(f"template constant {key}={val!r}: expected an int, float or a plain token")

    def sub(m: re.Match) -> str:
        key = m.group(1)
        if key not in values:
            line = text.count("\n", 0, m.start()) + 1
            raise PtxTemplateError(f"template placeholder {{{{{key}}}}} on line {line} has no value")
        return values[key]

    return _PLACEHOLDER.sub(sub, _apply_conditionals(text, values))


_CONDITIONAL = re.compile(
    r"^\s*(?://\s*)?\{\{\s*(if\s+([A-Za-z_][A-Za-z0-9_]*)(?:\s*(>=|<=|==|!=|<|>)\s*(-?\d+))?|else|endif)\s*\}\}\s*$"
)
_COMPARE = {">=": int.__ge__, "<=": int.__le__, "==": int.__eq__, "!=": int.__ne__, "<": int.__lt__, ">": int.__gt__}


def _apply_conditionals(text: str, values: dict[str, str]) -> str:
    out: list[str] = []
    stack: list[tuple[bool, bool, int]] = []  # (parent_active, this_branch_active, line)
    active = True
    for lineno, line in enumerate(text.split("\n"), 1):
        m = _CONDITIONAL.match(line)
        if not m:
            out.append(line if active else "")
            continue
        out.append("")
        word = m.group(1).split()[0]
        if word == "if":
            name = m.group(2)
            if name not in values:
                raise PtxTemplateError(f"template conditional {{{{if {name}}}}} on line {lineno} has no value")
            if m.group(3):
                try:
                    cond = _COMPARE[m.group(3)](int(values[name]), int(m.group(4)))
                except ValueError:
                    raise PtxTemplateError(f"template conditional on line {lineno}: {name}={values[name]!r} is not an int") from None
            else:
                cond = values[name] not in ("0", "0.0", "False", "false", "")
            stack.append((active, cond, lineno))
            active = active and cond
        elif word == "else":
            if not stack:
                raise PtxTemplateError(f"{{{{else}}}} without {{{{if}}}} on line {lineno}")
            parent, cond, start = stack[-1]
            stack[-1] = (parent, not cond, start)
            active = parent and not cond
        else:
            if not stack:
                raise PtxTemplateError(f"{{{{endif}}}} without {{{{if}}}} on line {lineno}")
            active = stack.pop()[0]
    if stack:
        raise PtxTemplateError(f"{{{{if}}}} on line {stack[-1][2]} has no {{{{endif}}}}")
    return "\n".join(out)


_COMMENT_BLOCK = re.compile(r"/\*.*?\*/", re.S)
_COMMENT_LINE = re.compile(r"//[^\n]*")
_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)", re.S)
_PARAM = re.compile(
    r"\.param\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+(?:\.ptr\s+(?:\.\w+\s+)*(?:\.align\s+\d+\s+)?)?([A-Za-z_$][\w$]*)\s*(?:\[\s*(\d+)\s*\])?\s*$"
)


def _strip_comments(text: str) -> str:
    # keep line numbers: replace block comments by the same number of newlines
    text = _COMMENT_BLOCK.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return _COMMENT_LINE.sub("", text)


def parse_entries(text: str) -> dict[str, EntrySignature]:
    """Every ``.entry`` in rendered PTX text, by name, in source order."""
    clean = _strip_comments(text)
    out: dict[str, EntrySignature] = {}
    for m in _ENTRY.finditer(clean):
        name, plist = m.group(1), m.group(2)
        params = []
        for raw in (p.strip() for p in plist.split(",")):
            if not raw:
                continue
            pm = _PARAM.match(" ".join(raw.split()))
            if not pm:
                raise ValueError(f"cannot parse parameter {raw!r} of .entry {name}")
            align, ptype, pname, count = pm.groups()
            if ptype not in _SCALAR_SIZES:
                raise ValueError(f"parameter {pname} of .entry {name} has unsupported type .{ptype}")
            params.append(Param(pname, ptype, int(count) if count else 1, int(align) if align else None, ".ptr" in raw))
        out[name] = EntrySignature(name, tuple(params), clean.count("\n", 0, m.start()) + 1)
    return out


@dataclass(frozen=True)
class PtxSource:
    """Rendered PTX with the name it came from (a file path or ``<string>``)."""

    text: str
    origin: str = "<string>"

    @classmethod
    def from_file(cls, path: str | Path, target: str, constants: dict | None = None,
                  ptx_version: str = DEFAULT_PTX_VERSION) -> "PtxSource":
        path = Path(path)
        return cls(render(path.read_text(), target, constants, ptx_version), str(path))

    @classmethod
    def from_string(cls, text: str, target: str, constants: dict | None = None,
                    ptx_version: str = DEFAULT_PTX_VERSION, origin: str = "<string>") -> "PtxSource":
        return cls(render(text, target, constants, ptx_version), origin)

    @property
    def entries(self) -> dict[str, EntrySignature]:
        return parse_entries(self.text)

    def declared_target(self) -> str | None:
        m = re.search(r"^\s*\.target\s+([\w]+)", self.text, re.M)
        return m.group(1) if m else None

    def source_line(self, line: int) -> str:
        lines = self.text.splitlines()
        return lines[line - 1] if 1 <= line <= len(lines) else ""


def ptx_dir() -> Path:
    """Where the built-in ``.ptx`` files are: the checkout's ``ptx/`` or the installed package data."""
    here = Path(__file__).resolve().parent
    checkout = here.parent / "ptx"
    if checkout.is_dir() and any(checkout.glob("*.ptx")):
        return checkout
    from importlib.resources import files

    return Path(str(files("nvfp4rt._ptx")))
