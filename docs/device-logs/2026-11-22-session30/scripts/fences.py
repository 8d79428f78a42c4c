"""The stream-K hand-off's gpu-scope fences on the consumer path: the writers' (before the named barrier that precedes
thread 0's atom.acq_rel) and the readers' (after the named barrier that follows thread 0's acquire)."""
W_OLD = "    fence.acq_rel.gpu;                        // each writer: partials before the counter update\n"
R_OLDS = (
    "    @%p_last bra PARTIAL_WRITE;               // someone is still working on the tile: the usual hand-off\n    fence.acq_rel.gpu;\n",
    "    @%p_last bra NEXT_SEG;                    // not the last contributor: done with this tile\n    fence.acq_rel.gpu;\n",
    "    fence.acq_rel.gpu;                        // the other pairs' partials (rank 0 acquired the counter)\n",
)


def writer(text):
    assert text.count(W_OLD) == 1, text.count(W_OLD)
    return text.replace(W_OLD, "")


def readers(text):
    n = 0
    for old in R_OLDS:
        n += text.count(old)
        text = text.replace(old, old.replace("    fence.acq_rel.gpu;", "").replace("\n\n", "\n") if "bra" in old else "")
    assert n >= 2, n
    return text
