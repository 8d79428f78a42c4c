"""Descriptor formulations of the GEMM unit loop (session 19): rendered ksplit2 / dual builds with only the a16
descriptor code changed, assembled to cubins for cuobjdump on the device."""
import re, subprocess, sys
sys.path.insert(0, ".")
from nvfp4rt.ptxsource import render
from nvfp4rt.ops.gemm_wgmma_cluster import kernel_constants

T = subprocess.run(["git", "show", "1cec504:ptx/gemm_nvfp4_wgmma_cluster.ptx"], capture_output=True, text=True,
                   check=True).stdout  # the session's base: the variants are edits of it
OR = "    or.b32 %dlo, %dlo, 0x10000;               // LBO field = 1 (unused with 128B swizzle)\n"


def v_shfl(t):
    """the sub-step's descriptor low word through shfl.sync.idx from lane 0: ptxas may treat it as warp-uniform"""
    assert t.count(OR) == 4
    return t.replace(OR, OR + "    shfl.sync.idx.b32 %dlo, %dlo, 0, 31, -1;\n")


def v_pre64(t):
    """four 64-bit descriptors per sub-step, built once at its top"""
    t = t.replace("    .reg .b64   %desc, ", "    .reg .b64   %dd0, %dd1, %dd2, %dd3, %desc, ", 1)
    t = t.replace(OR, OR + "".join(f"    add.u32 %x, %dlo, {2 * i};\n    mov.b64 %dd{i}, {{%x, %desc_hi}};\n" for i in range(4)))
    for i in range(4):
        t = t.replace(f"    add.u32 %x, %dlo, {2 * i};                  // + 32 bytes per k16 step\n    mov.b64 %desc, {{%x, %desc_hi}};\n",
                      f"    mov.b64 %desc, %dd{i};\n")
    return t


def v_shfl_pre64(t):
    return v_pre64(v_shfl(t))


def v_add64(t):
    """a 64-bit descriptor base per sub-step and 64-bit adds"""
    t = t.replace("    .reg .b64   %desc, ", "    .reg .b64   %dbase, %desc, ", 1)
    t = t.replace(OR, OR + "    mov.b64 %dbase, {%dlo, %desc_hi};\n")
    for i in range(4):
        t = t.replace(f"    add.u32 %x, %dlo, {2 * i};                  // + 32 bytes per k16 step\n    mov.b64 %desc, {{%x, %desc_hi}};\n",
                      f"    add.s64 %desc, %dbase, {2 * i};\n")
    return t


VARIANTS = {"base": lambda t: t, "shfl": v_shfl, "pre64": v_pre64, "shfl_pre64": v_shfl_pre64, "add64": v_add64}
if __name__ == "__main__":
    for name, f in VARIANTS.items():
        txt = render(f(T), "sm_90a", kernel_constants(1, 10, ksplit=2))
        p = f"/tmp/dv_{name}"
        open(p + ".ptx", "w").write(txt)
        r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", p + ".ptx", "-o", p + ".cubin"], capture_output=True, text=True)
        info = [l.strip() for l in r.stderr.split("\n") if "registers" in l or "C75" in l or "error" in l]
        print(name, r.returncode, info)


SC_BLOCK = re.compile(r"    ld\.shared\.u8 %sb0, \[%sfslot\+(\d+)\];[^\n]*\n    ld\.shared\.u8 %sb1, \[%sfslot\+(\d+)\];\n"
                      r"    cvt[^\n]*\n    mov[^\n]*\n    mov[^\n]*\n    cvt[^\n]*\n    mov[^\n]*\n    mov[^\n]*\n")


def v_sc128(t):
    """a unit's scale bytes with two 16-byte loads at its top; one prmt + cvt per row and sub-step (both pieces)"""
    t = t.replace("    .reg .b16   %hl, %hh, %c16;\n", "    .reg .b16   %hl, %hh, %c16, %sbx;\n"
                  "    .reg .b32   %sc<8>, %sq0, %sq1, %ssel;\n", 1)
    old = "    add.u32 %sfB, %sfB, %tmp;                 // + t/2\n"
    assert t.count(old) == 1
    t = t.replace(old, old + "    mad.lo.u32 %ssel, %tmp, 0x11, 0x20;       // prmt selector: bytes t/2, 2 + t/2\n")
    old = "    add.u32 %sfslot, %slot_addr, %sfB;        // piece 2j+q's scale byte: + 4j + 2q (row g + 8: + 128)\n"
    assert t.count(old) == 1
    t = t.replace(old, old + "    and.b32 %addr, %sfslot, -16;\n"
                  "    ld.shared.v4.b32 {%sc0, %sc1, %sc2, %sc3}, [%addr];\n"
                  "    ld.shared.v4.b32 {%sc4, %sc5, %sc6, %sc7}, [%addr+128];\n")

    def rep(m):
        off0, off1 = int(m.group(1)), int(m.group(2))
        pp = off0 // 2
        assert off1 == off0 + 128
        if pp % 2 == 0:
            j = pp // 2
            return (f"    prmt.b32 %tmp, %sc{j}, 0, %ssel;\n    mov.b32 {{%sb0, %sbx}}, %tmp;\n"
                    f"    cvt.rn.f16x2.e4m3x2 %sq0, %sb0;\n"
                    f"    prmt.b32 %tmp, %sc{4 + j}, 0, %ssel;\n    mov.b32 {{%sb1, %sbx}}, %tmp;\n"
                    f"    cvt.rn.f16x2.e4m3x2 %sq1, %sb1;\n"
                    "    mov.b32 {%hl, %hh}, %sq0;\n    mov.b32 %sw0, {%hl, %hl};\n"
                    "    mov.b32 {%hl, %hh}, %sq1;\n    mov.b32 %sw1, {%hl, %hl};\n")
        return ("    mov.b32 {%hl, %hh}, %sq0;\n    mov.b32 %sw0, {%hh, %hh};\n"
                "    mov.b32 {%hl, %hh}, %sq1;\n    mov.b32 %sw1, {%hh, %hh};\n")
    t, n = SC_BLOCK.subn(rep, t)
    assert n == 8, n
    return t


VARIANTS["sc128"] = v_sc128
VARIANTS["shfl_sc128"] = lambda t: v_sc128(v_shfl(t))
VARIANTS["pre64_sc128"] = lambda t: v_sc128(v_pre64(t))
if __name__ == "__main__":
    for name in ("sc128", "shfl_sc128", "pre64_sc128"):
        txt = render(VARIANTS[name](T), "sm_90a", kernel_constants(1, 10, ksplit=2))
        p = f"/tmp/dv_{name}"
        open(p + ".ptx", "w").write(txt)
        r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", p + ".ptx", "-o", p + ".cubin"], capture_output=True, text=True)
        print(name, r.returncode, [l.strip() for l in r.stderr.split("\n") if "registers" in l or "C75" in l or "rror" in l])
