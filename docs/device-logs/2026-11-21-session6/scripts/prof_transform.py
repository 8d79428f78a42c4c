"""Instrument a generated grouped cluster kernel with %clock counters (experiment only).

nvfp4_prof[0..]: u64 sums over threads: consumer total, B-full wait, A16-full wait, wgmma.wait_group,
epilogue (SEG_DONE -> next segment), consumer threads; B producer: total, empty wait, count; A producer:
total (after griddepcontrol.wait), empty wait, griddepcontrol.wait, count."""
import re

SLOTS = dict(c_tot=0, c_bwait=1, c_await=2, c_gwait=3, c_epi=4, c_n=5, b_tot=6, b_wait=7, b_n=8,
             a_tot=9, a_wait=10, a_pdl=11, a_n=12, c_issue=13, e_part=14, e_red=15, e_store=16)


def red(slot, reg):
    return f"    cvt.u64.u32 %pq, {reg};\n    red.global.add.u64 [nvfp4_prof+{8 * SLOTS[slot]}], %pq;\n"


def acc(reg, start="%pc0"):
    return f"    mov.u32 %pc1, %clock;\n    sub.u32 %pc1, %pc1, {start};\n    add.u32 {reg}, {reg}, %pc1;\n"


def transform(t: str) -> str:
    t = t.replace(".address_size 64\n", ".address_size 64\n\n.global .align 8 .u64 nvfp4_prof[20];\n", 1)
    first_pred = re.search(r"^\s*\.reg \.pred .*\n", t, flags=re.M)
    t = t[:first_pred.end()] + ("    .reg .b32 %pc0, %pc1, %pe0, %pf_t0, %pf_b, %pf_a, %pf_g, %pf_e, %pf_pw, %pf_pt, %pi0, %pf_i, %ps1, %pf_part, %pf_red, %pf_st;\n"
                                "    .reg .u64 %pq;\n") + t[first_pred.end():]
    # consumer start / exit
    anchor = "    mov.u32 %grp, 0;                          // the group of unit u (u only grows: so does grp)\n"
    assert t.count(anchor) == 1
    t = t.replace(anchor, "    mov.u32 %pf_i, 0;\n    mov.u32 %pf_part, 0;\n    mov.u32 %pf_red, 0;\n    mov.u32 %pf_st, 0;\n    mov.u32 %pf_b, 0;\n    mov.u32 %pf_a, 0;\n    mov.u32 %pf_g, 0;\n    mov.u32 %pf_e, 0;\n"
                  "    mov.u32 %pf_t0, %clock;\n" + anchor)
    seg = "SEG_LOOP:\n    setp.ge.u32 %p_more, %u, %u_end;\n    @%p_more bra EXIT;\n"
    assert t.count(seg) == 1
    t = t.replace(seg, "SEG_LOOP:\n    setp.ge.u32 %p_more, %u, %u_end;\n    @%p_more bra PROF_C_DUMP;\n")
    dump_c = ("PROF_C_DUMP:\n" + acc("%pf_t0", "%pf_t0").replace("add.u32 %pf_t0, %pf_t0, %pc1", "mov.u32 %pf_t0, %pc1")
              + red("c_tot", "%pf_t0") + red("c_bwait", "%pf_b") + red("c_await", "%pf_a") + red("c_gwait", "%pf_g")
              + red("c_epi", "%pf_e") + red("c_issue", "%pf_i") + red("e_part", "%pf_part") + red("e_red", "%pf_red") + red("e_store", "%pf_st") + "    mov.u32 %pc1, 1;\n" + red("c_n", "%pc1") + "    bra.uni EXIT;\n\n")
    t = t.replace("PRODUCERS:\n", dump_c + "PRODUCERS:\n", 1)
    # spins
    def spin(label_re, reg):
        nonlocal t
        for lab in sorted(set(re.findall(rf"^({label_re}):", t, flags=re.M))):
            pat = f"{lab}:\n"
            assert t.count(pat) == 1, lab
            t = t.replace(pat, f"    mov.u32 %pc0, %clock;\n{pat}")
            br = f"    @!%p_ready bra {lab};\n"
            assert t.count(br) == 1, lab
            t = t.replace(br, br + acc(reg))
    spin(r"C_WAIT_FULL_N\d+", "%pf_b")
    spin(r"C_WAIT_A\d_N\d+", "%pf_a")
    spin(r"B_WAIT_EMPTY", "%pf_pw")
    spin(r"A_WAIT_EMPTY", "%pf_pw")
    # wgmma.wait_group in the consumers (all of them are)
    t = re.sub(r"^(    wgmma\.wait_group\.sync\.aligned \d+;[^\n]*\n)",
               lambda m: "    mov.u32 %pc0, %clock;\n" + m.group(1) + acc("%pf_g"), t, flags=re.M)
    # wgmma issue: fence .. commit
    t = t.replace("    wgmma.fence.sync.aligned;\n", "    mov.u32 %pi0, %clock;\n    wgmma.fence.sync.aligned;\n")
    t = t.replace("    wgmma.commit_group.sync.aligned;\n", "    wgmma.commit_group.sync.aligned;\n" + acc("%pf_i", "%pi0"))
    # epilogue: SEG_DONE .. the branch back to SEG_LOOP
    assert t.count("SEG_DONE:\n") == 1 and t.count("    bra.uni SEG_LOOP;\n") == 1
    t = t.replace("SEG_DONE:\n", "SEG_DONE:\n    mov.u32 %pe0, %clock;\n")
    t = t.replace("    bra.uni SEG_LOOP;\n", acc("%pf_e", "%pe0") + "    bra.uni SEG_LOOP;\n")
    # epilogue phases
    w = "    @%p_whole bra STORE_TILE;                 // this cluster did the whole tile\n"
    assert t.count(w) == 1
    t = t.replace(w, w + "    mov.u32 %ps1, %clock;\n")
    f = "PART_FLAG_DONE:\n    bar.sync 1, 256;\n"
    assert t.count(f) == 1
    t = t.replace(f, f + acc("%pf_part", "%ps1") + "    mov.u32 %ps1, %clock;\n")
    assert t.count("STORE_TILE:\n") == 1 and t.count("NEXT_SEG:\n") == 1
    t = t.replace("STORE_TILE:\n", acc("%pf_red", "%ps1") + "STORE_TILE:\n    mov.u32 %pi0, %clock;\n")
    t = t.replace("NEXT_SEG:\n", acc("%pf_st", "%pi0") + "NEXT_SEG:\n")
    # producers
    for who, lab, loop in (("b", "B_PRODUCER", "B_LOOP"), ("a", "A_PRODUCER", "A_LOOP")):
        pat = f"{loop}:\n    setp.ge.u32 %p_more, %u, %u_end;\n    @%p_more bra EXIT;\n"
        assert t.count(pat) == 1, loop
        t = t.replace(pat, f"{loop}:\n    setp.ge.u32 %p_more, %u, %u_end;\n    @%p_more bra PROF_{who.upper()}_DUMP;\n")
        dump = (f"PROF_{who.upper()}_DUMP:\n" + acc("%pf_pt", "%pf_pt").replace("add.u32 %pf_pt, %pf_pt, %pc1", "mov.u32 %pf_pt, %pc1")
                + red(f"{who}_tot", "%pf_pt") + red(f"{who}_wait", "%pf_pw") + "    mov.u32 %pc1, 1;\n" + red(f"{who}_n", "%pc1")
                + "    bra.uni EXIT;\n")
        if who == "a":
            dump = dump.replace(red("a_tot", "%pf_pt"), red("a_tot", "%pf_pt") + red("a_pdl", "%pe0"))
        t = t.replace("EXIT:\n", dump + "EXIT:\n", 1)
        pl = f"{lab}:\n"
        t = t.replace(pl, pl + "    mov.u32 %pf_pw, 0;\n    mov.u32 %pf_pt, %clock;\n", 1)
    # A producer: time its griddepcontrol.wait (into %pe0; the producer never runs SEG_DONE)
    g = "    griddepcontrol.wait;                      // the decode kernel is complete and A16 is visible (PDL)\n"
    assert t.count(g) == 1
    t = t.replace(g, "    mov.u32 %pc0, %clock;\n" + g + "    mov.u32 %pe0, %clock;\n    sub.u32 %pe0, %pe0, %pc0;\n    mov.u32 %pf_pt, %clock;\n")
    return t
