"""Emit the A_FP4 decoder role (unit-ahead register prefetch) into ptx/gemm_nvfp4_wgmma_cluster.ptx."""
from pathlib import Path
import re
P = Path("ptx/gemm_nvfp4_wgmma_cluster.ptx")
s = P.read_text()
start = s.index("// {{if A_FP4}}\n    // ---------------------------------------------------------------- A decoders")
end = s.index("\nEXIT:", start)
NW = lambda i, j, w: 16 * i + 4 * j + w      # word w of piece (row i, sub-step j)
NS = lambda i, j: 4 * i + j                  # row i's scale word of sub-step j


def loads(fast):
    L = []
    for i in range(3):
        src = ["%dsrc0", "%dsrc1", "%dsrc2"][i]
        sf = ["%dsf0", "%dsf1", "%dsf2"][i]
        if i == 2 and fast:
            L.append("    @!%p_third bra DEC_FAST_LOADED;")
        for j in range(4):
            w = ", ".join(f"%nw{NW(i, j, k)}" for k in range(4))
            if fast:
                L.append(f"    ld.global.nc.v4.b32 {{{w}}}, [{src}+{32 * j}];")
            else:
                L.append(f"    setp.lt.u32 %p_kv, %kel{j}, %kend;")
                L.append(f"    and.pred %p_kv, %p_kv, %p_r{i};")
                for k in range(4):
                    L.append(f"    @!%p_kv mov.b32 %nw{NW(i, j, k)}, 0;")
                L.append(f"    @%p_kv ld.global.nc.v4.b32 {{{w}}}, [{src}+{32 * j}];")
        sw = ", ".join(f"%ns{NS(i, j)}" for j in range(4))
        if fast:
            L.append(f"    ld.global.nc.v4.b32 {{{sw}}}, [{sf}];")
        else:
            for j in range(4):
                L.append(f"    @!%p_r{i} mov.b32 %ns{NS(i, j)}, 0;")
            L.append(f"    @%p_r{i} ld.global.nc.v4.b32 {{{sw}}}, [{sf}];   // the padded rows: zeros past k")
    return "\n".join(L)


def decode(i, j):
    L = [f"    prmt.b32 %xr, %cs{NS(i, j)}, 0, %dsel;        // the piece's two scale bytes (k 0..15, 16..31)",
         "    mov.b32 {%hx, %hl}, %xr;",
         "    cvt.rn.f16x2.e4m3x2 %ds0, %hx;",
         "    mov.b32 {%hl, %hh}, %ds0;",
         "    mov.b32 %ds0, {%hl, %hl};",
         "    mov.b32 %ds1, {%hh, %hh};"]
    for w in range(4):
        cw = f"%cw{NW(i, j, w)}"
        sc = "%ds0" if w < 2 else "%ds1"
        L += [f"    shf.l.wrap.b32 %xr, {cw}, {cw}, 3;",
              f"    lop3.b32 %we, {cw}, %xr, 0x07070707, 0xE4;",
              f"    lop3.b32 %wo, {cw}, %xr, 0x70707070, 0xE4;"]
        for c, op in enumerate(["shl.b32 %xr, %we, 9;", "shl.b32 %xr, %we, 1;", "shl.b32 %xr, %wo, 5;",
                                "shf.r.wrap.b32 %xr, %wo, %wo, 3;"]):
            L += [f"    {op}", f"    and.b32 %e{c}{w}, %xr, 0x8E008E00;", f"    mul.rn.f16x2 %e{c}{w}, %e{c}{w}, {sc};"]
    off = f"+{6144 * i}" if i else ""
    L += [f"    st.shared.v4.b32 [%sa{c}{off}], {{%e{c}0, %e{c}1, %e{c}2, %e{c}3}};" for c in range(4)]
    return "\n".join(L)


