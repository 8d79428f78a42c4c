"""Session 24 timing probe: the decode prepass also prefetches into L2 the GEMM's first B stages (bytes of B and sfb
the GEMM's CTAs read first), with cp.async.bulk.prefetch.L2, before its griddepcontrol.wait.  Regions are baked into
the text as immediates: (base address, row stride bytes, rows, bytes per row)."""
from nvfp4rt.module import load
from nvfp4rt.ops import decode_a16 as D
from nvfp4rt.ptxsource import ptx_dir, render

TEXT = (ptx_dir() / "nvfp4_decode_a16.ptx").read_text()
_n = [0]


def warm_text(regions, grouped: bool):
    t = render(TEXT, "sm_90a", {"NORMAL_OPERANDS": 0, "GROUPED": int(grouped)})
    blk = ["    {", "    .reg .b32 %wi, %wn, %wr;", "    .reg .b64 %wa, %wo;", "    .reg .pred %pw;",
           "    mov.u32 %wi, %ctaid.x;", "    mov.u32 %wn, %tid.x;", "    mad.lo.u32 %wi, %wi, 256, %wn;",
           "    mov.u32 %wn, %nctaid.x;", "    mul.lo.u32 %wn, %wn, 256;"]
    for r, (base, stride, rows, nbytes) in enumerate(regions):
        assert base % 16 == 0 and stride % 16 == 0 and nbytes % 16 == 0 and nbytes > 0
        blk += [f"    mov.u32 %wr, %wi;", f"WARM{r}:", f"    setp.ge.u32 %pw, %wr, {rows};", f"    @%pw bra WARM{r}_DONE;",
                f"    mul.wide.u32 %wo, %wr, {stride};", f"    add.u64 %wa, %wo, {base};",
                f"    cp.async.bulk.prefetch.L2.global [%wa], {nbytes};",
                f"    add.u32 %wr, %wr, %wn;", f"    bra WARM{r};", f"WARM{r}_DONE:"]
    blk.append("    }")
    old = "    griddepcontrol.launch_dependents;\n"
    assert t.count(old) == 1
    return t.replace(old, old + "\n".join(blk) + "\n", 1)


def swap_decode(dec, regions, grouped=False, keep=None):
    mod = load(warm_text(regions, grouped), target="sm_90a")
    dec.kernel = mod.kernel(D._ENTRY)
    dec._launch = None
    if keep is not None:
        keep.append(mod)
    return dec


def gemm_regions(b_ptr, b_row, sfb_ptr, sfb_row, n, starts_bytes_b, starts_bytes_sf, stages):
    """B rows [0, n), stages from each start: 128 bytes of B and 16 of sfb per stage"""
    regs = []
    for sb, ss in zip(starts_bytes_b, starts_bytes_sf):
        regs.append((b_ptr + sb, b_row, n, 128 * stages))
        regs.append((sfb_ptr + ss, sfb_row, n, 16 * stages))
    return regs
