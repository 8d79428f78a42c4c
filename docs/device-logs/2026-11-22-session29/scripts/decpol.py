"""Session 29 probe: the A16 decode prepass's stores with an evict_last L2 policy (timing; exact by construction)."""


def dec_el(t):
    assert t.count("\nITEM_LOOP:\n") == 1 and t.count("    st.global.v4.b32 [%dst], {%d0, %d1, %d2, %d3};\n") == 1
    t = t.replace("\nITEM_LOOP:\n", "\n    .reg .b64 %pol_keep;\n    createpolicy.fractional.L2::evict_last.b64 %pol_keep, 1.0;\n"
                  "ITEM_LOOP:\n", 1)
    return t.replace("    st.global.v4.b32 [%dst], {%d0, %d1, %d2, %d3};\n",
                     "    st.global.L2::cache_hint.v4.b32 [%dst], {%d0, %d1, %d2, %d3}, %pol_keep;\n", 1)
