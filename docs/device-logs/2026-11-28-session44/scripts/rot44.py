"""Session 44: session 42's rot42.py (the next unit's prologue issued before the unit drain) on the half ring: writes
.probe/rot44.ptx and reports what ptxas says of it."""
import sys, re, subprocess
sys.path.insert(0, "tools"); sys.path.insert(0, ".")
import gen_grouped_gemm_cluster_ptx as G


def half_ring_all(text, n):
    """the half ring on a rotated loop: its A_UNIT top block appears twice (prologue and rotated prologue)"""
    if n <= G.HALF_LOOP_MAX:
        return text.replace(G._A_UNIT_TOP, G._HALF_TOP).replace(G._A_UNIT_END, G._HALF_END)
    return G.double_releases(text.replace(G._A_UNIT_TOP, G._FULL_TOP).replace(G._A_UNIT_END, G._FULL_END))


G.half_ring_loop = half_ring_all
from nvfp4rt.assemble import as_ptx_source
CONS = dict(CLUSTER=2, A_BUFS=4, A_UNIT=1, HEAD_CHECK=1, HEAD_WAIT=32768)
SUB0 = "    // ================================================================ k64 sub-step 0 of the stage\n"
END = "    @%p_more bra UNIT_LOOP;\n"
def rotated(loop, n, drain=True):
    """the next unit's prologue (stage wait, scale words, a16 bases, pieces 0-1's B words) issued before the drain at
    the end of a unit, so it overlaps the unit's last wgmmas; the back edge enters past the prologue"""
    i = loop.index(SUB0)
    pro, body = loop[:i], loop[i:]
    assert body.count(END) == 1
    body = body.replace(END, "")
    j = pro.index("C_FULL_OK:\n") + len("C_FULL_OK:\n")
    rest = pro[j:]
    pro_r = ("    // ---- ROTATED: the next unit's prologue while this unit's last wgmmas run, if its stage is full already\n"
             "    shl.b32 %tmp, %slot, 3;\n    add.u32 %bar, %sm_full, %tmp;\n"
             "    mov.pred %p_pro, %p_fok;\n"
             "    @!%p_pro mbarrier.test_wait.parity.shared::cta.b64 %p_pro, [%bar], %phase;\n"
             "    vote.sync.all.pred %p_pro, %p_pro, -1;   // the warp takes one path (shfl.sync below)\n"
             "    @!%p_pro bra PRO_SKIP;\n" + rest + "PRO_SKIP:\n")
    text = (pro + "UNIT_BODY:\n" + body + "    @!%p_more bra UNIT_EXIT;\n" + pro_r + G.UNIT_DRAIN
            + "    @%p_pro bra UNIT_BODY;\n    bra.uni UNIT_LOOP;\nUNIT_EXIT:\n" + G.UNIT_DRAIN)
    text = text.replace("m64n256k16", f"m64n{n}k16").replace(G.acc_list(G.ACC), G.acc_list(n // 2))
    for label in set(re.findall(r"^(\w+):", text, flags=re.M)):
        text = re.sub(rf"\b{label}\b", f"{label}_N{n}", text)
    return text
if __name__ == "__main__":
    G.unit_loop_variant = rotated
    t = G.generate()
    t = t.replace("    .reg .f32   %acc<128>;", "    .reg .pred  %p_pro;\n    .reg .f32   %acc<128>;")
    open(".probe/rot44.ptx", "w").write(t)
    src = as_ptx_source(t, "sm_90a", CONS)
    open("/tmp/rot.ptx", "w").write(src.text)
    r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", "/tmp/rot.ptx", "-o", "/tmp/rot.cubin"], capture_output=True, text=True)
    print(re.findall(r"C75\d\d|error.*|\d+ bytes spill stores|Used \d+ registers", r.stderr), len(t.splitlines()))
