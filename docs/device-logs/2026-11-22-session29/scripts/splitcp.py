"""Session 29 probe (exact): the K split's push copy (one cp.async.bulk of 64 rows x KS_PITCH per peer) issued as n
copies of 64/n rows each, back to back by the same thread onto the same RECV barrier (complete_tx adds up the same
bytes)."""
import re


def splitcp(t, n):
    pat = re.compile(r"    @%p_peer cp\.async\.bulk\.shared::cluster\.shared::cta\.mbarrier::complete_tx::bytes "
                     r"\[%addr\], \[%tmp2\], 128/2\*528, \[%rbar\];\n")
    size = 64 * 528 // n
    assert 64 % n == 0

    def rep(m):
        out = []
        for i in range(n):
            off = f"+{i * size}" if i else ""
            out.append(f"    @%p_peer cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes "
                       f"[%addr{off}], [%tmp2{off}], {size}, [%rbar];\n")
        return "".join(out)
    t, k = pat.subn(rep, t)
    assert k == 2, k
    return t
