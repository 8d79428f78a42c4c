"""Apply the K-split push epilogue to ptx/gemm_nvfp4_wgmma_cluster.ptx (exact, asserted replacements)."""
import sys
path = sys.argv[1] if len(sys.argv) > 1 else "ptx/gemm_nvfp4_wgmma_cluster.ptx"
t = open(path).read()


def rep(old, new, count=1):
    global t
    n = t.count(old)
    assert n == count, (n, old[:80])
    t = t.replace(old, new)


def peers(body):
    """body(p) for every possible peer rank p, under the KSPLIT guards of the file."""
    out = []
    for lo, hi, guard in ((0, 2, None), (2, 4, "// {{if KSPLIT >= 4}}\n"), (4, 8, "// {{if KSPLIT >= 8}}\n")):
        if guard:
            out.append(guard)
        for p in range(lo, hi):
            out.append(body(p))
        if guard:
            out.append("// {{endif}}\n")
    return "".join(out)


SLOT = "128/{{KSPLIT}}*{{KS_PITCH}}"

# registers
rep("    .reg .pred  %p_c0, %p_c1, %p_x, %p_empty;                                    // KS_STREAM\n",
    "    .reg .pred  %p_c0, %p_c1, %p_x, %p_empty;                                    // KS_STREAM\n"
    "    .reg .b32   %sm_ks, %sm_recv;                                                // KS_PUSH\n"
    "    .reg .pred  %p_ks0, %p_peer, %p_hi;\n")

# carve-up
rep("    add.u32 %sm_flag, %sm_aempty, {{A_BUFS}}*8;\n",
    "    add.u32 %sm_flag, %sm_aempty, {{A_BUFS}}*8;\n"
    "// {{if KS_PUSH}}\n"
    "    add.u32 %sm_ks, %sm_flag, 16;             // the K split's FREE, RECV and DONE barriers\n"
    "    add.u32 %sm_recv, %sm, 128*{{KS_PITCH}};  // the peers' partials of my rows land here, after my parked P\n"
    "// {{endif}}\n")

# barrier init + split phase-1 cluster barrier
rep("    fence.mbarrier_init.release.cluster;      // the inits are visible to the copy engine and to the peers\n"
    "INIT_DONE:\n"
    "    barrier.cluster.arrive.release;           // every CTA of the cluster: barriers ready\n"
    "    barrier.cluster.wait.acquire;\n",
    "// {{if KS_PUSH}}\n"
    "    mbarrier.init.shared::cta.b64 [%sm_ks], {{KSPLIT}}-1;     // FREE: one arrive per peer (its rings are drained)\n"
    "    mbarrier.init.shared::cta.b64 [%sm_ks+8], 1;              // RECV: my expect_tx + the peers' bulk copies\n"
    "    mbarrier.init.shared::cta.b64 [%sm_ks+16], {{KSPLIT}}-1;  // DONE: one arrive per peer (it has my P rows)\n"
    "// {{endif}}\n"
    "    fence.mbarrier_init.release.cluster;      // the inits are visible to the copy engine and to the peers\n"
    "INIT_DONE:\n"
    "// {{if KS_PUSH}}\n"
    "    barrier.cluster.arrive.release;           // phase 1: arrive now, wait only before the first remote access (the\n"
    "    bar.sync 0;                               // K split's exchange); this CTA's threads see the inits at once\n"
    "// {{else}}\n"
    "    barrier.cluster.arrive.release;           // every CTA of the cluster: barriers ready\n"
    "    barrier.cluster.wait.acquire;\n"
    "// {{endif}}\n")

