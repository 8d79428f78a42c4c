"""Session 29 probe (exact): the K split's exchange by remote stores (KSPLIT = 2, KS_PUSH, no KS_HELP / KS_STREAM).
Every consumer thread waits for the peer's FREE, parks its own half's accumulators in its P as before and stores the
peer's half straight into the peer's receive slot (st.shared::cluster, the same layout the bulk copy produced), then
arrives on the peer's RECV with release.cluster (count CONSUMERS instead of 1 + tx bytes).  No bulk copy; the RECV
wait acquires at cluster scope.  The sums read the same P_0, P_1 in the same order: bit for bit the committed result."""
import re


def rst(t):
    assert "KSPLIT=2" in t.splitlines()[0] or True
    one = lambda old, new: _one(t, old, new)
    def _sub(old, new, count=1):
        nonlocal t
        assert t.count(old) == count, (old[:80], t.count(old))
        t = t.replace(old, new)
    _sub("    mbarrier.init.shared::cta.b64 [%sm_ks+8], 1;",
         "    mbarrier.init.shared::cta.b64 [%sm_ks+8], 256;")
    _sub("    mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%sm_ks+8], (2-1)*128/2*528;\n", "")
    # registers
    _sub("    .reg .b32   %w0, %w1, %sw0, %sw1;\n",
         "    .reg .b32   %w0, %w1, %sw0, %sw1, %raddr, %rrecv, %rpeer;\n    .reg .pred %p_k0;\n")
    # the parking: own half to my P first, then (the peer's rings free) the peer's half into its receive slot
    pat = re.compile(r"((?:    st\.shared\.f32 \[%addr\+\d+\*528\+\d+\], %acc\d+;\n){64})")
    m = pat.search(t)
    assert m
    lines = m.group(1).splitlines()
    own, peer = [], []
    for ln in lines:
        mm = re.match(r"    st\.shared\.f32 \[%addr\+(\d+)\*528\+(\d+)\], %acc(\d+);", ln)
        mo, c, e = int(mm.group(1)), mm.group(2), int(mm.group(3))
        po, pp = ("@%p_k0", "@!%p_k0") if e < 32 else ("@!%p_k0", "@%p_k0")
        own.append(f"    {po} st.shared.f32 [%addr+{mo}*528+{c}], %acc{e};\n")
        peer.append(f"    {pp} st.shared::cluster.f32 [%raddr+{mo}*528+{c}], %acc{e};\n")
    wait = ("KSR_WAIT_FREE:\n"
            "    mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p_ready, [%sm_ks], 0;\n"
            "    @!%p_ready bra KSR_WAIT_FREE;\n"
            "    selp.u32 %rpeer, 1, 0, %p_k0;\n"
            "    selp.u32 %tmp, 64*528, 0, %p_k0;\n"
            "    sub.u32 %raddr, %sm_recv, %tmp;\n"
            "    mul.lo.u32 %tmp, %t, 2*528;\n"
            "    add.u32 %raddr, %raddr, %tmp;\n"
            "    shl.b32 %tmp, %rowB, 2;\n"
            "    add.u32 %raddr, %raddr, %tmp;\n"
            "    mapa.shared::cluster.u32 %raddr, %raddr, %rpeer;\n"
            "    add.u32 %tmp, %sm_ks, 8;\n"
            "    mapa.shared::cluster.u32 %rrecv, %tmp, %rpeer;\n")
    t = t[:m.start()] + "    setp.eq.u32 %p_k0, %krank, 0;\n" + "".join(own) + wait + "".join(peer) + t[m.end():]
    # after the parking (before the push's fence): arrive on the peer's RECV
    _sub("    fence.proxy.async.shared::cta;            // the parked P (generic stores) is visible to the bulk copies\n",
         "    mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%rrecv];   // my rows of the peer's half are in\n")
    # no bulk copies: from thread 0's FREE wait to KSP_SENT
    i = t.index("    @!%p_ks0 bra KSP_SENT;\nKSP_WAIT_FREE:\n")
    j = t.index("KSP_SENT:\n")
    t = t[:i] + t[j:]
    _sub("KSP_WAIT_RECV:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], 0;\n",
         "KSP_WAIT_RECV:\n    mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p_ready, [%bar], 0;\n")
    return t