coords = """    div.u32 %tile, %u, %KBL;                  // unit u -> batch, m tile, k stage (as the B producer)
    mul.lo.u32 %tmp, %tile, %KBL;
    sub.u32 %kb, %u, %tmp;
    add.u32 %kb, %kb, %KOFF;
    div.u32 %batch, %tile, %tpb;
    mul.lo.u32 %tmp, %batch, %tpb;
    sub.u32 %rem, %tile, %tmp;
    div.u32 %mt, %rem, %ntiles;
    shl.b32 %m0, %mt, 7;
    add.u32 %m0, %m0, %r0;                    // A row of piece 0; pieces 1, 2: + 48, + 96
    setp.lt.u32 %p_r0, %m0, %m;               // rows past m load nothing and decode to zeros
    add.u32 %tmp, %m0, 48;
    setp.lt.u32 %p_r1, %tmp, %m;
    add.u32 %tmp, %m0, 96;
    setp.lt.u32 %p_r2, %tmp, %m;
    and.pred %p_r2, %p_r2, %p_third;
    shl.b32 %kel0, %kb, 8;                    // k of the unit's sub-steps 0..3
    add.u32 %kel1, %kel0, 64;
    add.u32 %kel2, %kel0, 128;
    add.u32 %kel3, %kel0, 192;
    cvt.u64.u32 %off64, %batch;
    mul.lo.u64 %dsrc0, %off64, %abatch64;
    mul.lo.u64 %dsf0, %off64, %sfbatch64;
    cvt.u64.u32 %off64, %m0;
    mad.lo.u64 %dsrc0, %off64, %arow64, %dsrc0;
    mad.lo.u64 %dsf0, %off64, %sfrow64, %dsf0;
    shl.b32 %tmp, %kb, 7;                     // 128 bytes of a row per unit
    shl.b32 %tmp2, %dp, 4;                    // + 16p: the piece
    add.u32 %tmp, %tmp, %tmp2;
    cvt.u64.u32 %off64, %tmp;
    add.u64 %dsrc0, %dsrc0, %off64;
    add.u64 %dsrc0, %dsrc0, %pa;
    add.u64 %dsrc1, %dsrc0, %arow48;          // rows r0 + 48, r0 + 96
    add.u64 %dsrc2, %dsrc1, %arow48;
    mul.wide.u32 %off64, %kb, 16;             // 16 scale bytes per row and unit (16-byte aligned: host-checked)
    add.u64 %dsf0, %dsf0, %off64;
    add.u64 %dsf0, %dsf0, %psfa;
    add.u64 %dsf1, %dsf0, %sfrow48;
    add.u64 %dsf2, %dsf1, %sfrow48;
    // the fast path: every row of this thread inside m, the whole unit inside k (else zeros where not)
    add.u32 %tmp, %kel0, 256;
    setp.le.u32 %p_kv, %tmp, %kend;
    and.pred %p_kv, %p_kv, %p_r0;
    and.pred %p_kv, %p_kv, %p_r1;
    setp.eq.or.u32 %p_x, %dt, %dt, %p_kv;      // (placeholder, replaced below)"""
# all rows valid: r0 and r1 always, r2 when the thread has a third piece
coords = coords.replace("""    setp.eq.or.u32 %p_x, %dt, %dt, %p_kv;      // (placeholder, replaced below)""",
"""    not.pred %p_x, %p_third;
    or.pred %p_x, %p_x, %p_r2;                // r2 counts only where the thread has it
    and.pred %p_kv, %p_kv, %p_x;""")

ks_stream_adj = """// {{if KS_STREAM == 1}}
    xor.b32 %tmp, %u, %krank;                 // the consumers' units: u % 2 == krank
    and.b32 %tmp, %tmp, 1;
    add.u32 %u, %u, %tmp;
// {{endif}}"""


def load_block(tag):
    return f"""    @!%p_kv bra DEC_SLOW_{tag};
{loads(True).replace("DEC_FAST_LOADED", f"DEC_LOADED_{tag}")}
    bra.uni DEC_LOADED_{tag};
DEC_SLOW_{tag}:
{loads(False)}
DEC_LOADED_{tag}:"""


movs = "\n".join([f"    mov.b32 %cw{k}, %nw{k};" for k in range(48)] + [f"    mov.b32 %cs{k}, %ns{k};" for k in range(12)])

steps = []
for j in range(4):
    steps.append(f"""    // ---- sub-step {j}: wait until every consumer warp released buffer ab (parity ^ 1: the first lap does not wait)
    shl.b32 %tmp, %ab, 3;
    add.u32 %bar, %sm_aempty, %tmp;
    xor.b32 %par, %aph, 1;
DEC_WAIT_EMPTY{j}:
    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %par;
    @!%p_ready bra DEC_WAIT_EMPTY{j};
    mad.lo.u32 %a16, %ab, 16384, %sm_a16;
    add.u32 %sa0, %a16, %doc0;
    add.u32 %sa1, %a16, %doc1;
    add.u32 %sa2, %a16, %doc2;
    add.u32 %sa3, %a16, %doc3;
{decode(0, j)}
{decode(1, j)}
    @!%p_third bra DEC_STORED{j};
{decode(2, j)}
DEC_STORED{j}:
    fence.proxy.async.shared::cta;            // this thread's stores, before the wgmmas' async-proxy reads
    bar.warp.sync -1;
    add.u32 %bar, %sm_afull, %tmp;
    @%p_l0 mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];
    add.u32 %ab, %ab, 1;
    setp.eq.u32 %p_wrap, %ab, {{{{A_BUFS}}}};
    @%p_wrap mov.u32 %ab, 0;
    @%p_wrap xor.b32 %aph, %aph, 1;""")
steps = "\n".join(steps)