# KSPLIT_REDUCE: free my rings to the peers, expect their rows
rep("KSPLIT_REDUCE:\n"
    "    bar.sync 1, {{CONSUMERS}};                // every consumer is past its last wgmma and B read: the rings are free\n",
    "KSPLIT_REDUCE:\n"
    "    bar.sync 1, {{CONSUMERS}};                // every consumer is past its last wgmma and B read: the rings are free\n"
    "// {{if KS_PUSH}}\n"
    "    barrier.cluster.wait.acquire;             // phase 1: every peer's barriers are initialised\n"
    "    setp.eq.u32 %p_ks0, %ct, 0;\n"
    "    @!%p_ks0 bra KSP_FREED;\n"
    + peers(lambda p: f"    setp.ne.u32 %p_peer, %krank, {p};\n"
                      f"    mapa.shared::cluster.u32 %addr, %sm_ks, {p};\n"
                      f"    @%p_peer mbarrier.arrive.shared::cluster.b64 _, [%addr];  // peer {p}'s FREE: my rings are free\n")
    + "    mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%sm_ks+8], ({{KSPLIT}}-1)*" + SLOT + ";\n"
    "KSP_FREED:\n"
    "// {{endif}}\n")

# after parking: push instead of the cluster barrier
rep("    barrier.cluster.arrive.release;           // every CTA's partial is in place (the producers arrive at EXIT)\n"
    "    barrier.cluster.wait.acquire;\n",
    "// {{if KS_PUSH}}\n"
    "    // push: thread 0 copies the rows of P that peer p stores into p's receive area, slot krank - (krank > p),\n"
    "    // once p's rings are free (cp.async.bulk smem -> peer smem, complete_tx on p's RECV); everyone then waits\n"
    "    // for the peers' copies into this CTA and thread 0 tells each peer that its rows arrived (its DONE)\n"
    "    fence.proxy.async.shared::cta;            // the parked P (generic stores) is visible to the bulk copies\n"
    "    bar.sync 1, {{CONSUMERS}};\n"
    "    @!%p_ks0 bra KSP_SENT;\n"
    "KSP_WAIT_FREE:\n"
    "    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%sm_ks], 0;\n"
    "    @!%p_ready bra KSP_WAIT_FREE;\n"
    + peers(lambda p: f"    setp.ne.u32 %p_peer, %krank, {p};\n"
                      f"    setp.gt.u32 %p_hi, %krank, {p};\n"
                      f"    selp.u32 %tmp, 1, 0, %p_hi;\n"
                      f"    sub.u32 %tmp, %krank, %tmp;\n"
                      f"    mad.lo.u32 %tmp, %tmp, {SLOT}, %sm_recv;\n"
                      f"    mapa.shared::cluster.u32 %addr, %tmp, {p};    // my slot in peer {p}\n"
                      f"    add.u32 %tmp, %sm_ks, 8;\n"
                      f"    mapa.shared::cluster.u32 %rbar, %tmp, {p};    // its RECV\n"
                      f"    add.u32 %tmp2, %sm, {p}*{SLOT};            // the rows of P that peer {p} stores\n"
                      f"    @%p_peer cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%addr], [%tmp2], {SLOT}, [%rbar];\n")
    + "KSP_SENT:\n"
    "    add.u32 %bar, %sm_ks, 8;\n"
    "KSP_WAIT_RECV:\n"
    "    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], 0;\n"
    "    @!%p_ready bra KSP_WAIT_RECV;\n"
    "    @!%p_ks0 bra KSP_ACKED;\n"
    + peers(lambda p: f"    setp.ne.u32 %p_peer, %krank, {p};\n"
                      f"    add.u32 %tmp, %sm_ks, 16;\n"
                      f"    mapa.shared::cluster.u32 %addr, %tmp, {p};\n"
                      f"    @%p_peer mbarrier.arrive.shared::cluster.b64 _, [%addr];  // peer {p}'s DONE: its rows arrived\n")
    + "KSP_ACKED:\n"
    "// {{else}}\n"
    "    barrier.cluster.arrive.release;           // every CTA's partial is in place (the producers arrive at EXIT)\n"
    "    barrier.cluster.wait.acquire;\n"
    "// {{endif}}\n")

