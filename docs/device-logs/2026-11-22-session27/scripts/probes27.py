"""Session 27 probes: text transformations of a rendered cluster-GEMM build (K split, CLUSTER = 1)."""

FENCE = "    fence.mbarrier_init.release.cluster;      // the inits are visible to the copy engine and to the peers\nINIT_DONE:\n\n"
SYNC0 = "    bar.sync 0;                               // K split's exchange); this CTA's threads see the inits at once\n"
BLOOP = "B_LOOP:\n    setp.ge.u32 %p_more, %u, %u_end;\n    @%p_more bra EXIT;\n"
BNEXT = "    add.u32 %u, %u, 1;\n\n    bra.uni B_LOOP;\n"
ENTRY = "    mov.u32 %thread, %tid.x;\n"
REGS = "    .reg .pred  %p_lead, "
ARRIVE = "    barrier.cluster.arrive.release;           // phase 1: arrive now, wait only before the first remote access (the\n"


def _one(t, a):
    assert t.count(a) == 1, a
    return t


def early_b(t, prefetch=True, arrive_first=True):
    """thread 0 issues the first S B stages right after its barrier inits, before the CTA's barrier; the other
    producers and the consumers are unchanged (exact).  arrive_first=False (run 08) issues them before thread 0's
    cluster arrive too: that .release arrive then waited for the copies' data (the consumers started 4.4 us later)."""
    for a in (FENCE + ARRIVE, SYNC0, BLOOP, BNEXT, ENTRY, REGS, "B_PRODUCER:\n"):
        _one(t, a)
    t = t.replace(REGS, "    .reg .pred  %p_early, %p_resume;\n    .reg .b32 %early_n;\n" + REGS, 1)
    pre = ("    setp.ne.u32 %p_early, 0, 0;\n    setp.ne.u32 %p_resume, 0, 0;\n    mov.u32 %early_n, 0;\n")
    if prefetch:
        pre += ("    mov.u32 %early_n, %tid.x;\n    setp.eq.u32 %p_early, %early_n, 0;\n    mov.u32 %early_n, 0;\n"
                "    mov.u64 %tm_b, tmap_b;\n    cvta.param.u64 %tm_b, %tm_b;\n    @%p_early prefetch.tensormap [%tm_b];\n"
                "    mov.u64 %tm_sfb, tmap_sfb;\n    cvta.param.u64 %tm_sfb, %tm_sfb;\n"
                "    @%p_early prefetch.tensormap [%tm_sfb];\n    setp.ne.u32 %p_early, 0, 0;\n")
    t = t.replace(ENTRY, ENTRY + pre, 1)
    # thread 0 arrives on the cluster barrier before its copies: a .release arrive after them waited for their data
    if arrive_first:
        t = t.replace(FENCE + ARRIVE, FENCE.replace("INIT_DONE:\n\n", "") + ARRIVE +
                      "    setp.eq.u32 %p_early, 0, 0;\n    bra.uni B_PRODUCER;\nINIT_DONE:\n" + ARRIVE + "T0_BACK:\n", 1)
    else:
        t = t.replace(FENCE, FENCE.replace("INIT_DONE:\n\n", "") +
                      "    setp.eq.u32 %p_early, 0, 0;\n    bra.uni B_PRODUCER;\nT0_BACK:\nINIT_DONE:\n\n", 1)
    t = t.replace(SYNC0, "    barrier.sync 0;\n", 1)
    t = t.replace("B_PRODUCER:\n", "B_PRODUCER:\n    @%p_resume bra B_LOOP;\n", 1)
    t = t.replace(BLOOP, "B_LOOP:\n    setp.ge.u32 %p_more, %u, %u_end;\n    @!%p_early bra B_LOOP_GO;\n"
                  "    setp.ge.u32 %p_x, %early_n, %S;\n    or.pred %p_x, %p_x, %p_more;\n    @!%p_x bra B_LOOP_GO;\n"
                  "    setp.ne.u32 %p_early, 0, 0;\n    setp.eq.u32 %p_resume, 0, 0;\n    bra.uni T0_BACK;\n"
                  "B_LOOP_GO:\n    @%p_more bra EXIT;\n", 1)
    t = t.replace(BNEXT, "    add.u32 %u, %u, 1;\n    add.u32 %early_n, %early_n, 1;\n    bra.uni B_LOOP;\n", 1)
    return t


PROBES = {"earlyB": early_b, "earlyB_nopf": lambda t: early_b(t, prefetch=False),
          # run 08's forms (copies before thread 0's cluster arrive)
          "earlyB08": lambda t: early_b(t, arrive_first=False),
          "earlyB08_nopf": lambda t: early_b(t, prefetch=False, arrive_first=False)}

INIT0 = "    setp.ne.u32 %p_lead, %thread, 0;\n    @%p_lead bra INIT_DONE;\n    mov.u32 %i, 0;\nINIT_LOOP:\n"
INITA = "    mov.u32 %i, 0;\nINIT_A_LOOP:\n"
INITA_END = "    @%p_more bra INIT_A_LOOP;\n"
ALOOP = "A_LOOP:\n    setp.ge.u32 %p_more, %u, %u_end;\n    @%p_more bra EXIT;\n"
ANEXT = "    add.u32 %u, %u, 1;\n\n\n\n\n\n    bra.uni A_LOOP;\n"


