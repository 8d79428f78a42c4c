"""Session 32: loop sets where an N > 128 loop issues each k16 step as two wgmmas that share the A fragments:
m64n128k16 on accumulators 0..63 (A16 rows 0..127) and m64n{N-128}k16 on accumulators 64..N/2-1 (rows 128..N-1, whose
128B-swizzled rows start 16 KB further: descriptor + 1024).  No wgmma then needs more than 64 accumulators."""
import re
import sys
sys.path.insert(0, 'tools')  # from the repository root
import gen_grouped_gemm_cluster_ptx as g

SETUP, LOOP, POST = g.split_main_loop()
WG = re.compile(r"(    wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.f16\.f16\n        \{([^}]*)\},\n"
                r"        (\{[^}]*\}), %desc, %p_acc, 1, 1, 0;\n)")


def split_loop(n):
    text = g.unit_loop_variant(LOOP, n)
    if n <= 128:
        return text

    def rep(mo):
        frag = mo.group(4)
        lo = ", ".join(f"%acc{i}" for i in range(64))
        hi = ", ".join(f"%acc{i}" for i in range(64, n // 2))
        return (f"    wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16\n        {{{lo}}},\n"
                f"        {frag}, %desc, %p_acc, 1, 1, 0;\n"
                f"    add.s64 %desc2, %desc, 1024;              // A16 rows 128.. (16 KB further)\n"
                f"    wgmma.mma_async.sync.aligned.m64n{n - 128}k16.f32.f16.f16\n        {{{hi}}},\n"
                f"        {frag}, %desc2, %p_acc, 1, 1, 0;\n")
    out, k = WG.subn(rep, text)
    assert k == 16, k
    return out


def text(variants, copy256_as_128=False):
    body = ""
    for n in variants:
        body += split_loop(n) + "    bra.uni SEG_DONE;\n"
    body += "SEG_DONE:\n"
    full = (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + SETUP
            + g.seg_loop(variants) + body + POST + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
    anchor = "    .reg .b64   %desc,"
    assert full.count(anchor) == 1
    return full.replace(anchor, "    .reg .b64   %desc2;\n" + anchor)


def g11_text():
    """The N = 128 loop and a copy of it in the N = 256 slot (m64n128k16 on accumulators 0..63): the layout of a
    two-loop build without any 128-accumulator wgmma (timing of the N = 128 loop only; the copy is never run here)."""
    body = g.unit_loop_variant(LOOP, 128) + "    bra.uni SEG_DONE;\n"
    copy = g.unit_loop_variant(LOOP, 256).replace("m64n256k16", "m64n128k16").replace(g.acc_list(128), g.acc_list(64))
    body += copy + "    bra.uni SEG_DONE;\nSEG_DONE:\n"
    return (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + SETUP
            + g.seg_loop((128, 256)) + body + POST + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
