"""Session 24 probe (exact): FUSED_A's chunk decode moved from the GEMM's CTAs to NDEC extra CTAs at the end of the
grid (ctaid >= D0), which have no units (the K split's u = ctaid * upc lies past the last unit).  The GEMM's CTAs decode
nothing and their A16 producers wait for the chunk flags as in FUSED_A (bounded, then decode the chunk themselves)."""


def decoders(t, d0, ndec):
    old = "    mov.u32 %fa_c, %ctaid.x;                  // the chunk to load next\n"
    assert t.count(old) == 1
    t = t.replace(old, old + f"    sub.u32 %fa_c, %fa_c, {d0};                 // decoder CTA index (GEMM CTAs: huge, no chunks)\n", 1)
    old = "    mov.u32 %fa_x, %nctaid.x;\n    add.u32 %fa_c, %fa_c, %fa_x;\n"
    assert t.count(old) == 1
    t = t.replace(old, f"    mov.u32 %fa_x, {ndec};\n    add.u32 %fa_c, %fa_c, %fa_x;\n", 1)
    old = "    mov.u32 %fa_x, %ctaid.x;\n    mul.wide.u32 %fa_w, %fa_x, 4;\n"
    assert t.count(old) == 1
    t = t.replace(old, f"    mov.u32 %fa_x, %ctaid.x;\n    sub.u32 %fa_x, %fa_x, {d0};\n    mul.wide.u32 %fa_w, %fa_x, 4;\n", 1)
    old = "    mov.u32 %fa_x, %nctaid.x;\n    mul.wide.u32 %fa_v, %fa_x, 4;             // from one of this CTA's chunks to the next\n"
    assert t.count(old) == 1
    t = t.replace(old, f"    mov.u32 %fa_x, {ndec};\n    mul.wide.u32 %fa_v, %fa_x, 4;\n", 1)
    return t


def decoders_ks(t, d0, ndec):
    """decoders(), with the decoders' chunks taken in the order a K split of 2 (one m tile, l = 1) consumes them:
    position p -> chunk (p % 2) * KC/2 + p / 2 (both k ranges' fronts at once)"""
    t = decoders(t, d0, ndec)
    t = t.replace("    .reg .b32   %w0, %w1, %sw0, %sw1", "    .reg .b32   %fa_cp, %fa_pq;\n    .reg .b32   %w0, %w1, %sw0, %sw1", 1)
    perm = ("    and.b32 %fa_cp, {p}, 1;\n    shr.u32 %fa_pq, %fa_KC, 1;\n    mul.lo.u32 %fa_cp, %fa_cp, %fa_pq;\n"
            "    shr.u32 %fa_pq, {p}, 1;\n    add.u32 %fa_cp, %fa_cp, %fa_pq;\n")
    old = "    div.u32 %fa_bm, %fa_c, %fa_KC;            // b * m_tiles + mt\n    mul.lo.u32 %fa_x, %fa_bm, %fa_KC;\n    sub.u32 %fa_kc, %fa_c, %fa_x;\n"
    assert t.count(old) == 1
    t = t.replace(old, perm.format(p="%fa_c") + old.replace("%fa_c,", "%fa_cp,"), 1)
    # the count loop: flag of chunk perm(d + t * ndec) for t < fa_n
    i = t.index("FA_CONS_COUNT:\n")
    j = t.index("FA_CONS_COUNTED:\n")
    body = t[i:j]
    assert "@%p_fa red.release.gpu.global.add.u32 [%fa_w], 1;" in body
    new_body = ("FA_CONS_COUNT:\n    setp.lt.u32 %p_famore, %fa_t, %fa_n;\n    @!%p_famore bra.uni FA_CONS_COUNTED;\n"
                f"    mov.u32 %fa_x, %ctaid.x;\n    sub.u32 %fa_x, %fa_x, {d0};\n    mad.lo.u32 %fa_x, %fa_t, {ndec}, %fa_x;\n"
                + perm.format(p="%fa_x") +
                "    mul.wide.u32 %fa_w, %fa_cp, 4;\n    add.u64 %fa_w, %fa_flag, %fa_w;\n    add.u64 %fa_w, %fa_w, 16;\n"
                "    @%p_fa red.release.gpu.global.add.u32 [%fa_w], 1;\n    add.u32 %fa_t, %fa_t, 1;\n    bra.uni FA_CONS_COUNT;\n")
    return t[:i] + new_body + t[j:]


