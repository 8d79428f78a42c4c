"""CPU replay of ptx/gemm_nvfp4_mma.ptx's decode-to-fragment mapping, from the PTX text itself.

A wrong shift, mask, shared-memory offset or fragment register in the kernel gives wrong numbers
on the GPU only.  This test renders the real .ptx for sm_80 and sm_90a, takes the straight-line
sections marked ``// model: lanes`` (per-lane shared-memory addresses) and ``// model: compute``
(one 64-k chunk: loads, decode, scale, 128 mma.sync per warp), and executes them instruction by
instruction for all 128 threads on numpy: integer ops on uint32, f16x2 arithmetic through numpy
float16 (round to nearest even, as the GPU), e4m3 through ml_dtypes, and ``mma.sync m16n8k16``
by the PTX ISA's fragment layouts with exact float64 sums.  The accumulators are then mapped to
(row, col) by the epilogue's formula and compared with a float64 reference of the tile: the
products are exact, so the comparison is exact.

Not modelled here (the GPU tests cover them): the cp.async loader, the pipeline, split-K and the
predicated stores.
"""
import re

import ml_dtypes
import numpy as np
import pytest

from nvfp4rt.ptxsource import PtxSource, ptx_dir
from nvfp4rt.reference import decode

PTX = ptx_dir() / "gemm_nvfp4_mma.ptx"
THREADS = 128
M32 = np.uint64(0xFFFFFFFF)


def section(text, name):
    lines = text.split("\n")
    start = next(i for i, ln in enumerate(lines) if ln.strip() == f"// model: {name} begin")
    end = next(i for i, ln in enumerate(lines) if ln.strip() == f"// model: {name} end")
    out = []
    for ln in lines[start + 1:end]:
        ln = ln.split("//")[0].strip()
        if ln:
            out.append(ln)
    return out


def f16(u):  # uint16 array -> float64 values
    return np.asarray(u, dtype=np.uint16).view(np.float16).astype(np.float64)


def to_f16_bits(x):
    return np.asarray(x, dtype=np.float64).astype(np.float16).view(np.uint16)


