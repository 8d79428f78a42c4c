"""Session 27: schedule probes. Random dependence-respecting orders of the PTX instructions inside the consumers' unit
loop (UNIT_LOOP .. its backward branch) of a rendered cluster-GEMM build. ptxas reschedules everything, but the input order
steers its choices (the helper build's loop, the same instructions, ran 3% slower in another order).

Within each basic block (labels and branches stay where they are):
* an instruction depends on an earlier one if it reads or writes a register the earlier one writes, or writes a
  register the earlier one reads (every register named counts as read; the first operand group counts as written);
* memory, barrier, shuffle and wgmma instructions keep their relative order, and nothing moves across a wgmma
  instruction (an in-flight wgmma reads fragment registers that no dependence in the text shows);
* otherwise any ready instruction may come next (uniform random choice)."""
import random
import re

ORDERED = ("ld.", "st.", "mbarrier", "wgmma", "bar.", "barrier", "fence", "shfl", "vote", "cp.", "atom", "red.",
           "griddepcontrol", "nanosleep", "mov.u64 %dbt, %globaltimer", "mov.u32 %clock", "mapa")
REG = re.compile(r"%[A-Za-z_][A-Za-z0-9_]*")


def split_statements(lines):
    """group raw lines into statements: a label, a comment/blank line, or an instruction (up to its ';')"""
    out, cur = [], []
    for line in lines:
        code = line.split("//")[0]
        if cur:
            cur.append(line)
            if ";" in code:
                out.append(("ins", cur)); cur = []
            continue
        s = code.strip()
        if not s:
            out.append(("keep", [line]))
        elif s.endswith(":"):
            out.append(("label", [line]))
        elif ";" in code:
            out.append(("ins", [line]))
        else:
            cur = [line]
    assert not cur
    return out


def regs(stmt_lines):
    code = " ".join(l.split("//")[0] for l in stmt_lines).strip()
    guard = None
    if code.startswith("@"):
        guard, code = code.split(None, 1)
    op, _, rest = code.partition(" ")
    rest = rest.rstrip().rstrip(";")
    # first operand group: a {..} group or up to the first comma
    rest_s = rest.strip()
    if rest_s.startswith("{"):
        first = rest_s[:rest_s.index("}") + 1]
    else:
        first = rest_s.split(",")[0]
    defs = set(REG.findall(first)) if not op.startswith(("st.", "mbarrier.arrive", "red.", "bar", "wgmma.fence",
                                                           "wgmma.commit", "wgmma.wait", "fence", "cp.")) else set()
    if op.startswith("wgmma.mma_async"):
        defs = set(REG.findall(first))
    uses = set(REG.findall(code)) | (set(REG.findall(guard)) if guard else set())
    ordered = any(op.startswith(o) or code.startswith(o) for o in ORDERED) or "%clock" in code or "globaltimer" in code
    is_branch = op.startswith("bra") or op.startswith("ret")
    return op, defs, uses, ordered, is_branch


def permute_block(stmts, rng):
    """stmts: list of ('ins', lines) (no labels); the last may be a branch, kept last"""
    info = [regs(s[1]) for s in stmts]
    n = len(stmts)
    preds = [set() for _ in range(n)]
    last_ordered = None
    fences = [j for j in range(n) if info[j][0].startswith("wgmma")]
    for j in range(n):
        _, dj, uj, oj, bj = info[j]
        # nothing crosses a wgmma instruction: an in-flight wgmma reads fragment registers that no dependence here shows
        preds[j] |= {f for f in fences if f < j}
        if j in fences:
            preds[j] |= set(range(j))
        for i in range(j):
            _, di, ui, oi, bi = info[i]
            if (dj & di) or (uj & di) or (dj & ui):
                preds[j].add(i)
        if oj:
            if last_ordered is not None:
                preds[j].add(last_ordered)
            last_ordered = j
        if bj:
            preds[j] |= set(range(j))
    done, order = set(), []
    while len(order) < n:
        ready = [j for j in range(n) if j not in done and preds[j] <= done]
        j = rng.choice(ready)
        order.append(j); done.add(j)
    return [stmts[j] for j in order]


def permute_loop(text, seed, start="UNIT_LOOP:\n", end="    @%p_more bra UNIT_LOOP;\n"):
    assert text.count(start) == 1 and text.count(end) == 1
    i, j = text.index(start), text.index(end) + len(end)
    body = text[i + len(start):j].splitlines(keepends=True)
    stmts = [s for s in split_statements(body) if s[0] != "keep"]
    rng = random.Random(seed)
    out, block = [], []

    def flush():
        if block:
            for s in permute_block(block, rng):
                out.extend(s[1])
            block.clear()

    for kind, lines in stmts:
        if kind == "label":
            flush(); out.extend(lines)
        else:
            block.append((kind, lines))
            if regs(lines)[4]:  # a branch ends the block
                flush()
    flush()
    return text[:i + len(start)] + "".join(out) + text[j:]