role = f"""// {{{{if A_FP4}}}}
    // ---------------------------------------------------------------- A decoders (warps 1-3): packed A -> a16 ring
    // Decoder thread dt (0..95) owns piece p = dt % 2 (k 32p.. of each k64 sub-step) of rows r0 = dt / 2, r0 + 48 and
    // (dt < 64) r0 + 96 of every 128-row A box.  At a unit's top it moves the unit's packed words and scale words
    // (loaded a unit earlier: 16 bytes per piece and sub-step, the row's 16 scale bytes) into the current set and
    // issues the next unit's loads, so an L2 round trip (about 1000 clocks with every SM streaming B) overlaps a
    // whole unit.  Per sub-step j: wait aempty[ab], decode the three pieces with the consumers' sequence (h0, h2,
    // h1, h3 of each word = chunks 0..3, times the block scale), store chunk c of row r at r*128 + ((4p + c) ^
    // (r % 8)) * 16 (the 128B swizzle TMA wrote), fence.proxy.async (the wgmmas read through the async proxy),
    // bar.warp.sync, and lane 0 of each warp arrives on afull[ab].  Rows past m and sub-steps past k are zeros.
A_DECODERS:
    sub.u32 %dt, %thread, 32;
    and.b32 %lane, %thread, 31;
    setp.eq.u32 %p_l0, %lane, 0;
    setp.lt.u32 %p_third, %dt, 64;            // row r0 + 96 < 128
    ld.param.u64 %pa, [p_a];
    ld.param.u64 %psfa, [p_sfa];
    cvta.to.global.u64 %pa, %pa;
    cvta.to.global.u64 %psfa, %psfa;
    ld.param.u64 %arow64, [a_row];
    ld.param.u64 %abatch64, [a_batch];
    ld.param.u64 %sfrow64, [sfa_row];
    ld.param.u64 %sfbatch64, [sfa_batch];
    ld.param.u32 %kend, [k_elems];
    mul.lo.u64 %arow48, %arow64, 48;
    mul.lo.u64 %sfrow48, %sfrow64, 48;
    shr.u32 %r0, %dt, 1;
    and.b32 %dp, %dt, 1;
    mad.lo.u32 %dsel, %dp, 0x22, 0x10;        // prmt: bytes 2p, 2p + 1 of a scale word (this piece's two blocks)
    shl.b32 %x, %dp, 2;                       // chunk 4p + c of row r0 sits at ((4p + c) ^ (r0 % 8)) * 16;
    and.b32 %y, %r0, 7;                       // rows r0 + 48i have the same r % 8
    xor.b32 %x, %x, %y;
    shl.b32 %x, %x, 4;
    mad.lo.u32 %doc0, %r0, 128, %x;
    xor.b32 %doc1, %doc0, 16;
    xor.b32 %doc2, %doc0, 32;
    xor.b32 %doc3, %doc0, 48;
    mov.u32 %ab, 0;
    mov.u32 %aph, 0;
    griddepcontrol.wait;                      // launched programmatically: the previous grid's writes of A are visible
{ks_stream_adj}
    setp.ge.u32 %p_more, %u, %u_end;
    @%p_more bra EXIT;
{coords}
{load_block("FIRST")}
DEC_UNIT:
{movs}
// {{{{if KS_STREAM == 1}}}}
    add.u32 %u, %u, 2;                        // the next unit of this CTA
// {{{{else}}}}
    add.u32 %u, %u, 1;                        // the next unit of this CTA
// {{{{endif}}}}
    setp.lt.u32 %p_next, %u, %u_end;
    @!%p_next bra DEC_NEXT_LOADED;
{coords}
{load_block("NEXT")}
DEC_NEXT_LOADED:
{steps}
    @%p_next bra DEC_UNIT;
    bra.uni EXIT;
// {{{{endif}}}}"""
s = s[:start] + role + s[end:]
# registers
old_regs = s[s.index("    // A_FP4 decoders:"):s.index("%dsrc_j, %dsf_j;\n") + len("%dsrc_j, %dsf_j;\n")]
new_regs = """    // A_FP4 decoders: rows r0 + 48i (i = 0, 1, 2) of each 128-row box, piece p; the next unit's packed words and scale
    // words (%nw: piece (i, sub-step j) word w at 16i + 4j + w; %ns: row i's scale word j at 4i + j) and the current
    // unit's (%cw, %cs); decoded chunks %e<c><w>
    .reg .pred  %p_third, %p_next, %p_kv, %p_r0, %p_r1, %p_r2;
    .reg .b32   %dt, %r0, %dp, %dsel, %kel0, %kel1, %kel2, %kel3, %kend, %doc0, %doc1, %doc2, %doc3;
    .reg .b32   %sa0, %sa1, %sa2, %sa3, %ds0, %ds1;
    .reg .b32   %nw<48>, %cw<48>, %ns<12>, %cs<12>;
    .reg .b16   %hx;
    .reg .b32   %e00, %e01, %e02, %e03, %e10, %e11, %e12, %e13, %e20, %e21, %e22, %e23, %e30, %e31, %e32, %e33;
    .reg .b64   %pa, %psfa, %arow64, %abatch64, %sfrow64, %sfbatch64, %arow48, %sfrow48;
    .reg .b64   %dsrc0, %dsrc1, %dsrc2, %dsf0, %dsf1, %dsf2;
"""
s = s.replace(old_regs, new_regs)
P.write_text(s)
