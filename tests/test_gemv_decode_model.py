"""CPU model of the integer decode sequences used in ptx/gemv_nvfp4.ptx.

The kernel decodes e2m1 nibbles and e4m3 scales with shifts, rotates and lop3; a
mistake there gives wrong numbers on the GPU only.  These tests replay the exact
instruction sequence on numpy uint32 words for every possible input and compare
with ml_dtypes, so the bit tricks are checked on every CI run.
"""
import ml_dtypes
import numpy as np

MASK32 = 0xFFFFFFFF


def rotl(x, n):
    n %= 32
    return ((x << n) | (x >> (32 - n))) & MASK32 if n else x


def rotr(x, n):
    return rotl(x, 32 - n)


def lop3_select(a, b, c):
    """lop3 with LUT 0xE4: (a & c) | (b & ~c)."""
    return (a & c) | (b & ~c & MASK32)


def decode_word(w):
    """Replays the kernel: one 32-bit word of 8 nibbles -> 4 half2 words (as uint32)."""
    x = rotl(w, 3)
    we = lop3_select(w, x, 0x07070707)
    wo = lop3_select(w, x, 0x70707070)
    h0 = rotl(we, 9) & 0x8E008E00  # (n0, n4)
    h1 = rotl(wo, 5) & 0x8E008E00  # (n1, n5)
    h2 = rotl(we, 1) & 0x8E008E00  # (n2, n6)
    h3 = rotr(wo, 3) & 0x8E008E00  # (n3, n7)
    return h0, h1, h2, h3


def halves(h):
    lo = np.array([h & 0xFFFF], dtype=np.uint16).view(np.float16)[0]
    hi = np.array([h >> 16], dtype=np.uint16).view(np.float16)[0]
    return float(lo), float(hi)


def e2m1_table():
    codes = np.arange(16, dtype=np.uint8)
    # ml_dtypes float4 is stored one value per byte in its low nibble
    return codes.view(ml_dtypes.float4_e2m1fn).astype(np.float64)


def test_every_nibble_in_every_position_decodes_to_value_times_2_pow_minus_14():
    table = e2m1_table()
    rng = np.random.default_rng()
    pair_of = {0: (0, 4), 1: (1, 5), 2: (2, 6), 3: (3, 7)}
    for pos in range(8):
        for code in range(16):
            # a random background so that neighbouring nibbles cannot leak in unnoticed
            nib = [int(v) for v in rng.integers(0, 16, size=8)]
            nib[pos] = code
            w = sum(n << (4 * i) for i, n in enumerate(nib))
            hs = decode_word(w)
            for q, (lo_i, hi_i) in pair_of.items():
                lo, hi = halves(hs[q])
                assert lo == table[nib[lo_i]] * 2.0**-14, (pos, code, q, nib)
                assert hi == table[nib[hi_i]] * 2.0**-14, (pos, code, q, nib)


def test_half2_block_partial_sums_are_exact_in_fp16():
    # worst case: 8 products of 6*6 per half lane, a scaled by 2^-14
    prod = np.float16(6 * 2.0**-14) * np.float16(6)
    acc = np.float16(0)
    for _ in range(8):
        acc = np.float16(acc + prod)
    assert float(acc) == 8 * 36 * 2.0**-14
    # smallest step 0.5*0.5*2^-14 = 2^-16 is representable on top of the largest sum
    assert float(np.float16(acc - np.float16(2.0**-16))) == 8 * 36 * 2.0**-14 - 2.0**-16


def sm80_e4m3_pair_to_half2(u16):
    """Replays the sm_80 path: two e4m3 bytes -> half2 holding value * 2^-8."""
    t = u16 & 0xFFFF
    t = (t & 0xFF) | ((t >> 8) & 0xFF) << 16  # prmt 0x4140
    x = ((t & 0x007F007F) << 7) & MASK32
    s = (t << 8) & MASK32
    return x | (s & 0x80008000)


def test_sm80_integer_e4m3_decode_matches_ml_dtypes_for_all_non_nan_codes():
    for lo_code in range(256):
        hi_code = (lo_code * 37 + 11) % 256
        want = np.array([lo_code, hi_code], dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
        lo, hi = halves(sm80_e4m3_pair_to_half2(lo_code | hi_code << 8))
        for got, code, ref in ((lo, lo_code, want[0]), (hi, hi_code, want[1])):
            if np.isnan(ref):
                continue  # documented: the sm_80 fallback does not preserve e4m3 NaN
            assert got * 2.0**8 == ref, (code, got, ref)


def _fix_constant(target):
    """The f32 `%fix` the kernel multiplies every block scale by, read from the rendered PTX."""
    import re
    import struct

    from nvfp4rt.ptxsource import ptx_dir, render

    text = render((ptx_dir() / "gemv_nvfp4.ptx").read_text(), target)
    (hex_bits,) = re.findall(r"mov\.f32 %fix, 0f([0-9A-Fa-f]{8});", text)
    return struct.unpack(">f", bytes.fromhex(hex_bits))[0]


def test_scale_fix_undoes_every_decode_factor_on_each_target():
    """c = sum(a' * b) * sa' * sb' * fix must equal sum(a * b) * sa * sb, where a' = a * 2^-14 always and
    sa' = sa, sb' = sb on sm_89+ (cvt) but sa * 2^-8, sb * 2^-8 on sm_80 (integer decode).  The first
    H100 run of the sm_80 build was 256x too small because fix undid only one of the two 2^-8."""
    assert _fix_constant("sm_90a") * 2.0**-14 == 1.0
    assert _fix_constant("sm_80") * 2.0**-14 * 2.0**-8 * 2.0**-8 == 1.0
