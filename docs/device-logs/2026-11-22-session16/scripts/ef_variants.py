"""Session 16: GEMV with an L2 evict-first policy on the streamed A / sfa loads (text variants)."""
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "ptx" / "gemv_nvfp4.ptx"
A_LD = re.compile(r"ld\.global\.nc\.L1::no_allocate\.v4\.b32 (\{[^}]*\}), \[%ld_a\];")
SFA_LD = re.compile(r"ld\.global\.nc\.u16 (%\w+), \[%ld_sfa\];")
DECL = "    .reg .b64   %a, %sfa,"

def variant(name: str, text: str | None = None) -> str:
    t = SRC.read_text() if text is None else text
    if name == "base":
        return t
    t = t.replace(DECL, "    .reg .b64   %pol_ef;\n" + DECL, 1)
    # the policy is made once, before the first load (right after the register declarations block)
    first = t.index("    // ------------------------------------------------------------------ load cursor")
    t = t[:first] + "    createpolicy.fractional.L2::evict_first.b64 %pol_ef, 1.0;\n" + t[first:]
    n_a = len(A_LD.findall(t))
    t = A_LD.sub(r"ld.global.nc.L1::no_allocate.L2::cache_hint.v4.b32 \1, [%ld_a], %pol_ef;", t)
    if name == "ef_a_sfa":
        t = SFA_LD.sub(r"ld.global.nc.L2::cache_hint.u16 \1, [%ld_sfa], %pol_ef;", t)
    assert n_a >= 6, n_a
    return t

if __name__ == "__main__":
    import sys
    for nm in ("ef_a", "ef_a_sfa"):
        Path(f"/tmp/gemv_{nm}.ptx").write_text(variant(nm))
        print(nm, "written")