# the partials' addresses: local (own P or a receive slot) instead of mapa
old_mapa = ("    mapa.shared::cluster.u32 %pr0, %sm, 0;    // P of each CTA of the cluster, in rank order\n"
            "    mapa.shared::cluster.u32 %pr1, %sm, 1;\n"
            "// {{if KSPLIT >= 4}}\n"
            "    mapa.shared::cluster.u32 %pr2, %sm, 2;\n"
            "    mapa.shared::cluster.u32 %pr3, %sm, 3;\n"
            "// {{endif}}\n"
            "// {{if KSPLIT >= 8}}\n"
            "    mapa.shared::cluster.u32 %pr4, %sm, 4;\n"
            "    mapa.shared::cluster.u32 %pr5, %sm, 5;\n"
            "    mapa.shared::cluster.u32 %pr6, %sm, 6;\n"
            "    mapa.shared::cluster.u32 %pr7, %sm, 7;\n"
            "// {{endif}}\n")
rep(old_mapa,
    "// {{if KS_PUSH}}\n"
    "    // rank s's partial of my rows, in this CTA: my own P, or receive slot s - (s > krank), based so that\n"
    "    // + row * KS_PITCH (row of the tile, my rows start at krank * 128/KSPLIT) lands on it\n"
    "    mul.lo.u32 %tmp2, %krank, " + SLOT + ";\n"
    "    sub.u32 %tmp2, %sm_recv, %tmp2;\n"
    + peers(lambda p: f"    setp.gt.u32 %p_hi, %krank, {p};\n"
                      f"    selp.u32 %tmp, {p}, {max(p - 1, 0)}, %p_hi;\n"
                      f"    mad.lo.u32 %pr{p}, %tmp, {SLOT}, %tmp2;\n"
                      f"    setp.eq.u32 %p_peer, %krank, {p};\n"
                      f"    selp.b32 %pr{p}, %sm, %pr{p}, %p_peer;\n")
    + "// {{else}}\n" + old_mapa + "// {{endif}}\n")

# loads: local ld.shared in push builds
import re
pat = re.compile(r"(    ld\.shared::cluster\.v4\.f32 (\{[^}]*\}), \[%addr\];\n    ld\.shared::cluster\.v4\.f32 (\{[^}]*\}), \[%addr\+8\*\{\{KS_PITCH\}\}\];\n)")
n = len(pat.findall(t))
assert n == 8, n
t = pat.sub(lambda m: ("// {{if KS_PUSH}}\n"
                       f"    ld.shared.v4.f32 {m.group(2)}, [%addr];\n"
                       f"    ld.shared.v4.f32 {m.group(3)}, [%addr+8*{{{{KS_PITCH}}}}];\n"
                       "// {{else}}\n" + m.group(1) + "// {{endif}}\n"), t)

# end of the K split: thread 0 keeps the CTA alive until every peer has its rows; no cluster barrier
rep("    bra.uni EXIT;                             // its cluster barrier keeps P alive until every peer has read it\n",
    "// {{if KS_PUSH}}\n"
    "    @!%p_ks0 bra KSP_EXIT;                    // thread 0 keeps the CTA, and the P its copies read, alive until\n"
    "    add.u32 %bar, %sm_ks, 16;                 // every peer has its rows (DONE)\n"
    "KSP_WAIT_DONE:\n"
    "    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], 0;\n"
    "    @!%p_ready bra KSP_WAIT_DONE;\n"
    "KSP_EXIT:\n"
    "    ret;\n"
    "// {{else}}\n"
    "    bra.uni EXIT;                             // its cluster barrier keeps P alive until every peer has read it\n"
    "// {{endif}}\n")

# EXIT: the producers (and consumers without a unit) complete phase 1 only
rep("EXIT:\n"
    "    // every thread of every CTA of the cluster: no peer still multicasts into, or arrives on, this CTA's memory\n"
    "    barrier.cluster.arrive.release;\n"
    "    barrier.cluster.wait.acquire;\n"
    "    ret;\n",
    "EXIT:\n"
    "// {{if KS_PUSH}}\n"
    "    barrier.cluster.wait.acquire;             // phase 1 (arrived at INIT_DONE); no peer touches the rings\n"
    "    ret;\n"
    "// {{else}}\n"
    "    // every thread of every CTA of the cluster: no peer still multicasts into, or arrives on, this CTA's memory\n"
    "    barrier.cluster.arrive.release;\n"
    "    barrier.cluster.wait.acquire;\n"
    "    ret;\n"
    "// {{endif}}\n")
open(path, "w").write(t)
print("patched", path)
