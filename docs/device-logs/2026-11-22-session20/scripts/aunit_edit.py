"""Session 20: the unit-aligned a16 ring (A_UNIT) in the cluster GEMM's unit loop."""
import re, sys
P = "ptx/gemm_nvfp4_wgmma_cluster.ptx"
t = open(P).read()

def once(old, new, count=1):
    global t
    n = t.count(old)
    assert n == count, (old[:60], n)
    t = t.replace(old, new)

once("    .reg .b32   %desc_hi, %dlo;\n", "    .reg .b32   %desc_hi, %dlo, %dlou, %abar, %aebar;                          // A_UNIT: %dlou..%aebar\n")

# unit top: per-unit bases
old = "    // ---- prefetch piece 0: its two B words and scales (before the A work of sub-step 0)\n"
once(old, """// {{if A_UNIT}}
    // ---- A_UNIT (A_BUFS a multiple of 4): sub-step s reads a16 buffer ab + s (a unit never wraps the ring), so its
    //      full and empty barriers and its descriptors are constant offsets from three bases set once per unit
    shl.b32 %tmp, %ab, 3;
    add.u32 %abar, %sm_afull, %tmp;           // sub-step s's full barrier: %abar + 8s
    add.u32 %aebar, %sm_aempty, %tmp;         // its empty barrier: %aebar + 8s
    mad.lo.u32 %a16, %ab, 16384, %sm_a16;
    shr.u32 %dlou, %a16, 4;
    or.b32 %dlou, %dlou, 0x10000;             // LBO field = 1 (unused with 128B swizzle)
    shfl.sync.idx.b32 %dlou, %dlou, 0, 31, -1;  // lane 0's (the same in every lane): descriptors in uniform registers
// {{endif}}
""" + old)

# per-sub-step descriptor base
blk = ("    mul.lo.u32 %a16, %ab, 16384;\n    add.u32 %a16, %a16, %sm_a16;\n    shr.u32 %dlo, %a16, 4;\n"
       "    or.b32 %dlo, %dlo, 0x10000;               // LBO field = 1 (unused with 128B swizzle)\n"
       "    shfl.sync.idx.b32 %dlo, %dlo, 0, 31, -1;  // lane 0's (the same in every lane): descriptors in uniform registers\n")
assert t.count(blk) == 4
parts = t.split(blk)
t = parts[0]
for s in range(4):
    t += (f"// {{{{if A_UNIT}}}}\n    add.u32 %dlo, %dlou, {1024 * s};            // buffer ab + {s}: + 16 KB\n// {{{{else}}}}\n"
          + blk + "// {{endif}}\n" + parts[s + 1])

# per-sub-step full-barrier wait address
for s in range(4):
    old = f"    shl.b32 %tmp, %ab, 3;\n    add.u32 %bar, %sm_afull, %tmp;\nC_WAIT_A{s}:\n"
    new = (f"// {{{{if A_UNIT}}}}\n    add.u32 %bar, %abar, {8 * s};\n// {{{{else}}}}\n    shl.b32 %tmp, %ab, 3;\n"
           f"    add.u32 %bar, %sm_afull, %tmp;\n// {{{{endif}}}}\nC_WAIT_A{s}:\n")
    n = t.count(old)
    assert n == (2 if s == 0 else 1) or n >= 1, n
    # the WG_WAIT == 1 wait is the one preceded by the if WG_WAIT == 1 marker
    marker = "// {{if WG_WAIT == 1}}\n" + old
    assert t.count(marker) == 1, (s, t.count(marker))
    t = t.replace(marker, "// {{if WG_WAIT == 1}}\n" + new)

# per-sub-step release + ring advance
rel = ("    and.pred %p_rel, %p_pend, %p_l0;\n    shl.b32 %tmp, %pab, 3;\n    add.u32 %bar, %sm_aempty, %tmp;\n")
adv = ("// {{if WG_WAIT == 3}}\n    mov.u32 %pab, %pab1;                      // WG_WAIT=3: a buffer is released two sub-steps after its reads\n"
       "    mov.pred %p_pend, %p_pend1;\n    mov.u32 %pab1, %ab;\n    setp.eq.u32 %p_pend1, 0, 0;\n// {{else}}\n"
       "    mov.u32 %pab, %ab;\n    setp.eq.u32 %p_pend, 0, 0;\n// {{endif}}\n    add.u32 %ab, %ab, 1;\n"
       "    setp.eq.u32 %p_wrap, %ab, {{A_BUFS}};\n    @%p_wrap mov.u32 %ab, 0;\n    @%p_wrap xor.b32 %aph, %aph, 1;\n")
assert t.count(adv) == 4, t.count(adv)
head, *rest = t.split(adv)
out = head
for s in range(4):
    # the release right before this advance: make sub-steps 1..3 use the per-unit base under A_UNIT
    if s > 0:
        i = out.rindex(rel)
        out = (out[:i] + f"// {{{{if A_UNIT}}}}\n    mov.pred %p_rel, %p_l0;                   // buffer ab + {s - 1}\n"
               f"    add.u32 %bar, %aebar, {8 * (s - 1)};\n// {{{{else}}}}\n" + rel + "// {{endif}}\n" + out[i + len(rel):])
    if s < 3:
        out += "// {{if A_UNIT == 0}}\n" + adv + "// {{endif}}\n"
    else:
        out += ("// {{if A_UNIT}}\n    add.u32 %pab, %ab, 3;                     // the unit's last buffer awaits release\n"
                "    setp.eq.u32 %p_pend, 0, 0;\n    add.u32 %ab, %ab, 4;\n    setp.eq.u32 %p_wrap, %ab, {{A_BUFS}};\n"
                "    @%p_wrap mov.u32 %ab, 0;\n    @%p_wrap xor.b32 %aph, %aph, 1;\n// {{else}}\n" + adv + "// {{endif}}\n")
    out += rest[s]
t = out
open(P, "w").write(t)
print("ok")