def early_ab(t, prefetch=True):
    """early_b, and thread 32 inits the a16 barriers itself and issues the first A_BUFS A16 copies (two units)
    before the CTA's barrier (CLUSTER = 1 builds: no multicast into peers)."""
    t = early_b(t, prefetch)
    for a in (INIT0, INITA, INITA_END, ALOOP, ANEXT, "A_PRODUCER:\n"):
        _one(t, a)
    t = t.replace(REGS, "    .reg .pred  %p_t32, %p_earlyA, %p_resumeA;\n    .reg .b32 %early_a;\n" + REGS, 1)
    t = t.replace(ENTRY, ENTRY + "    setp.ne.u32 %p_earlyA, 0, 0;\n    setp.ne.u32 %p_resumeA, 0, 0;\n"
                  "    mov.u32 %early_a, 0;\n    setp.eq.u32 %p_t32, %thread, 32;\n", 1)
    t = t.replace(INIT0, "    @%p_t32 bra T32_INIT;\n" + INIT0, 1)
    t = t.replace(INITA, "    bra.uni INIT_A_SKIPPED;\nT32_INIT:\n" + INITA, 1)
    t = t.replace(INITA_END, INITA_END + "    @!%p_t32 bra INIT_A_SKIPPED;\n"
                  "    fence.mbarrier_init.release.cluster;\n" + ARRIVE +
                  "    setp.eq.u32 %p_earlyA, 0, 0;\n    bra.uni A_PRODUCER;\nINIT_A_SKIPPED:\n", 1)
    t = t.replace("A_PRODUCER:\n", "A_PRODUCER:\n    @%p_resumeA bra A_LOOP;\n", 1)
    t = t.replace(ALOOP, "A_LOOP:\n    setp.ge.u32 %p_more, %u, %u_end;\n    @!%p_earlyA bra A_LOOP_GO;\n"
                  "    setp.ge.u32 %p_x, %early_a, 2;\n    or.pred %p_x, %p_x, %p_more;\n    @!%p_x bra A_LOOP_GO;\n"
                  "    setp.ne.u32 %p_earlyA, 0, 0;\n    setp.eq.u32 %p_resumeA, 0, 0;\n    bra.uni T0_BACK;\n"
                  "A_LOOP_GO:\n    @%p_more bra EXIT;\n", 1)
    t = t.replace(ANEXT, "    add.u32 %u, %u, 1;\n    add.u32 %early_a, %early_a, 1;\n    bra.uni A_LOOP;\n", 1)
    return t


PROBES["earlyAB"] = early_ab


EXP = "    mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], 16384;  // all ranks' slices land here\n"
ADV = "    add.u32 %ab, %ab, 1;\n    setp.eq.u32 %p_wrap, %ab, 8;\n"


def less_a(t, mask):
    """timing probe (wrong results): sub-steps j with (j & mask) != 0 arrive without a copy (stale buffer)"""
    _one(t, EXP); _one(t, ADV)
    t = t.replace(REGS, "    .reg .pred  %p_skipA;\n    .reg .b32 %skipj;\n" + REGS, 1)
    t = t.replace(EXP, f"    and.b32 %skipj, %j, {mask};\n    setp.ne.u32 %p_skipA, %skipj, 0;\n"
                  "    @%p_skipA mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];\n    @%p_skipA bra A_SKIP_COPY;\n" + EXP)
    return t.replace(ADV, "A_SKIP_COPY:\n" + ADV)


PROBES["halfA"] = lambda t: less_a(t, 1)
PROBES["quarterA"] = lambda t: less_a(t, 3)


LOOPTOP = "    setp.eq.u32 %p_l0, %lane, 0;\n\n\n\n\n\nSEG_LOOP:\n"
REDUCE = "KSPLIT_REDUCE:\n"


def live(t, n):
    """timing probe (exact results): n more registers live across the consumers' unit loop (clock reads before it,
    folded into a store that never happens after it): does ptxas's loop suffer from the state kept across it?"""
    _one(t, LOOPTOP); _one(t, REDUCE)
    regs = ", ".join(f"%lv{i}" for i in range(n))
    t = t.replace(REGS, f"    .reg .b32 {regs}, %lvs;\n    .reg .pred %p_lv;\n" + REGS, 1)
    pre = "".join(f"    mov.u32 %lv{i}, %clock;\n    add.u32 %lv{i}, %lv{i}, %lv{i - 1};\n" if i else
                  "    mov.u32 %lv0, %clock;\n" for i in range(n))
    post = "    mov.u32 %lvs, 0;\n" + "".join(f"    xor.b32 %lvs, %lvs, %lv{i};\n    shf.l.wrap.b32 %lvs, %lvs, %lvs, 3;\n"
                                          for i in range(n))
    post += ("    setp.eq.u32 %p_lv, %lvs, 0x7fffffff;\n    @%p_lv st.shared.u32 [%sm_flag+12], %lvs;\n")
    t = t.replace(LOOPTOP, "    setp.eq.u32 %p_l0, %lane, 0;\n" + pre + "SEG_LOOP:\n", 1)
    return t.replace(REDUCE, REDUCE + post, 1)


PROBES["live16"] = lambda t: live(t, 16)
PROBES["live32"] = lambda t: live(t, 32)


def maxnreg(t, n):
    """exact: a .maxnreg n directive on the entry (ptxas allocates, and so schedules, within n registers)"""
    a = ".maxntid 384, 1, 1\n"
    _one(t, a)
    return t.replace(a, f".maxnreg {n}\n" + a, 1)


for _n in (104, 112, 120):
    PROBES[f"maxnreg{_n}"] = lambda t, _n=_n: maxnreg(t, _n)


import permute  # noqa: E402

for _s in range(24):
    PROBES[f"perm{_s}"] = lambda t, _s=_s: permute.permute_loop(t, _s)
