"""Session 25 probe C: the decode prepass with every load of a thread's U items issued before any is used (one
memory latency per thread instead of U), so a small grid (1-2 CTAs of 128 threads per SM) decodes as fast as the
default 8 CTAs of 256, and leaves room for the GEMM's CTAs beside it from the start.  Exact: the same bytes."""
import re
from nvfp4rt.ptxsource import render

DEC_TEXT = open("ptx/nvfp4_decode_a16.ptx").read()
LOAD_END = "    ld.global.nc.u8 %sb1, [%sfp+1];\n"
STORE_END = "    st.global.v4.b32 [%dst], {%d0, %d1, %d2, %d3};\n"
TAIL = ("    add.u32 %item, %item, %stride;\n    setp.lt.u32 %p_done, %item, %items;\n    @%p_done bra ITEM_LOOP;\n")


def hoisted(grouped, U, maxnreg, keep_wait=True, threads=128):
    t = render(DEC_TEXT, "sm_90a", {"NORMAL_OPERANDS": 0, "GROUPED": int(grouped)})
    sh = {128: (5, 7), 256: (6, 8)}[threads]
    for old, new in (("shl.b32 %stride, %ncta, 6;", f"shl.b32 %stride, %ncta, {sh[0]};"),
                     ("shl.b32 %item, %cta, 8;", f"shl.b32 %item, %cta, {sh[1]};")):
        assert t.count(old) == 1
        t = t.replace(old, new, 1)
    assert t.count(".minnctapersm 8\n") == 1
    t = t.replace(".minnctapersm 8\n", f".maxnreg {maxnreg}\n", 1)
    i = t.index("ITEM_LOOP:\n")
    j = t.index(LOAD_END, i) + len(LOAD_END)
    k = t.index(STORE_END, j) + len(STORE_END)
    assert t[k:k + len(TAIL)] == TAIL
    load, comp = t[i + len("ITEM_LOOP:\n"):j], t[j:k]
    assert "G_FIND" in load or not grouped
    out = ["ITEM_LOOP:\n    mov.u32 %it0, %item;\n"]
    for u in range(U):
        lu = load.replace("G_FIND", f"G_FIND_{u}")
        for w in range(4):
            lu = lu.replace(f"%aw{w}", f"%hw{4 * u + w}")
        lu = lu.replace("%sb0", f"%hs{2 * u}").replace("%sb1", f"%hs{2 * u + 1}")
        out.append(f"    setp.lt.u32 %hp{u}, %item, %items;\n    @!%hp{u} bra HL_{u};\n{lu}HL_{u}:\n"
                   "    add.u32 %item, %item, %stride;\n")
    out.append("    mov.u32 %item, %it0;\n")
    for u in range(U):
        cu = comp
        for w in range(4):
            cu = cu.replace(f"%aw{w}", f"%hw{4 * u + w}")
        cu = cu.replace("%sb0", f"%hs{2 * u}").replace("%sb1", f"%hs{2 * u + 1}")
        out.append(f"    @!%hp{u} bra HC_{u};\n{cu}HC_{u}:\n    add.u32 %item, %item, %stride;\n")
    out.append("    setp.lt.u32 %p_done, %item, %items;\n    @%p_done bra ITEM_LOOP;\n")
    t = t[:i] + "".join(out) + t[k + len(TAIL):]
    decl = "    .reg .pred  %p_done;\n"
    assert t.count(decl) == 1
    t = t.replace(decl, decl + f"    .reg .b32   %hw<{4 * U}>, %it0;\n    .reg .b16   %hs<{2 * U}>;\n    .reg .pred  %hp<{U}>;\n", 1)
    if not keep_wait:
        t = t.replace("    griddepcontrol.wait;\n", "", 1)
    return t
