"""The Hopper wgmma GEMM (ptx/gemm_nvfp4_wgmma.ptx, nvfp4rt.ops.gemm_wgmma).

CPU part: a numpy model of the kernel's data mapping, replayed on one tile
stage and on whole small problems --

* the TMA 128B swizzle (where each raw byte of a/b lands in a ring slot),
* the shift/lop3 decode and the fp16 scale folding (exactness of every product),
* which decoded-A fp16 lands in which shared-memory byte of the a16 buffer,
* how the wgmma descriptor (start address + 32 bytes per k16 step, SBO 1024,
  128B swizzle) walks that buffer, following the PTX ISA's K-major layout,
* the register fragment of wgmma's A operand (PTX ISA figure "WGMMA .m64nNk16
  register fragment layout for matrix A") holding the decoded B words,
* the accumulator layout (same figure family, matrix D) through the epilogue's
  shared-memory tile and the copy-out,
* the stream-K schedule and the deterministic reduction order --

checked against a plain float64 matrix product.  The model reads the per-step
choices (which decoded pair goes to which chunk / fragment register, the
descriptor constants) out of the PTX text, so the two cannot drift apart.

GPU part (``@pytest.mark.gpu``): the kernel against nvfp4rt.reference on
fresh data, both distributions, NaN-poisoned outputs, ragged shapes.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from nvfp4rt.nvfp4 import e4m3_values, fp4_values
from nvfp4rt.ops import gemm_wgmma as W

from conftest import requires_gpu

KERNEL = Path(__file__).resolve().parent.parent / "ptx" / "gemm_nvfp4_wgmma.ptx"
PTX = KERNEL.read_text()
MASK32 = 0xFFFFFFFF
F4 = fp4_values(np.float64)
E4M3 = e4m3_values(np.float64)


# ============================================================== facts read out of the PTX

def _stage_blocks():
    """The text of the four k64 sub-steps of the main loop."""
    parts = re.split(r"// =+ k64 sub-step (\d) of the stage", PTX)
    assert len(parts) == 9, "expected four k64 sub-step blocks"
    blocks = [parts[2 * j + 2] for j in range(4)]
    blocks[3] = blocks[3].split("// ---------------------------------------------------------------- release")[0]
    return blocks


def _decode_outputs(text: str, word: str) -> list[str]:
    """Registers receiving h0, h1, h2, h3 of the decode of ``word`` (in the kernel's order)."""
    start = text.index(f"shf.l.wrap.b32 %xr, {word}, {word}, 3;")
    body = text[start:].splitlines()[:11]
    rots = [ln.strip() for ln in body if "%we" in ln or "%wo" in ln][2:]  # the four rotations
    # three plain shifts (the masked bits never wrap; ptxas puts them on the FMA pipe as IMAD.SHL)
    # and one rotation (the sign of n7 wrapped to bit 2 by the first rotate)
    assert rots == ["shl.b32 %xr, %we, 9;", "shl.b32 %xr, %wo, 5;",
                    "shl.b32 %xr, %we, 1;", "shf.r.wrap.b32 %xr, %wo, %wo, 3;"], rots
    outs = [re.match(r"\s*and\.b32 (%\w+), %xr, 0x8E008E00;", ln) for ln in body]
    return [o.group(1) for o in outs if o]


def a_decode_blocks():
    """A_DECODER=0: the consumers' A decode of sub-step j (text from its marker to its fence), in text order."""
    found = re.findall(r"// ---- decode A for sub-step (\d) .*?\n(.*?fence\.proxy\.async\.shared::cta;)", PTX, re.S)
    assert [int(j) for j, _ in found] == [0, 1, 2, 3], [j for j, _ in found]
    return [body for _, body in found]


def prefetch_block(pp: int) -> str:
    """The load of piece pp's two B words and scales, hoisted to before the wait of the previous piece."""
    parts = PTX.split(f"// ---- prefetch piece {pp}:")
    assert len(parts) == 2, f"expected one prefetch block for piece {pp}"
    body = parts[1].split("// ---- piece")[0]
    # nothing between the prefetch and its piece may reload the prefetched registers
    between = parts[1].split(f"// ---- piece {pp}:")[0]
    assert between.count("ld.shared.b32 %w0") == 1 and between.count("cvt.rn.f16x2.e4m3x2 %sw1") == 1
    return body


def ptx_facts():
    """Per sub-step: a16 chunk i <- which decoded pair; per piece: fragment registers per step."""
    facts = []
    dec_blocks = a_decode_blocks()
    for j, blk in enumerate(_stage_blocks()):
        chunk_pair = {}
        dblk = dec_blocks[j]
        assert "add.u32 %ast, %a16n, %stA0;" in dblk
        stores = [("0", r) for r in re.findall(r"st\.shared\.v4\.b32 \[%ast\], \{([^}]*)\}", dblk)]
        stores += [(str(int(x) // 16), r) for x, r in re.findall(
            r"xor\.b32 %addr, %ast, (\d+);\s*\n\s*st\.shared\.v4\.b32 \[%addr\], \{([^}]*)\}", dblk)]
        assert len(stores) == 4, stores
        for i, regs in stores:
            names = [r.strip() for r in regs.split(",")]
            pairs = {re.fullmatch(r"%d(\d)(\d)", r).group(1) for r in names}
            words = [int(re.fullmatch(r"%d(\d)(\d)", r).group(2)) for r in names]
            assert len(pairs) == 1 and words == [0, 1, 2, 3], names
            chunk_pair[int(i)] = int(pairs.pop())
        # raw chunk 2j + wg of row am: offA0 ^ 32j (offA0 holds chunk wg ^ (am % 8) in bits 4..6)
        assert "add.u32 %addr, %slot_addr, %offA0;" in dblk
        assert (f"xor.b32 %addr, %addr, {32 * j};" in dblk) == (j > 0)
        a_dec = [_decode_outputs(dblk, f"%aw{w}") for w in range(4)]
        for w in range(4):  # decode(aw<w>) -> %d0w (h0), %d1w (h1), %d2w (h2), %d3w (h3)
            assert a_dec[w] == [f"%d{h}{w}" for h in range(4)], a_dec[w]
        pieces = []
        for q in range(2):
            pblk = blk.split(f"// ---- piece {2 * j + q}:")[1].split("wgmma.commit_group")[0]
            lblk = prefetch_block(2 * j + q)
            assert f"xor.b32 %addr, %bslot, {16 * (2 * j + q)};" in lblk  # chunk pp = offB0 ^ 16 pp
            soff = [int(x) for x in re.findall(r"ld\.shared\.u8 %sb[01], \[%sfslot\+(\d+)\];", lblk)]
            assert len(soff) == 2 and soff[1] == soff[0] + 128, soff  # row g + 8 is 8 scale rows further
            assert "ld.shared.b32" not in pblk  # the piece decodes the prefetched words
            row0 = _decode_outputs(pblk, "%w0")  # h0..h3 of the word of row g
            row1 = _decode_outputs(pblk, "%w1")  # of row g + 8
            steps = re.findall(r"add\.u32 %x, %dlo, (\d+);.*?\{(%\w+), (%\w+), (%\w+), (%\w+)\}, %desc, %p_acc",
                               pblk, re.S)
            assert len(steps) == 2
            frag = []
            for inc, *regs in steps:
                # each fragment register -> (row 0/1 of the thread, pair h)
                where = []
                for r in regs:
                    if r in row0:
                        where.append((0, row0.index(r)))
                    else:
                        where.append((1, row1.index(r)))
                frag.append((int(inc), where))
            for r in ("%sw0", "%sw1"):  # the cvt'd (s, 0) pair broadcast to (s, s)
                assert f"mov.b32 {{%hl, %hh}}, {r};\n    mov.b32 {r}, {{%hl, %hl}};" in lblk
            pieces.append({"frag": frag, "sfb_off": soff[0]})
        facts.append({"chunk_pair": chunk_pair, "pieces": pieces,
                      "sfa_off": int(re.search(r"ld\.shared\.b16 %h16, \[%addr\+(\d+)\]", dblk).group(1))})
    return facts


FACTS = ptx_facts()


def decoder_facts():
    """A_DECODER=1 decoder section: per sub-step j, per piece q: raw chunk, scale byte offset, and
    decoded chunk c <- (pair h, scale register per word), read out of the PTX text."""
    text = PTX.split("DECODER:\n")[1].split("PRODUCER:")[0]
    setup = text.split("D_LOOP:")[0]
    xor_of = {}
    for c, reg_dr, reg_ds in re.findall(r"xor\.b32 %x, %y, (\d);\s*\n\s*shl\.b32 %x, %x, 4;\s*\n"
                                        r"\s*add\.u32 %dr(\d), %dec_row, %x;\s*\n\s*add\.u32 %dr\d, %dr\d, 16384;.*\n"
                                        r"\s*add\.u32 %ds(\d), %dec_row, %x;", setup):
        assert c == reg_dr == reg_ds
        xor_of[int(c)] = int(c)
    assert sorted(xor_of) == list(range(8))
    assert "shl.b32 %dec_row, %thread, 7;" in setup and "and.b32 %y, %thread, 7;" in setup
    assert "add.u32 %sfrow, %sfrow, 34816;" in setup and "shl.b32 %sfrow, %thread, 4;" in setup
    subs = re.split(r"// ---- decoder: k64 sub-step (\d)", text)[1:]
    assert [int(x) for x in subs[0::2]] == [0, 1, 2, 3]
    out = []
    for blk in subs[1::2]:
        pieces = blk.split("add.u32 %addr, %slot_addr, %dr")[1:]
        assert len(pieces) == 2
        pf = []
        for ptxt in pieces:
            raw = int(re.match(r"(\d);", ptxt).group(1))
            soff = int(re.search(r"ld\.shared\.b16 %h16, \[%addr\+(\d+)\]", ptxt).group(1))
            assert "cvt.rn.f16x2.e4m3x2 %as, %h16;" in ptxt and "mov.b32 %as0, {%hl, %hl};" in ptxt \
                and "mov.b32 %as1, {%hh, %hh};" in ptxt
            for w in range(4):
                assert _decode_outputs(ptxt, f"%aw{w}") == [f"%d{h}{w}" for h in range(4)]
            scale_reg = {}
            for h, w, sreg in re.findall(r"mul\.rn\.f16x2 %d(\d)(\d), %d\d\d, (%as[01]);", ptxt):
                scale_reg[(int(h), int(w))] = int(sreg[-1])
            assert len(scale_reg) == 16
            chunks = {}
            for c, regs in re.findall(r"add\.u32 %addr, %a16, %ds(\d);\s*\n\s*st\.shared\.v4\.b32 \[%addr\], "
                                      r"\{([^}]*)\}", ptxt):
                names = [re.fullmatch(r"%d(\d)(\d)", r.strip()).groups() for r in regs.split(",")]
                assert len({h for h, _ in names}) == 1 and [int(w) for _, w in names] == [0, 1, 2, 3]
                chunks[int(c)] = int(names[0][0])
            pf.append({"raw": raw, "sfa_off": soff, "scale_reg": scale_reg, "chunks": chunks})
        assert "fence.proxy.async.shared::cta;" in blk and "add.u32 %bar, %sm_afull, %tmp;" in blk
        out.append(pf)
    return out


DECODER_FACTS = decoder_facts()


def test_ptx_descriptor_constants_match_the_model():
    assert "mov.b32 %desc_hi, 0x40000040;" in PTX  # SBO 1024 >> 4 = 64 in bits 32..45, swizzle 1 (128B) bits 62..63
    assert "or.b32 %dlo, %dlo, 0x10000;" in PTX     # LBO field 1 (16 bytes), ignored with 128B swizzle
    assert "shr.u32 %dlo, %a16, 4;" in PTX
    hi = 0x40000040
    desc = (hi << 32) | 0x10000
    assert (desc >> 62) & 3 == 1 and ((desc >> 32) & 0x3FFF) << 4 == 1024 and ((desc >> 16) & 0x3FFF) << 4 == 16


def test_ptx_reads_the_pieces_and_scales_in_stage_order():
    for j, f in enumerate(FACTS):
        assert f["sfa_off"] == 4 * j
        for q, p in enumerate(f["pieces"]):
            assert p["sfb_off"] == 4 * j + 2 * q  # + t/2 (in %sfB): block 2*(2j + q) + t/2 of the row
            assert [inc for inc, _ in p["frag"]] == [2 * (2 * q), 2 * (2 * q + 1)]


# ============================================================== model pieces

def rotl(x, n):
    n %= 32
    return ((x << n) | (x >> (32 - n))) & MASK32 if n else x


def decode_word(w: int) -> list[int]:
    """The kernel's decode: h0=(n0,n4), h1=(n1,n5), h2=(n2,n6), h3=(n3,n7), fp16 bits of value * 2^-14."""
    x = rotl(w, 3)
    we = (w & 0x07070707) | (x & ~0x07070707 & MASK32)
    wo = (w & 0x70707070) | (x & ~0x70707070 & MASK32)
    return [((we << 9) & MASK32) & 0x8E008E00, ((wo << 5) & MASK32) & 0x8E008E00,
            ((we << 1) & MASK32) & 0x8E008E00, rotl(wo, 29) & 0x8E008E00]


def halves(h: int) -> np.ndarray:
    return np.array([h & 0xFFFF, h >> 16], dtype=np.uint16).view(np.float16)


def pack(lo_hi: np.ndarray) -> int:
    u = np.asarray(lo_hi, dtype=np.float16).view(np.uint16)
    return int(u[0]) | (int(u[1]) << 16)


def scaled_pair(h: int, scale_byte: int, normal: bool) -> int:
    """mul.rn.f16x2 by 2^14 (NORMAL_OPERANDS=1) then by the cvt'd e4m3 scale, both halves."""
    v = halves(h)
    s = np.float16(E4M3[scale_byte])  # cvt.rn.f16x2.e4m3x2 is exact (every e4m3 is an fp16)
    if normal:
        v = (v * np.float16(2.0**14)).astype(np.float16)
    return pack((v * s).astype(np.float16))


def swz128(row: int, byte: int) -> int:
    """Byte offset of (row, byte) of a 128-byte-row box written by TMA with 128B swizzle (1024-aligned base)."""
    return row * 128 + ((((byte >> 4) ^ (row & 7)) << 4) | (byte & 15))


def wgmma_b_operand(smem: np.ndarray, start: int, sbo: int, n_rows: int) -> np.ndarray:
    """K-major, 128B-swizzled B operand of one k16 step: element (kk, col) at start + (col//8)*SBO +
    (col%8)*128 + 2*kk, address bits [4,7) XOR bits [7,10) (PTX ISA shared-memory matrix layouts)."""
    out = np.empty((16, n_rows), dtype=np.float64)
    for col in range(n_rows):
        for kk in range(16):
            addr = start + (col // 8) * sbo + (col % 8) * 128 + 2 * kk
            addr ^= ((addr >> 7) & 7) << 4
            out[kk, col] = float(smem[addr:addr + 2].view(np.float16)[0])
    return out


def frag_coords(lane: int, warp: int, e: int) -> tuple[int, int]:
    """(row, column) of element e (0..7 for A, 0..N/2-1 for D) of a thread in a warpgroup, PTX ISA wgmma
    m64nNk16 figures: row = 16*warp + lane/4 + 8*((e/2)%2), col = 8*(e/4) + 2*(lane%4) + e%2."""
    return 16 * warp + lane // 4 + 8 * ((e // 2) % 2), 8 * (e // 4) + 2 * (lane % 4) + e % 2


# ============================================================== one-stage replay

def random_stage(rng, scale_codes=None):
    """Raw bytes of one 128-row x k256 stage of a and b, and their scale bytes."""
    a = rng.integers(0, 256, size=(128, 128), dtype=np.uint8)
    b = rng.integers(0, 256, size=(128, 128), dtype=np.uint8)
    codes = np.arange(1, 0x7F) if scale_codes is None else np.asarray(scale_codes)
    sfa = rng.choice(codes, size=(128, 16)).astype(np.uint8)
    sfb = rng.choice(codes, size=(128, 16)).astype(np.uint8)
    return a, b, sfa, sfb


def decoded(x: np.ndarray, sf: np.ndarray) -> np.ndarray:
    """float64 values of packed rows (low nibble first) times their block scales."""
    vals = np.empty((x.shape[0], x.shape[1] * 2))
    vals[:, 0::2] = F4[x & 15]
    vals[:, 1::2] = F4[x >> 4]
    return vals * np.repeat(E4M3[sf], 16, axis=1)


def stage_slot(a, b, sfa, sfb):
    """One ring slot as TMA leaves it: [B 128B-swizzled | A 128B-swizzled | sfb | sfa]."""
    slot = np.zeros(36864, dtype=np.uint8)
    for r in range(128):
        for byte in range(128):
            slot[swz128(r, byte)] = b[r, byte]
            slot[16384 + swz128(r, byte)] = a[r, byte]
    slot[32768:34816] = sfb.reshape(-1)
    slot[34816:36864] = sfa.reshape(-1)
    return slot


def consumer_a16(slot, j, normal=True):
    """A_DECODER=0: the a16 buffer of sub-step j as the 256 consumer threads write it."""
    f = FACTS[j]
    a16 = np.zeros(16384, dtype=np.uint8)
    for ct in range(256):  # A decode: thread = (row am, piece q = warpgroup)
        am, q = ct % 128, ct // 128
        src = 16384 + am * 128 + ((((2 * j + q) ^ (am & 7)) << 4))
        words = slot[src:src + 16].view(np.uint32)
        sbytes = slot[34816 + am * 16 + 2 * q + f["sfa_off"]:][:2]  # ld.shared.b16 at 4j + 2q
        dec = [[scaled_pair(h, int(sbytes[w // 2]), normal) for h in decode_word(int(words[w]))] for w in range(4)]
        for i in range(4):
            h = f["chunk_pair"][i]
            dst = am * 128 + ((((4 * q + i) ^ (am & 7)) << 4))
            a16[dst:dst + 16] = np.array([dec[w][h] for w in range(4)], dtype=np.uint32).view(np.uint8)
    return a16


def decoder_a16(slot, j, normal=True):
    """A_DECODER=1: the a16 buffer of sub-step j as the 128 decoder threads (one row each) write it."""
    a16 = np.zeros(16384, dtype=np.uint8)
    for r in range(128):
        for p in DECODER_FACTS[j]:
            src = 16384 + r * 128 + ((p["raw"] ^ (r & 7)) << 4)          # %dr<c> + slot
            words = slot[src:src + 16].view(np.uint32)
            sbytes = slot[34816 + r * 16 + p["sfa_off"]:][:2]           # %sfrow + offset
            dec = {(h, w): scaled_pair(hv, int(sbytes[p["scale_reg"][(h, w)]]), normal)
                   for w in range(4) for h, hv in enumerate(decode_word(int(words[w])))}
            for c, h in p["chunks"].items():
                dst = r * 128 + ((c ^ (r & 7)) << 4)                      # %ds<c> + a16
                a16[dst:dst + 16] = np.array([dec[(h, w)] for w in range(4)], dtype=np.uint32).view(np.uint8)
    return a16


def replay_stage(a, b, sfa, sfb, normal=True, a16_of=consumer_a16):
    """Run the model of the consumer main loop over one stage; D[wg] is the 64 x 128 accumulator."""
    slot = stage_slot(a, b, sfa, sfb)
    D = np.zeros((2, 64, 128))
    for j, f in enumerate(FACTS):
        a16 = a16_of(slot, j, normal)
        for wg in range(2):
            for q, p in enumerate(f["pieces"]):
                pp = 2 * j + q
                frag_regs = {}
                for wi in range(4):
                    for lane in range(32):
                        g, t = lane // 4, lane % 4
                        row_b = 64 * wg + 16 * wi + g
                        off = row_b * 128 + (((pp ^ g) << 4)) + 4 * t
                        w0 = int(slot[off:off + 4].view(np.uint32)[0])
                        w1 = int(slot[off + 1024:off + 1028].view(np.uint32)[0])
                        # %sfslot = slot + 32768 + 16 rowB + t/2; the piece adds its immediate
                        s0 = int(slot[32768 + row_b * 16 + t // 2 + p["sfb_off"]])
                        s1 = int(slot[32768 + (row_b + 8) * 16 + t // 2 + p["sfb_off"]])
                        rows = [[scaled_pair(h, s0, normal) for h in decode_word(w0)],
                                [scaled_pair(h, s1, normal) for h in decode_word(w1)]]
                        frag_regs[(wi, lane)] = rows
                for inc, where in p["frag"]:
                    afrag = np.zeros((64, 16))
                    for (wi, lane), rows in frag_regs.items():
                        for reg, (r, h) in enumerate(where):
                            pair = halves(rows[r][h]).astype(np.float64)
                            for half in range(2):
                                row, kk = frag_coords(lane, wi, 2 * reg + half)
                                afrag[row, kk] = pair[half]
                    bop = wgmma_b_operand(a16, inc * 16, 1024, 128)  # start = buffer + (inc << 4) bytes
                    D[wg] += afrag @ bop
    return D


@pytest.mark.parametrize("decoder", [False, True])
@pytest.mark.parametrize("normal", [True, False])
def test_one_stage_replay_equals_the_matrix_product(normal, decoder):
    rng = np.random.default_rng()
    a, b, sfa, sfb = random_stage(rng)
    D = replay_stage(a, b, sfa, sfb, normal, decoder_a16 if decoder else consumer_a16)
    ref = decoded(b, sfb) @ decoded(a, sfa).T  # C^T: rows = b rows (n), columns = a rows (m)
    if not normal:
        ref = ref * 2.0**-28
    np.testing.assert_allclose(np.concatenate([D[0], D[1]]), ref, rtol=1e-12, atol=0)


@pytest.mark.parametrize("normal", [True, False])
def test_scaled_operands_are_exact_for_every_code_and_scale(normal):
    for code in range(16):
        for s in range(0x7F):  # every finite positive e4m3 (and zero)
            nib = [code] * 8
            w = sum(c << (4 * i) for i, c in enumerate(nib))
            got = halves(scaled_pair(decode_word(w)[0], s, normal)).astype(np.float64)
            want = F4[code] * E4M3[s] * (1.0 if normal else 2.0**-14)
            assert got[0] == want and got[1] == want, (code, s, got, want)
            if normal and want != 0:
                assert abs(want) >= 2.0**-14  # a normal fp16: no subnormal ever reaches the tensor cores


def test_epilogue_coordinates_cover_the_tile_once_and_land_in_c():
    """Accumulator element e of every consumer thread -> sC byte -> copy-out position (m_l, n_l)."""
    text = PTX.split("STORE_TILE:")[1].split("OUT_LOOP:")[0]
    offs = [int(x) for x in re.findall(r"st\.shared\.b16 \[%addr\+(\d+)\], %c16;", text)]
    accs = [int(x) for x in re.findall(r"mul\.f32 %v0, %acc(\d+), %alpha;", text)]
    assert accs == list(range(64)) and len(offs) == 64
    pitch = 272
    seen = {}
    for ct in range(256):
        wg, wi, lane = ct // 128, (ct % 128) // 32, ct % 32
        g, t = lane // 4, lane % 4
        base = 2 * t * pitch + (64 * wg + 16 * wi + g) * 2
        for e in range(64):
            addr = base + offs[e]
            m_l, n_l = addr // pitch, (addr % pitch) // 2
            row, col = frag_coords(lane, wi, e)  # wgmma D: row = b row in the warpgroup, col = a row
            assert (m_l, n_l) == (col, 64 * wg + row), (ct, e)
            assert addr not in seen
            seen[addr] = (ct, e)
    assert len(seen) == 128 * 128
    # conflict-free 2-byte writes: for each e, the 32 lanes of a warp hit 32 distinct banks or share a word
    for e in range(64):
        words = {}
        for lane in range(32):
            g, t = lane // 4, lane % 4
            addr = 2 * t * pitch + g * 2 + offs[e]
            words.setdefault((addr // 4) % 32, set()).add(addr // 4)
        assert all(len(v) == 1 for v in words.values())


def test_swizzled_raw_reads_are_bank_conflict_free():
    # B words: a warp reads rows g (8 of them) x threads t: per piece, 32 lanes x 4 bytes
    for pp in range(8):
        banks = {}
        for lane in range(32):
            g, t = lane // 4, lane % 4
            off = g * 128 + ((pp ^ g) << 4) + 4 * t
            banks.setdefault((off // 4) % 32, set()).add(off // 4)
        assert all(len(v) == 1 for v in banks.values())
    # A 16-byte loads and a16 16-byte stores: each quarter warp (8 lanes = 8 consecutive rows) covers 8 chunks
    for j in range(4):
        for q in range(2):
            for i in range(4):
                for quarter in range(4):
                    rows = range(8 * quarter, 8 * quarter + 8)
                    assert len({((2 * j + q) ^ (r & 7)) for r in rows}) == 8
                    assert len({((4 * q + i) ^ (r & 7)) for r in rows}) == 8


# ============================================================== schedule

SHAPES = [(128, 7168, 16384, 1), (128, 4096, 7168, 1), (128, 7168, 2048, 1), (1, 1, 64, 1), (300, 129, 320, 3),
          (129, 1000, 4096, 2), (77, 7, 1088, 1)]


def segments(geo, cta):
    """The kernel's segment loop: (tile, first unit, end unit) for one CTA."""
    u, end = cta * geo.units_per_cta, min((cta + 1) * geo.units_per_cta, geo.units)
    out = []
    while u < end:
        tile = u // geo.k_stages
        seg_end = min(end, (tile + 1) * geo.k_stages)
        out.append((tile, u, seg_end))
        u = seg_end
    return out


@pytest.mark.parametrize("m,n,k,l", SHAPES)
@pytest.mark.parametrize("sms", [132, 114, 7])
def test_every_unit_once_and_partials_in_distinct_slots(m, n, k, l, sms):
    geo = W.wgmma_geometry(m, n, k, l, sms)
    # one wave, unless that would chain more than 8192 k in one accumulator (then more waves)
    assert geo.grid <= sms or geo.units_per_cta == W.MAX_CHAIN_UNITS
    assert geo.units_per_cta <= W.MAX_CHAIN_UNITS
    assert (geo.grid - 1) * geo.units_per_cta < geo.units <= geo.grid * geo.units_per_cta
    covered = np.zeros(geo.units, dtype=int)
    by_tile: dict[int, list[int]] = {}
    slots = {}
    for cta in range(geo.grid):
        segs = segments(geo, cta)
        assert segs, "every CTA has work"
        partial = 0
        for tile, u0, u1 in segs:
            covered[u0:u1] += 1
            by_tile.setdefault(tile, []).append(cta)
            whole = (u0, u1) == (tile * geo.k_stages, (tile + 1) * geo.k_stages)
            contributors = list(W.tile_contributors(geo, tile))
            assert whole == (len(contributors) == 1)
            if not whole:
                partial += 1
                slot = W.workspace_slot(geo, cta, tile)
                assert slot not in slots and slot // 2 == cta
                slots[slot] = tile
        assert partial <= 2
    assert (covered == 1).all()
    for tile, ctas in by_tile.items():
        assert ctas == list(W.tile_contributors(geo, tile))  # the reduction adds them in this order


def test_benchmark_shapes_fill_an_h100():
    for (m, n, k), grid in zip([(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)], (128, 128, 112)):
        geo = W.wgmma_geometry(m, n, k, 1, 132)
        assert geo.grid == grid and geo.balance == 1.0
        assert geo.shared_mem <= 227 * 1024


def test_last_arrival_sums_in_cta_order_whatever_the_arrival_order():
    rng = np.random.default_rng()
    geo = W.wgmma_geometry(128, 4096, 7168, 1, 132)
    parts = {c: rng.standard_normal(8).astype(np.float32) for c in W.tile_contributors(geo, 5)}
    results = set()
    for _ in range(10):
        order = rng.permutation(list(parts))
        counter = 0
        for c in order:  # the kernel: atom.add returns the old count; the last one reduces
            old, counter = counter, counter + 1
            if old == len(parts) - 1:
                acc = np.zeros(8, dtype=np.float32)
                for cc in W.tile_contributors(geo, 5):
                    acc = acc + parts[cc]
                results.add(acc.tobytes())
    assert len(results) == 1


# ============================================================== plan validation (no GPU needed)

def test_subnormal_operands_unless_alpha_would_overflow():
    assert W.operands_normal(1.0, False) is False and W.operands_normal(1.0, True) is True
    assert W.operands_normal(-1e30, False) is False        # 1e30 * 2^28 ~ 2.7e38 still fits fp32
    assert W.operands_normal(2e30, False) is True          # 5.4e38 would not
    assert W.kernel_constants()["NORMAL_OPERANDS"] == 0    # the default kernel


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(m=0, n=1, k=64), ValueError, "m must be a positive int"),
    (dict(m=1, n=1, k=96), ValueError, "multiple of 64"),
    (dict(m=1, n=1, k=64, stages=5), ValueError, "stages must be in 2..4"),
    (dict(m=1, n=1, k=64, units_per_cta=0), ValueError, "units_per_cta"),
    (dict(m=1, n=1, k=64, multicast=True), ValueError, "not implemented"),
    (dict(m=1, n=1, k=64, multicast=1), TypeError, "multicast must be a bool"),
    (dict(m=1, n=1, k=64, alpha=float("nan")), ValueError, "alpha must be a finite float"),
    (dict(m=1, n=1, k=64, wgmma_depth=2), ValueError, "wgmma_depth must be one of"),
    (dict(m=1, n=1, k=64, wgmma_depth=True), TypeError, "wgmma_depth must be an int"),
    (dict(m=1, n=1, k=64, wgmma_depth=3, a_decoder=True), ValueError, "needs a_decoder=False"),
])
def test_bad_plan_arguments_raise_before_any_gpu_work(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        W.GemmWgmmaPlan(**kwargs)


def test_kernel_file_is_ascii_with_a_header():
    KERNEL.read_bytes().decode("ascii")
    head = PTX.splitlines()[0]
    assert head.startswith("// nvfp4rt: targets=sm_90a constants=")
    declared = dict(kv.split("=") for kv in head.split("constants=")[1].split(","))
    # the header's defaults are exactly the default plan's constants
    assert {k: int(v) for k, v in declared.items()} == W.kernel_constants()


def test_decoder_writes_the_same_a16_bytes_as_the_consumer_decode():
    rng = np.random.default_rng()
    slot = stage_slot(*random_stage(rng))
    for j in range(4):
        for normal in (True, False):
            assert np.array_equal(decoder_a16(slot, j, normal), consumer_a16(slot, j, normal)), (j, normal)
    # the decoder covers every piece of the stage once, in sub-step order, with its own scale bytes
    assert [p["raw"] for f in DECODER_FACTS for p in f] == list(range(8))
    assert [p["sfa_off"] for f in DECODER_FACTS for p in f] == [2 * pp for pp in range(8)]


def _render(**constants):
    from nvfp4rt.ptxsource import render

    return render(PTX, "sm_90a", W.kernel_constants(**constants))


def _code(text):
    return [ln.split("//")[0].strip() for ln in text.splitlines() if ln.split("//")[0].strip()]


def test_decoder_variant_roles_barrier_counts_and_layout():
    text = _render(a_decoder=True, a_bufs=3)
    code = _code(text)
    assert ".maxntid 416, 1, 1" in code and ".maxntid 384, 1, 1" not in code
    assert "mbarrier.init.shared::cta.b64 [%bar], 12;" in code      # 8 consumer warps + 4 decoder warps
    assert "mbarrier.init.shared::cta.b64 [%bar], 128;" in code     # afull: every decoder thread
    assert code.count("mbarrier.init.shared::cta.b64 [%bar], 8;") == 1  # aempty: one per consumer warp
    producer = _code(text.split("PRODUCER:")[1])
    assert producer[0] == "setp.ne.u32 %p_lead, %thread, 384;"  # lane 0 of warp 12 issues the TMA loads
    assert "@%p_lead bra DECODER;" in code  # warpgroup 0 (threads 0..127) decodes A
    assert code.count("setp.eq.u32 %p_wrap, %ab, 3;") == 8  # 4 consumer sub-steps + 4 decoder sub-steps
    # shared layout: ring | a16 x A_BUFS | C tile | full | empty | afull | aempty | flag  == shared_bytes()
    assert "add.u32 %sm_c, %sm_a16, 3*16384;" in code and "add.u32 %sm_full, %sm_c, 34816;" in code
    assert "add.u32 %sm_flag, %sm_aempty, 3*8;" in code
    S = 3
    assert W.shared_bytes(S, True, 3) == 1024 + S * 36864 + 3 * 16384 + 34816 + 16 * S + 16 * 3 + 16
    # consumers: the a16 wait sits before each sub-step's first wgmma, the release after the second
    # piece's wait_group (all wgmmas of the previous sub-step complete), and once more at segment end
    for j in range(4):
        blk = text.split(f"C_WAIT_A{j}:")[1]
        first_wgmma = blk.index("wgmma.mma_async")
        assert blk.index("wgmma.fence.sync.aligned;") < first_wgmma
        after = blk.split("wgmma.commit_group.sync.aligned;")[1]
        rel = after.index("@%p_rel mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];")
        assert after.index("wgmma.wait_group.sync.aligned 1;") < rel < after.index("wgmma.mma_async")
    seg = text.split("segment epilogue")[1]
    assert seg.index("wgmma.wait_group.sync.aligned 0;") < seg.index("@%p_rel mbarrier.arrive") < seg.index("STORE_TILE")
    # the epilogue stages C in its own area (the decoder may already fill a16 for the next tile)
    store = text.split("STORE_TILE:")[1].split("NEXT_SEG:")[0]
    assert "%sm_a16" not in store and "%sm_c" in store


def test_baseline_variant_renders_without_decoder_code():
    code = _code(_render())
    assert "DECODER:" not in code
    assert not [ln for ln in code if "%sm_afull" in ln and not ln.startswith(".reg")]
    assert ".maxntid 384, 1, 1" in code and "mov.u32 %sm_c, %sm_a16;" in code


def _ring_protocol(units, nbufs, stages):
    """Event model of the A_DECODER=1 a16 ring and raw ring (parities as in the PTX); returns the
    order of (who, what) events or raises on deadlock.  Consumers release a16 buffer j-1 after
    the second piece of sub-step j (and the last one at segment end = after every unit here)."""
    afull, aempty = [0] * nbufs, [0] * nbufs      # completed phases
    full, empty = [0] * stages, [0] * stages
    dec = dict(u=0, j=0, ab=0, aph=0)
    con = dict(u=0, j=0, ab=0, aph=0, pend=None, piece=0)
    prod = dict(u=0, slot=0, ph=0)
    empty_arr = [0] * stages
    decoded = []
    steps = 0
    while con["u"] < units:
        steps += 1
        if steps > 100000:
            raise AssertionError("deadlock")
        moved = False
        # producer: unit u goes to slot u % stages once that slot's empty barrier completed lap u // stages
        if prod["u"] < units and empty[prod["slot"]] >= prod["u"] // stages:
            full[prod["slot"]] += 1
            prod["u"] += 1
            prod["slot"] = (prod["slot"] + 1) % stages
            prod["ph"] ^= prod["slot"] == 0
            moved = True
        # decoder: needs full of its unit and aempty of its buffer
        if dec["u"] < units:
            slot, lap = dec["u"] % stages, dec["u"] // stages
            n_fill = (dec["u"] * 4 + dec["j"]) // nbufs  # how many times buffer ab was filled before
            if full[slot] > lap and aempty[dec["ab"]] >= n_fill:
                afull[dec["ab"]] += 1
                decoded.append((dec["u"], dec["j"], dec["ab"]))
                dec["j"] += 1
                dec["ab"] = (dec["ab"] + 1) % nbufs
                if dec["j"] == 4:
                    dec["j"] = 0
                    empty_arr[slot] += 4
                    dec["u"] += 1
                moved = True
        # consumer sub-step
        slot, lap = con["u"] % stages, con["u"] // stages
        n_fill = (con["u"] * 4 + con["j"]) // nbufs
        if full[slot] > lap and afull[con["ab"]] > n_fill:
            if con["pend"] is not None:
                aempty[con["pend"]] += 1
            con["pend"] = con["ab"]
            con["ab"] = (con["ab"] + 1) % nbufs
            con["j"] += 1
            if con["j"] == 4:
                con["j"] = 0
                empty_arr[slot] += 8
                con["u"] += 1
            moved = True
        for s_ in range(stages):
            while empty_arr[s_] >= 12:
                empty_arr[s_] -= 12
                empty[s_] += 1
        if not moved:
            raise AssertionError("deadlock")
    return decoded


@pytest.mark.parametrize("nbufs", [2, 3, 4])
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_decoder_ring_protocol_never_deadlocks_and_keeps_order(nbufs, stages):
    decoded = _ring_protocol(11, nbufs, stages)
    assert [(u, j) for u, j, _ in decoded] == [(u, j) for u in range(11) for j in range(4)]
    assert [ab for *_, ab in decoded] == [i % nbufs for i in range(44)]


try:
    from nvfp4rt.assemble import assemble, find_ptxas
    _HAVE_PTXAS = find_ptxas() is not None
except ImportError:  # pragma: no cover
    _HAVE_PTXAS = False


@pytest.mark.skipif(not _HAVE_PTXAS, reason="ptxas not found")
@pytest.mark.parametrize("constants", [dict(normal_operands=True), dict(normal_operands=False),
                                       dict(wgmma_depth=3), dict(wgmma_depth=3, normal_operands=True),
                                       dict(tile_n=256), dict(tile_n=256, normal_operands=True),
                                       dict(a_decoder=True, a_bufs=4), dict(a_decoder=True, a_bufs=4, normal_operands=False),
                                       dict(a_decoder=True, a_bufs=3), dict(a_decoder=True, a_bufs=2)])
def test_kernel_assembles_without_spills_or_wgmma_serialisation(constants):
    rep = assemble(KERNEL, "sm_90a", W.kernel_constants(**constants))
    fn = rep.functions["nvfp4_gemm_wgmma"]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0
    assert "serializ" not in rep.log.lower()


# ============================================================== A_DECODER=0 pipeline: offsets and a16/fragment hazards

def test_setup_offsets_are_the_xor_forms_the_model_uses():
    """offB_pp = offB0 ^ 16pp, raw A chunk 2j + wg = offA0 ^ 32j, decoded chunk 4wg + i = stA0 ^ 16i,
    and the B scale byte of piece 2j + q at sfB + 4j + 2q with sfB = 32768 + 16 rowB + t/2."""
    setup = _render().split("// ================================================================== consumers")[1].split("SEG_LOOP:")[0]
    # the replay's slot layout (stage_slot) is the default stage layout the kernel is built with
    assert W.stage_layout(128) == {"A_OFF": 16384, "SFB_OFF": 32768, "SFA_OFF": 34816, "STAGE_BYTES": 36864}
    assert "add.u32 %tmp, %tmp, 16384;" in setup and "add.u32 %sfA, %sfA, 34816;" in setup
    for line in ("shl.b32 %tmp, %rowB, 7;", "shl.b32 %tmp2, %t, 2;", "xor.b32 %x, %g, 0;", "add.u32 %offB0, %tmp, %x;",
                 "shl.b32 %sfB, %rowB, 4;", "add.u32 %sfB, %sfB, 32768;", "shr.u32 %tmp, %t, 1;",
                 "add.u32 %sfB, %sfB, %tmp;", "add.u32 %offA0, %tmp, %x;", "add.u32 %stA0, %tmp, %x;"):
        assert line in setup, line
    for row in range(128):
        g, t = row % 8, None
        for t in range(4):
            off0 = row * 128 + 4 * t + ((g ^ 0) << 4)
            for pp in range(8):
                assert off0 ^ (16 * pp) == row * 128 + 4 * t + ((g ^ pp) << 4)
        for wg in range(2):
            y = row & 7
            offa0 = 16384 + row * 128 + ((wg ^ y) << 4)
            sta0 = row * 128 + (((4 * wg) ^ y) << 4)
            for j in range(4):
                assert offa0 ^ (32 * j) == 16384 + row * 128 + (((2 * j + wg) ^ y) << 4)
                assert sta0 ^ (16 * j) == row * 128 + (((4 * wg + j) ^ y) << 4)
    for slot in range(4):  # slot bases are 1024-aligned, so the xor may be applied after adding them
        assert (1024 * 36 * slot) % 1024 == 0


def _consumer_program(text):
    """Events of one consumer warpgroup's unit, in the rendered PTX's order (A_DECODER=0):
    ('write', j) A decode of sub-step j, ('bar',), ('wait', n), ('issue', piece, set)."""
    body = text.split("UNIT_LOOP:")[1].split("// ---------------------------------------------------------------- release")[0]
    ev, piece = [], None
    for m in re.finditer(r"// ---- decode A for sub-step (\d)|^\s*bar\.sync 1, 256;|wgmma\.wait_group\.sync\.aligned (\d+);"
                         r"|// ---- piece (\d):|wgmma\.mma_async[^{]*\{[^}]*\},\s*\{(%\w)", body, re.M):
        if m.group(1):
            ev.append(("write", int(m.group(1))))
        elif m.group(0).strip().startswith("bar.sync"):
            ev.append(("bar",))
        elif m.group(2):
            ev.append(("wait", int(m.group(2))))
        elif m.group(3):
            piece = int(m.group(3))
        elif ev[-1][0] != "issue" or ev[-1][1] != piece:
            ev.append(("issue", piece, m.group(4)))
    return ev


def _simulate(program, units, nbufs, segments=2):
    """Two consumer warpgroups run `program` per unit, `units` units per segment, the segment end being
    wait_group 0 + barrier + the C tile staged over the a16 buffers + barrier.  A wgmma group is taken to
    complete as late as the waits allow.  Raises AssertionError on an a16 write while a group that may
    read the old contents is pending (either warpgroup), on a group reading a buffer before both
    warpgroups' writes are behind a common barrier, and on a fragment set rewritten before its last
    group is known complete."""
    full = []
    for seg in range(segments):
        for u in range(units):
            full += [(e[0], 4 * (seg * units + u) + e[1]) if e[0] == "write" else
                     (("issue", 8 * (seg * units + u) + e[1], e[2]) if e[0] == "issue" else e) for e in program]
        full += [("wait", 0), ("bar",), ("stage",), ("bar",)]
    # per warpgroup: groups issued (sub-step, set), guaranteed-complete count, barriers passed, write barrier
    st = [dict(groups=[], done=0, bars=0, pos=0, wrote={}, last_set={}) for _ in range(2)]
    published = [[], []]  # done-count of each warpgroup at each barrier

    def known_done(v, me):
        """Groups of warpgroup v known complete to warpgroup me."""
        if v == me:
            return st[v]["done"]
        k = st[me]["bars"]
        return published[v][k - 1] if k else 0

    def check_free(me, sub_steps):
        for v in range(2):
            for gi, (s, _) in enumerate(st[v]["groups"]):
                if s in sub_steps:
                    assert gi < known_done(v, me), f"wg{me} rewrites a16 of sub-step {s} under wg{v}'s pending group {gi}"
            # groups of v not yet issued that read those sub-steps would come later: v has not reached them,
            # so v cannot have passed the barrier `me` relies on -> they must not exist
            issued_subs = {s for s, _ in st[v]["groups"]}
            for s in sub_steps:
                if s not in issued_subs and v != me:
                    assert False, f"wg{me} rewrites a16 of sub-step {s} before wg{v} even read it"

    while any(w["pos"] < len(full) for w in st):
        for me in range(2):
            w = st[me]
            while w["pos"] < len(full) and full[w["pos"]][0] != "bar":
                e = full[w["pos"]]
                w["pos"] += 1
                if e[0] == "write":
                    s = e[1]
                    check_free(me, {x for x in range(s - nbufs, -1, -nbufs)})
                    w["wrote"][s] = w["bars"]
                elif e[0] == "stage":
                    check_free(me, set(range(0, 10**6)) & {s for v in range(2) for s, _ in st[v]["groups"]})
                elif e[0] == "wait":
                    w["done"] = max(w["done"], len(w["groups"]) - e[1])
                elif e[0] == "issue":
                    piece, fset = e[1], e[2]
                    s = piece // 2
                    for v in range(2):
                        assert s in st[v]["wrote"] and st[v]["wrote"][s] < w["bars"], \
                            f"wg{me} reads a16 of sub-step {s} before wg{v}'s half is behind a barrier"
                    if fset in w["last_set"]:
                        assert w["last_set"][fset] < w["done"], f"wg{me} rewrites fragment set {fset} too early"
                    w["last_set"][fset] = len(w["groups"])
                    w["groups"].append((s, fset))
        if all(w["pos"] >= len(full) for w in st):
            break
        assert all(w["pos"] < len(full) and full[w["pos"]] == ("bar",) for w in st), "barrier mismatch"
        for me in range(2):
            published[me].append(st[me]["done"])
            st[me]["bars"] += 1
            st[me]["pos"] += 1


@pytest.mark.parametrize("depth", [1, 3])
def test_consumer_pipeline_has_no_a16_or_fragment_hazard(depth):
    consts = W.kernel_constants(wgmma_depth=depth)
    text = _render(wgmma_depth=depth)
    nbufs = consts["A16_BUFS"]
    assert f"setp.eq.u32 %p_wrap, %j3, {nbufs};" in text and f"add.u32 %sm_full, %sm_a16, {nbufs}*16384;" in text
    prog = _consumer_program(text)
    assert [e for e in prog if e[0] == "wait"] == [("wait", depth)] * 8
    assert [e[1] for e in prog if e[0] == "write"] == [0, 1, 2, 3]
    assert [e[2] for e in prog if e[0] == "issue"] == ["%x", "%y", "%z", "%w"] * 2  # four fragment sets
    for units in (1, 2, 5):
        _simulate(prog, units, nbufs)
    assert W.shared_bytes(4, wgmma_depth=depth) <= 227 * 1024


def test_hazard_model_catches_a_too_deep_queue():
    """The model must fail when the queue outruns the a16 ring (WG_WAIT 3 with three buffers)."""
    text = _render(wgmma_depth=3)
    prog = _consumer_program(text)
    with pytest.raises(AssertionError):
        _simulate(prog, 2, 3)
    shallow = [("wait", 1) if e[0] == "wait" else e for e in prog]
    two_sets = [(e[0], e[1], {"%z": "%x", "%w": "%y"}.get(e[2], e[2])) if e[0] == "issue" else e for e in shallow]
    _simulate(two_sets, 2, 3)  # the old two-set, wait 1, three-buffer pipeline is fine
    with pytest.raises(AssertionError):  # two sets with a deep queue are not
        _simulate([("wait", 3) if e[0] == "wait" else e for e in two_sets], 2, 4)


# ============================================================== tile_n=256 (B_BLOCKS=2)

def test_default_split_never_chains_more_than_8192_k():
    for m, n, k, tile_n in [(128, 7168, 16384, 128), (128, 16384, 16384, 128), (256, 16384, 32768, 256), (1, 1, 65536, 128)]:
        geo = W.wgmma_geometry(m, n, k, 1, 132, tile_n=tile_n)
        assert geo.units_per_cta * W.STAGE_K <= 8192
        assert geo.grid * geo.units_per_cta >= geo.units > (geo.grid - 1) * geo.units_per_cta
    assert W.wgmma_geometry(128, 7168, 16384, 1, 132).units_per_cta == 28  # the benchmark split is unchanged


def test_stage_layout_and_shared_memory_of_both_tile_widths():
    assert W.stage_layout(128) == {"A_OFF": 16384, "SFB_OFF": 32768, "SFA_OFF": 34816, "STAGE_BYTES": 36864}
    assert W.stage_layout(256) == {"A_OFF": 32768, "SFB_OFF": 49152, "SFA_OFF": 53248, "STAGE_BYTES": 55296}
    for tile_n in (128, 256):
        lay = W.stage_layout(tile_n)
        assert lay["A_OFF"] % 1024 == 0 and lay["STAGE_BYTES"] % 1024 == 0  # 128B-swizzle atoms stay aligned
    assert W.shared_bytes(3, tile_n=256) == 1024 + 3 * 55296 + 3 * 16384 + 16 * 3 + 16 <= 227 * 1024
    geo = W.wgmma_geometry(128, 7168, 16384, 1, 132, tile_n=256)
    assert (geo.n_tiles, geo.counters, geo.workspace_bytes) == (28, 56, 4 * geo.grid * 128 * 128 * 4)
    with pytest.raises(ValueError, match="tile_n"):
        W.wgmma_geometry(128, 256, 256, 1, 132, tile_n=192)
    with pytest.raises(ValueError, match="a_decoder=False"):
        W.kernel_constants(a_decoder=True, tile_n=256)
    with pytest.raises(ValueError, match="wgmma_depth=1"):
        W.kernel_constants(wgmma_depth=3, tile_n=256)


def test_wide_variant_second_half_mirrors_the_first():
    """B_BLOCKS=2: per piece the words of rows g + 128, g + 136 (+16384 / +17408 bytes, scales +2048 / +2176)
    go through the same decode into the c/d fragments, and each wgmma has a twin on %bcc with the same
    descriptor and the same scale-d predicate; setmaxnreg splits the 384 x 168 registers 56 / 224."""
    text = _render(tile_n=256)
    code = _code(text)
    assert "setmaxnreg.inc.sync.aligned.u32 240;" in code and "setmaxnreg.dec.sync.aligned.u32 24;" in code
    assert 128 * 24 + 256 * 240 == 384 * 168
    assert "setmaxnreg" not in "".join(_code(_render()))
    for pp in range(8):
        pre = text.split(f"// ---- prefetch piece {pp}:")[1].split("// ---- piece")[0]
        o = 4 * (pp // 2) + 2 * (pp % 2)
        for line in ("ld.shared.b32 %w2, [%addr+16384];", "ld.shared.b32 %w3, [%addr+17408];",
                     f"ld.shared.u8 %sb2, [%sfslot+{o + 2048}];", f"ld.shared.u8 %sb3, [%sfslot+{o + 2176}];"):
            assert line in pre, (pp, line)
        blk = text.split(f"// ---- piece {pp}:")[1].split("wgmma.commit_group")[0]
        fs = "xyzw"[pp % 4]
        ren = {"%w0": "%w2", "%w1": "%w3", "%sw0": "%sw2", "%sw1": "%sw3", f"%{fs}a": f"%{fs}c", f"%{fs}b": f"%{fs}d"}
        d0 = blk[blk.index("shf.l.wrap.b32 %xr, %w0, %w0, 3;"):blk.index("shf.l.wrap.b32 %xr, %w2, %w2, 3;")]
        d1 = blk[blk.index("shf.l.wrap.b32 %xr, %w2, %w2, 3;"):blk.index("wgmma.fence.sync.aligned;")]
        d1 = d1.split("mbarrier")[0]
        for a, b in ren.items():
            d0 = d0.replace(a, b)
        assert _code(d0) == _code(d1)[:len(_code(d0))] and len(_code(d0)) > 20
        wg = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.f16\.f16\s*\{(%\w+)[^}]*\},\s*\{(%\w+)[^}]*\}, "
                        r"%desc, %p_acc", blk)
        assert wg == [("%acc0", f"%{fs}a0"), ("%bcc0", f"%{fs}c0"), ("%acc0", f"%{fs}b0"), ("%bcc0", f"%{fs}d0")], wg
        between = blk.split("wgmma.mma_async")[1:3]  # nothing may flip p_acc between the twins
        assert "setp" not in between[0]


def test_wide_epilogue_runs_two_virtual_tiles():
    text = _render(tile_n=256)
    epi = text.split("segment epilogue")[1].split("NEXT_SEG:")[0]
    code = _code(epi)
    assert code[:4] == ["wgmma.wait_group.sync.aligned 0;", "mov.u32 %blk, 0;", "EPI_PASS:",
                        "mad.lo.u32 %vcta, %cta, 2, %blk;"]
    assert "mad.lo.u32 %vtile, %tile, 2, %blk;" in code
    assert "mul.wide.u32 %off64, %vtile, 4;" in code          # counter of the virtual tile
    assert "shl.b32 %tmp, %vcta, 1;" in code                  # own partial slot 2*vcta + sidx
    assert "mad.lo.u32 %tmp, %cc, 2, %blk;" in code           # contributor cc's slot of the same half
    assert "mul.lo.u32 %n0, %nt, 256;" in code and "shl.b32 %tmp, %blk, 7;" in code
    tail = code[code.index("EPI_NEXT:"):]
    assert tail[:4] == ["EPI_NEXT:", "setp.ne.u32 %p_more, %blk, 0;", "@%p_more bra NEXT_SEG;", "mov.u32 %blk, 1;"]
    assert tail[4:68] == [f"mov.f32 %acc{i}, %bcc{i};" for i in range(64)] and tail[68] == "bra.uni EPI_PASS;"
    assert "@%p_last bra EPI_NEXT;" in code and "@%p_last bra NEXT_SEG;" not in code
    # the default layout renders the same epilogue with factor 1 and no second pass
    base = _code(_render().split("segment epilogue")[1].split("NEXT_SEG:")[0])
    assert "mad.lo.u32 %vcta, %cta, 1, %blk;" in base and "bra.uni EPI_PASS;" not in base
    prod = _code(text.split("PRODUCER:")[1])
    assert "mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], 55296;" in prod
    assert "add.u32 %addr, %slot_addr, 32768;" in prod and "add.u32 %addr, %slot_addr, 49152;" in prod
    assert "add.u32 %addr, %slot_addr, 53248;" in prod and "mul.lo.u32 %n0, %nt, 256;" in prod


def test_wide_stage_replay_equals_the_matrix_product():
    """Replay one k256 stage of a 256-row B tile with the same per-piece facts: rows rowB (accumulator
    acc) and rowB + 128 (bcc), the second half's words 16384 bytes and scales 2048 bytes further."""
    rng = np.random.default_rng()
    a, b0, sfa, sfb0 = random_stage(rng)
    _, b1, _, sfb1 = random_stage(rng)
    D0 = replay_stage(a, b0, sfa, sfb0, False)
    D1 = replay_stage(a, b1, sfa, sfb1, False)
    ref = decoded(np.concatenate([b0, b1]), np.concatenate([sfb0, sfb1])) @ decoded(a, sfa).T * 2.0**-28
    np.testing.assert_allclose(np.concatenate([D0[0], D0[1], D1[0], D1[1]]), ref, rtol=1e-12, atol=0)
    lay = W.stage_layout(256)
    assert lay["A_OFF"] == 128 * 256 and lay["SFB_OFF"] - lay["A_OFF"] == 128 * 128 and 16384 == 128 * 128
    assert lay["SFA_OFF"] - lay["SFB_OFF"] == 256 * 16 and 2048 == 128 * 16


@pytest.mark.parametrize("depth", [1])
def test_wide_consumer_pipeline_has_no_a16_or_fragment_hazard(depth):
    text = _render(wgmma_depth=depth, tile_n=256)
    prog = _consumer_program(text)
    assert [e for e in prog if e[0] == "wait"] == [("wait", depth)] * 8
    _simulate(prog, 3, W.kernel_constants(wgmma_depth=depth, tile_n=256)["A16_BUFS"])


# ============================================================== GPU

def _run_case(m, n, k, l, distribution, plan_class=None, **plan_kwargs):
    """Fresh data, NaN-poisoned c, one launch of ``plan_class`` (GemmWgmmaPlan by default; the cluster
    kernel's tests pass theirs); returns (check result, plan, device arrays, c, reference)."""
    import nvfp4rt
    from nvfp4rt import data, reference

    d = data.gemm_data(m, n, k, l, seed=None, distribution=distribution)
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    dev = {name: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(name)).view(np.uint8))
           for name in ("a", "b", "sfa", "sfb")}
    c = nvfp4rt.from_numpy(np.full((l, m, n), np.nan, dtype=np.float16))
    plan = (plan_class or W.GemmWgmmaPlan)(m, n, k, l, **plan_kwargs)
    plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
    out = c.numpy().transpose(1, 2, 0)
    return reference.check(out, ref), plan, dev, c, ref


GPU_SHAPES = [(128, 7168, 2048, 1), (128, 256, 512, 1), (1, 1, 64, 1), (127, 129, 320, 1), (200, 1000, 1088, 2),
              (129, 8, 4096, 1), (64, 300, 256, 3), (256, 7, 960, 1)]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l", GPU_SHAPES)
@pytest.mark.parametrize("distribution", ["competition", "wide"])
def test_matches_float64_reference(m, n, k, l, distribution):
    res, *_ = _run_case(m, n, k, l, distribution)
    assert res.ok, res.report()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l", [(128, 7168, 2048, 1), (127, 129, 320, 1), (200, 1000, 1088, 2), (1, 1, 64, 1)])
@pytest.mark.parametrize("plan_kwargs", [dict(wgmma_depth=3), dict(wgmma_depth=3, stages=2), dict(normal_operands=True),
                                         dict(tile_n=256), dict(tile_n=256, stages=2),
                                         dict(a_decoder=True, a_bufs=3, stages=3)])
def test_variants_match_float64_reference(m, n, k, l, plan_kwargs):
    for distribution in ("competition", "wide"):
        res, *_ = _run_case(m, n, k, l, distribution, **plan_kwargs)
        assert res.ok, (distribution, res.report())


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("kw", [dict(), dict(wgmma_depth=3), dict(tile_n=256)])
@pytest.mark.parametrize("upc", [1, 3, 1000])
def test_split_choice_does_not_change_the_result(upc, kw):
    res, plan, dev, c, ref = _run_case(128, 1024, 2048, 1, "wide", units_per_cta=upc, **kw)
    assert res.ok, res.report()
    first = c.numpy().copy()
    plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)  # counters were reset by the last CTAs
    assert np.array_equal(first.view(np.uint16), c.numpy().view(np.uint16))  # deterministic


def test_supports_follows_the_tma_rules():
    from nvfp4rt.ops.gemm import GemmLayout

    assert W.supports(128, 7168, 16384, 1)
    assert not W.supports(128, 7168, 96, 1)
    lay = GemmLayout.contiguous(128, 256, 512, 1)
    assert W.supports(128, 256, 512, 1, lay)
    assert not W.supports(128, 256, 512, 1, dataclasses.replace(lay, a_row=264))  # not a multiple of 16
    assert W.supports(128, 256, 512, 1, dataclasses.replace(lay, sfa_row=36))    # scales get padded
    assert not W.supports(128, 256, 512, 2, dataclasses.replace(GemmLayout.contiguous(128, 256, 512, 2), b_batch=0))
    with pytest.raises(ValueError, match="a_row"):
        W.GemmWgmmaPlan(128, 256, 512, 1, dataclasses.replace(lay, a_row=264))
