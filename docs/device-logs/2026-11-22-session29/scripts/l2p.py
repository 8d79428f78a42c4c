"""Session 29 probes: L2 cache policies on the cluster GEMM's TMA loads (text transforms of a rendered build).
  ef:  B and sfb loads carry createpolicy.fractional.L2::evict_first (streamed once: make room for the next line
       instead of evicting A16 or the clear's dirty lines);
  el:  A16 loads carry evict_last (every tile of the m tile reads the same A16);
  efl: both."""
import re

TMA = "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"


def _policy(t, kind, reg, anchor_re):
    m = re.search(anchor_re, t)
    assert m, anchor_re
    decl = f"    .reg .b64 {reg};\n    createpolicy.fractional.L2::{kind}.b64 {reg}, 1.0;\n"
    return t[:m.start() + 1] + decl + t[m.start() + 1:]


def _hint(t, tmap, reg):
    pat = re.compile(re.escape(TMA) + r"((?:\.multicast::cluster)?)\n(        \[[^\]]*\], \[" + re.escape(tmap)
                     + r", \{[^}]*\}\], \[%bar\])((?:, %\w+)?);")
    t, n = pat.subn(lambda m: TMA + m.group(1) + ".L2::cache_hint\n" + m.group(2) + m.group(3) + f", {reg};", t)
    assert n >= 1, (tmap, n)
    return t


def ef(t):
    t = _policy(t, "evict_first", "%pol_b", r"\nB_LOOP:\n")
    t = _hint(t, "%tm_b", "%pol_b")
    return _hint(t, "%tm_sfb", "%pol_b")


def el(t):
    t = _policy(t, "evict_last", "%pol_a", r"\nA_LOOP:\n")
    return _hint(t, "%tm_a16", "%pol_a")


PROBES = {"ef": ef, "el": el, "efl": lambda t: el(ef(t))}


def _hint_only(t, tmaps, reg, kind, lap=0):
    """the hint on the given maps only; lap > 0: the B producer's first `lap` loads go without it"""
    t = _policy(t, kind, reg, r"\nB_LOOP:\n")
    for tm in tmaps:
        if not lap:
            t = _hint(t, tm, reg)
            continue
        pat = re.compile(re.escape(TMA) + r"\n(        \[[^\]]*\], \[" + re.escape(tm) + r", \{[^}]*\}\], \[%bar\]);")
        t, n = pat.subn(lambda m: f"    @%p_lap1 {TMA}\n{m.group(1)};\n    @!%p_lap1 {TMA}.L2::cache_hint\n{m.group(1)}, {reg};", t)
        assert n == 1, n
    if lap:
        t = t.replace("\nB_LOOP:\n", "\n    .reg .u32 %nbl;\n    .reg .pred %p_lap1;\n    mov.u32 %nbl, 0;\nB_LOOP:\n", 1)
        old = "    mul.lo.u32 %slot_addr, %slot, 18432;\n"
        assert t.count(old) == 1
        t = t.replace(old, old + f"    setp.lt.u32 %p_lap1, %nbl, {lap};\n    add.u32 %nbl, %nbl, 1;\n", 1)
    return t


def bwait(t):
    """the B producer waits for the decode grid too (griddepcontrol.wait before its first load): timing only"""
    old = "\nB_LOOP:\n"
    return t.replace(old, "\n    griddepcontrol.wait;\nB_LOOP:\n", 1)


PROBES.update({
    "efb": lambda t: _hint_only(t, ["%tm_b"], "%pol_b", "evict_first"),
    "efs": lambda t: _hint_only(t, ["%tm_sfb"], "%pol_b", "evict_first"),
    "ef_lap": lambda t: _hint_only(t, ["%tm_b", "%tm_sfb"], "%pol_b", "evict_first", lap=3),
    "ef_bwait": lambda t: bwait(ef(t)),
    "bwait": bwait,
})
