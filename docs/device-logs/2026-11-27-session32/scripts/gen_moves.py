"""Session 32: loop sets where each loop of N <= 128 accumulates into its own registers (%as0..) and its A fragments
are renamed per loop; after a wait_group 0 at the loop's exit the results move into %acc0..N/2-1, where the post-loop
code reads them.  So no register of a small loop need sit beside the N > 128 loops' 128 accumulators."""
import re
import sys
sys.path.insert(0, 'tools')  # from the repository root
import gen_grouped_gemm_cluster_ptx as g

SETUP, LOOP, POST = g.split_main_loop()
FRAGS = [f"%{s}{h}{i}" for s in "xyzw" for h in "ab" for i in range(4)]


def small_loop(n):
    text = g.unit_loop_variant(LOOP, n)
    accs = g.acc_list(n // 2)
    mine = "{" + ", ".join(f"%as{n}_{i}" for i in range(n // 2)) + "}"
    assert text.count(accs) == 16
    text = text.replace(accs, mine)
    for r in FRAGS:
        text = re.sub(re.escape(r) + r"\b", f"{r}_n{n}", text)
    decl = ("    .reg .f32 " + ", ".join(f"%as{n}_{i}" for i in range(n // 2)) + ";\n"
            + "    .reg .b32 " + ", ".join(f"{r}_n{n}" for r in FRAGS) + ";\n")
    text += "    wgmma.wait_group.sync.aligned 0;\n" + "".join(f"    mov.f32 %acc{i}, %as{n}_{i};\n" for i in range(n // 2))
    return decl, text


def text(variants):
    decls, body = "", ""
    for n in variants:
        if n <= 128:
            d, t = small_loop(n)
            decls += d
        else:
            t = g.unit_loop_variant(LOOP, n)
        body += t + "    bra.uni SEG_DONE;\n"
    body += "SEG_DONE:\n"
    full = (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + SETUP
            + g.seg_loop(variants) + body + POST + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
    anchor = "    .reg .f32   %acc<128>;\n"
    assert full.count(anchor) == 1
    return full.replace(anchor, anchor + decls)
