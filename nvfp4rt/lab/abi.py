"""Ops with several built-in kernels, each its own ABI: which one does a user's kernel follow?

An op like gemm has one built-in kernel per variant (``mma``: ``ptx/gemm_nvfp4_mma.ptx``,
``wgmma``: ``ptx/gemm_nvfp4_wgmma.ptx``), and their ``.entry`` parameter lists differ (plain
pointers and strides against TMA tensor maps).  A user's kernel follows the ABI whose parameter
list it repeats exactly (names, types, array sizes, in order); that variant's plan then launches
it.  The built-in lists are read from the files at run time (rendered for the target with the
constants of their ``// nvfp4rt:`` header), so the check follows the kernels when they change.

Everything here is pure text work: it runs on a machine without a GPU.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .core import LabError, abi_differences

__all__ = ["BuiltinAbi", "builtin_signature", "match_abi", "param_list"]


@dataclass(frozen=True)
class BuiltinAbi:
    """One variant's ABI: the built-in file and entry that define it."""

    variant: str
    path: Path
    entry: str

    def describe(self) -> str:
        return f"{self.variant} ({self.path.name}::{self.entry})"


def builtin_signature(abi: BuiltinAbi, target: str = "sm_90a"):
    """The built-in entry's signature, rendered for ``target`` with its header's constants."""
    from ..assemble import declared_variants
    from ..ptxsource import PtxSource

    consts: dict = {}
    variants = declared_variants(abi.path)
    chosen = next((v for v in variants if v.target == target), variants[0] if variants else None)
    if chosen is not None:
        consts = dict(chosen.constants)
        target = chosen.target
    return PtxSource.from_file(abi.path, target, consts or None).entries[abi.entry]


def param_list(signature) -> str:
    """The parameters one per line, as the .entry declares them (``.u64 p_a``, ``.b8 tmap_a[128]``)."""
    return "\n".join(f".{p.ptx_type} {p.name}" + (f"[{p.count}]" if p.is_array else "") for p in signature.params)


def match_abi(op: str, signature, abis: list[BuiltinAbi]) -> BuiltinAbi:
    """The ABI whose parameter list ``signature`` repeats exactly, else LabError (``abi_error``).

    The error lists the differences from every ABI, the closest first, so a typo in one
    parameter reads as such rather than as "not the other variant either".
    """
    if not abis:
        raise LabError(f"no built-in {op} kernel is available to take its ABI from", status="abi_error")
    diffs = []
    for abi in abis:
        problems = abi_differences(builtin_signature(abi), signature)
        if not problems:
            return abi
        diffs.append((len(problems), abi, problems))
    diffs.sort(key=lambda d: d[0])
    lines = [f"{signature.name} follows none of the {op} kernel ABIs "
             f"({', '.join(a.describe() for a in abis)}):"]
    for _, abi, problems in diffs:
        lines.append(f"  against {abi.describe()}:")
        lines += [f"    {p}" for p in problems]
    lines.append("  (docs/lab.md lists the parameters, tensor maps and launch geometry of each)")
    raise LabError("\n".join(lines), status="abi_error")