class Machine:
    """Registers of 128 threads (4 warps); b32 values as uint64 holding 32 bits, f32 as float64."""

    def __init__(self, smem: np.ndarray):
        self.smem = smem
        self.r: dict[str, np.ndarray] = {}

    def val(self, tok):
        tok = tok.strip()
        if tok.startswith("%"):
            if tok == "%tid.x":
                return np.arange(THREADS, dtype=np.uint64)
            return self.r[tok]
        if tok == "smem":
            return np.zeros(THREADS, dtype=np.uint64)
        return np.full(THREADS, int(tok, 0), dtype=np.uint64)

    def addr(self, tok):
        m = re.fullmatch(r"\[(%\w+)(?:\+(\d+))?\]", tok.strip())
        return self.val(m.group(1)).astype(np.int64) + int(m.group(2) or 0)

    def run(self, lines):
        for ln in lines:
            self.step(ln)

    def step(self, ln):
        op, _, rest = ln.rstrip(";").partition(" ")
        if op.startswith("mma.sync"):
            return self.mma(rest)
        ops = [x.strip() for x in re.split(r",(?![^{]*})", rest)]
        d = ops[0]
        v = [self.val(x) for x in ops[1:]] if not op.startswith("ld.") else None
        if op in ("mov.u32", "mov.b32"):
            if d.startswith("{"):  # unpack a b32 into two b16
                lo, hi = (x.strip() for x in d.strip("{}").split(","))
                self.r[lo], self.r[hi] = v[0] & np.uint64(0xFFFF), v[0] >> np.uint64(16)
            else:
                self.r[d] = v[0] & M32
        elif op == "and.b32":
            self.r[d] = v[0] & v[1]
        elif op == "shr.u32":
            self.r[d] = v[0] >> v[1]
        elif op == "shl.b32":
            self.r[d] = (v[0] << v[1]) & M32
        elif op == "add.u32":
            self.r[d] = (v[0] + v[1]) & M32
        elif op == "mad.lo.u32":
            self.r[d] = (v[0] * v[1] + v[2]) & M32
        elif op in ("shf.l.wrap.b32", "shf.r.wrap.b32"):
            assert ops[1] == ops[2], ln  # the kernel only rotates
            n = v[2] & np.uint64(31)
            if op == "shf.r.wrap.b32":
                n = (np.uint64(32) - n) & np.uint64(31)
            self.r[d] = ((v[0] << n) | (v[0] >> ((np.uint64(32) - n) & np.uint64(31)) * (n != 0))) & M32
        elif op == "lop3.b32":
            a, b, c, lut = v[0], v[1], v[2], int(ops[4], 0)
            out = np.zeros(THREADS, dtype=np.uint64)
            for bit in range(8):
                if lut >> bit & 1:
                    ta = a if bit & 4 else ~a & M32
                    tb = b if bit & 2 else ~b & M32
                    tc = c if bit & 1 else ~c & M32
                    out |= ta & tb & tc
            self.r[d] = out
        elif op == "prmt.b32":
            src = (v[1] << np.uint64(32)) | v[0]
            sel = int(ops[3], 0)
            out = np.zeros(THREADS, dtype=np.uint64)
            for byte in range(4):
                s = sel >> (4 * byte) & 0xF
                assert s < 8, "sign-replicate selectors are not used"
                out |= ((src >> np.uint64(8 * s)) & np.uint64(0xFF)) << np.uint64(8 * byte)
            self.r[d] = out
        elif op == "cvt.rn.f16x2.e4m3x2":
            x = v[0].astype(np.uint16)
            lo = (x & 0xFF).astype(np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
            hi = (x >> 8).astype(np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
            self.r[d] = to_f16_bits(lo).astype(np.uint64) | (to_f16_bits(hi).astype(np.uint64) << np.uint64(16))
        elif op == "mul.rn.f16x2":
            out = np.zeros(THREADS, dtype=np.uint64)
            for sh in (0, 16):
                s = np.uint64(sh)
                x = f16((v[0] >> s) & np.uint64(0xFFFF)).astype(np.float16)
                y = f16((v[1] >> s) & np.uint64(0xFFFF)).astype(np.float16)
                out |= (x * y).view(np.uint16).astype(np.uint64) << s  # numpy float16 multiply rounds to nearest even
            self.r[d] = out
        elif op == "ld.shared.b32":
            a = self.addr(ops[1])
            assert np.all(a % 4 == 0), "misaligned ld.shared.b32"
            b = self.smem[a[:, None] + np.arange(4)].astype(np.uint64)
            self.r[d] = b[:, 0] | b[:, 1] << np.uint64(8) | b[:, 2] << np.uint64(16) | b[:, 3] << np.uint64(24)
        elif op == "ld.shared.u8":
            self.r[d] = self.smem[self.addr(ops[1])].astype(np.uint64)
        else:
            raise NotImplementedError(f"model has no instruction {op!r} ({ln})")

    def mma(self, rest):
        groups = [[t.strip() for t in g.split(",")] for g in re.findall(r"\{([^}]*)\}", rest)]
        dn, an, bn, cn = groups
        lane = np.arange(32)
        g, t = lane // 4, lane % 4

        def halves(name):
            x = self.r[name].reshape(4, 32)
            return f16(x & np.uint64(0xFFFF)), f16(x >> np.uint64(16))

        A = np.zeros((4, 16, 16))
        B = np.zeros((4, 16, 8))
        C = np.zeros((4, 16, 8))
        for reg, (dr, dc) in zip(an, ((0, 0), (8, 0), (0, 8), (8, 8))):
            lo, hi = halves(reg)
            A[:, g + dr, 2 * t + dc] = lo
            A[:, g + dr, 2 * t + dc + 1] = hi
        for reg, dk in zip(bn, (0, 8)):
            lo, hi = halves(reg)
            B[:, 2 * t + dk, g] = lo
            B[:, 2 * t + dk + 1, g] = hi
        for reg, (dr, dc) in zip(cn, ((0, 0), (0, 1), (8, 0), (8, 1))):
            C[:, g + dr, 2 * t + dc] = self.r[reg].reshape(4, 32)
        D = A @ B + C
        for reg, (dr, dc) in zip(dn, ((0, 0), (0, 1), (8, 0), (8, 1))):
            self.r[reg] = D[:, g + dr, 2 * t + dc].reshape(THREADS)


def stage_image(a_bytes, sa, b_bytes, sb):
    """Shared memory with stage 0 holding one chunk: A [128][32 B], B [128][32 B], scales [128][4 B]."""
    smem = np.zeros(3 * 9216, dtype=np.uint8)
    smem[0:4096] = a_bytes.reshape(-1)
    smem[4096:8192] = b_bytes.reshape(-1)
    smem[8192:8704] = sa.view(np.uint8).reshape(-1)
    smem[8704:9216] = sb.view(np.uint8).reshape(-1)
    return smem


def run_chunk(target, a_bytes, sa, b_bytes, sb):
    text = PtxSource.from_file(PTX, target).text
    mach = Machine(stage_image(a_bytes, sa, b_bytes, sb))
    mach.run(section(text, "lanes"))
    mach.r["%st_rd"] = np.zeros(THREADS, dtype=np.uint64)
    for name in set(re.findall(r"%c\d_\d_\d", text)):
        mach.r[name] = np.zeros(THREADS)
    mach.run(section(text, "compute"))
    out = np.full((128, 128), np.nan)
    thread = np.arange(THREADS)
    warp, lane = thread // 32, thread % 32
    g, t = lane // 4, lane % 4
    for i in range(8):
        for j in range(4):
            for r in range(4):
                row = 16 * i + g + 8 * (r // 2)
                col = 32 * warp + 8 * j + 2 * t + (r % 2)
                out[row, col] = mach.r[f"%c{i}_{j}_{r}"]
    return out * 2.0**14  # the epilogue's factor


def random_tile(rng, wide):
    a = rng.integers(0, 256, size=(128, 32), dtype=np.uint8)
    b = rng.integers(0, 256, size=(128, 32), dtype=np.uint8)
    if wide:  # every positive finite e4m3 code, subnormals included
        sa = rng.integers(1, 0x7F, size=(128, 4), dtype=np.uint8)
        sb = rng.integers(1, 0x7F, size=(128, 4), dtype=np.uint8)
    else:
        sa = rng.integers(0, 4, size=(128, 4)).astype(np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
        sb = rng.integers(0, 4, size=(128, 4)).astype(np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    return a, sa, b, sb


@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("wide", [False, True])
def test_one_chunk_of_the_kernel_matches_the_float64_reference_exactly(target, wide):
    rng = np.random.default_rng()
    a, sa, b, sb = random_tile(rng, wide)
    got = run_chunk(target, a, sa, b, sb)
    want = decode(a, sa) @ decode(b, sb).T
    bad = np.argwhere(got != want)
    assert bad.size == 0, f"{len(bad)} of {got.size} differ; first at {tuple(bad[0])}: got {got[tuple(bad[0])]}, want {want[tuple(bad[0])]}"


def test_the_model_notices_a_broken_kernel():
    """A swapped pair of fragment registers must make the replay fail (so the test above can fail)."""
    rng = np.random.default_rng(1)
    a, sa, b, sb = random_tile(rng, False)
    text = PtxSource.from_file(PTX, "sm_90a").text
    broken = text.replace("{%fb0_0, %fb0_1}", "{%fb0_1, %fb0_0}", 1)
    assert broken != text
    mach = Machine(stage_image(a, sa, b, sb))
    mach.run(section(broken, "lanes"))
    mach.r["%st_rd"] = np.zeros(THREADS, dtype=np.uint64)
    for name in set(re.findall(r"%c\d_\d_\d", broken)):
        mach.r[name] = np.zeros(THREADS)
    mach.run(section(broken, "compute"))
    got = mach.r["%c0_0_0"].reshape(4, 32)[0, 0] * 2.0**14
    want = (decode(a, sa) @ decode(b, sb).T)[0, 0]
    assert got != want