def decoders_pub(t, d0, ndec):
    """decoders(), chunks in the K split's order of need (decoders_ks's permutation), and each chunk counted in by
    every warp as soon as its stores are fenced (not once the CTA's last chunk is stored)"""
    t = decoders(t, d0, ndec)
    t = t.replace("    .reg .b32   %w0, %w1, %sw0, %sw1",
                  "    .reg .b32   %fa_cp, %fa_pq, %fa_cA;\n    .reg .pred  %p_fpub;\n    .reg .b32   %w0, %w1, %sw0, %sw1", 1)
    perm = ("    and.b32 %fa_cp, {p}, 1;\n    shr.u32 %fa_pq, %fa_KC, 1;\n    mul.lo.u32 %fa_cp, %fa_cp, %fa_pq;\n"
            "    shr.u32 %fa_pq, {p}, 1;\n    add.u32 %fa_cp, %fa_cp, %fa_pq;\n")
    old = "    div.u32 %fa_bm, %fa_c, %fa_KC;            // b * m_tiles + mt\n    mul.lo.u32 %fa_x, %fa_bm, %fa_KC;\n    sub.u32 %fa_kc, %fa_c, %fa_x;\n"
    assert t.count(old) == 1
    t = t.replace(old, perm.format(p="%fa_c") + old.replace("%fa_c,", "%fa_cp,"), 1)
    old = "    add.u32 %fa_n, %fa_n, 1;\nFA_CONS_STORED:\n    @!%p_famore bra.uni FA_CONS_DONE;\n"
    assert t.count(old) == 1
    pub = ("    fence.proxy.async.global;\n    bar.warp.sync 0xffffffff;\n    and.b32 %fa_x, %thread, 31;\n"
           "    setp.eq.u32 %p_fpub, %fa_x, 0;\n    ld.param.u64 %fa_w, [p_async];\n    cvta.to.global.u64 %fa_w, %fa_w;\n"
           "    mul.wide.u32 %fa_v, %fa_cA, 4;\n    add.u64 %fa_w, %fa_w, %fa_v;\n    add.u64 %fa_w, %fa_w, 16;\n"
           "    @%p_fpub red.release.gpu.global.add.u32 [%fa_w], 1;\n")
    t = t.replace(old, pub + old + "    mov.u32 %fa_cA, %fa_cp;\n", 1)
    old = "FA_CONS_COUNT:\n    setp.lt.u32 %p_famore, %fa_t, %fa_n;\n"
    assert t.count(old) == 1
    t = t.replace(old, "FA_CONS_COUNT:\n    setp.lt.u32 %p_famore, %fa_t, 0;\n", 1)
    return t


def pre(t):
    """the A16 producer loads the next chunk's flag and the all-chunks word right after its look at this chunk (acquire
    loads, in flight during this sub-step's aempty wait and copy) and, at the next sub-step, uses them when they are that chunk's"""
    t = t.replace("    .reg .b32   %w0, %w1, %sw0, %sw1",
                  "    .reg .b32   %fa_tn, %fa_fn, %fa_cn, %fa_cnx;\n    .reg .pred  %p_pre, %p_pre2;\n"
                  "    .reg .b32   %w0, %w1, %sw0, %sw1", 1)
    i = t.index("A_PRODUCER:\n")
    j = t.index("\nEXIT:\n", i)
    a, b, c = t[:i], t[i:j], t[j:]
    b = b.replace("A_PRODUCER:\n", "A_PRODUCER:\n    setp.ne.u32 %p_pre, 0, 0;\n    ld.param.u32 %fa_cnx, [a_chunks];\n", 1)
    old = ("    ld.acquire.gpu.global.u32 %fa_t, [%fa_async+8];     // both looks in flight at once\n"
           "    @!%p_fa ld.acquire.gpu.global.u32 %fa_f, [%fa_flag];\n")
    assert b.count(old) == 1
    b = b.replace(old, "    setp.eq.and.u32 %p_pre2, %fa_c, %fa_cn, %p_pre;\n    @%p_pre2 mov.u32 %fa_t, %fa_tn;\n"
                  "    @%p_pre2 mov.u32 %fa_f, %fa_fn;\n    @%p_pre2 bra FA_LOOKED;\n" + old + "FA_LOOKED:\n", 1)
    assert b.count("FA_READY:\n") == 1
    ins = ("    setp.ne.u32 %p_pre, 0, 0;\n    @%p_faall bra FA_NOPRE;\n    add.u32 %fa_cn, %fa_c, 1;\n"
           "    setp.lt.u32 %p_pre, %fa_cn, %fa_cnx;\n    @%p_pre ld.acquire.gpu.global.u32 %fa_tn, [%fa_async+8];\n"
           "    @%p_pre ld.acquire.gpu.global.u32 %fa_fn, [%fa_flag+4];\nFA_NOPRE:\n")
    b = b.replace("FA_READY:\n", "FA_READY:\n" + ins, 1)
    return a + b + c


import re  # noqa: E402
