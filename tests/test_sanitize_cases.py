"""The cases of tools/sanitize_kernels.py are problems their plans accept: each is checked on the CPU against the pure
geometry its plan class builds (run 3 of session 43 lost its sanitizer logs to a k the GEMM refuses and to m-tile
groups of different n).  The sanitizer run itself is a device job (tools/device_check.sh)."""
import pytest

from nvfp4rt.ops import dual_gemm as D
from nvfp4rt.ops import dual_gemm_cluster as DC
from nvfp4rt.ops import dual_gemm_tiles as DT
from nvfp4rt.ops import gemm as G
from nvfp4rt.ops import gemm_wgmma as GW
from nvfp4rt.ops import gemm_wgmma_cluster as GWC
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.ops import grouped_gemm_cluster as GC
from nvfp4rt.ops import grouped_gemm_mtiles as GM

from conftest import tool_module

SAN = tool_module("sanitize_kernels")
SMS = 132


def _gemm_mma(m, n, k, l):
    G._check_sizes(m, n, k, l)
    G.mma_geometry(m, n, k, l, 1)


#: each plan class's pure checks: everything its constructor validates before it touches the GPU
PURE = {
    "gemm.GemmMmaPlan": _gemm_mma,
    "gemm_wgmma.GemmWgmmaPlan": lambda m, n, k, l: GW.wgmma_geometry(m, n, k, l, SMS),
    "gemm_wgmma_cluster.GemmClusterPlan": lambda m, n, k, l: GWC.cluster_geometry(m, n, k, l, SMS // 2),
    "dual_gemm.DualGemmPlan": lambda m, n, k, l: D.dual_geometry(m, n, k, l, SMS),
    "dual_gemm_cluster.DualGemmClusterPlan":
        lambda m, n, k, l, ksplit=1: DC.dual_cluster_geometry(m, n, k, l, SMS // 2, cluster=1 if ksplit > 1 else 2,
                                                              ksplit=ksplit),
    "dual_gemm_tiles.DualGemmTilesPlan":  # the cluster GEMM's DUAL build on (m, 2n, k), as the plan schedules it
        lambda m, n, k, l: GWC._ksplit_problem(m, 2 * n, k, l, SMS, streamk_cluster=DT.STREAMK_CLUSTER),
    "grouped_gemm.GroupedGemmPlan": lambda shapes: GG.grouped_geometry(shapes, SMS),
    "grouped_gemm_cluster.GroupedGemmClusterPlan":
        lambda shapes, clusters=None, param_maps=None, **kw: (
            GC.kernel_constants(param_maps=GC.param_map_slots(len(shapes)) if param_maps is not False else 0),
            GC.cluster_geometry(shapes, clusters or SMS // 2, **kw)),
    "grouped_gemm_mtiles.GroupedGemmMTilePlan": lambda shapes: GM.mtiles(shapes),
}
CASES = SAN.GEMM_CASES + SAN.DUAL_CASES + SAN.GROUPED_CASES


@pytest.mark.parametrize("cls, problem, kwargs", CASES, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(CASES)])
def test_every_case_is_a_problem_its_plan_accepts(cls, problem, kwargs):
    assert SAN.plan_class(cls).__name__ == cls.rsplit(".", 1)[1]
    if isinstance(problem, tuple):
        PURE[cls](*problem, **kwargs)
    else:
        PURE[cls](problem, **kwargs)


def test_every_plan_class_of_every_op_is_sanitized():
    assert {c for c, _, _ in CASES} == set(PURE)
    assert {"gemv", "gemm", "dual", "grouped"} == set(SAN.OPS)


@pytest.mark.parametrize("cls, problem", [("gemm.GemmMmaPlan", (37, 72, 96, 2)),
                                          ("grouped_gemm_mtiles.GroupedGemmMTilePlan",
                                           [(80, 520, 640), (17, 200, 1088)])])
def test_the_checks_refuse_what_the_plans_refuse(cls, problem):
    """The two cases session 43's first sanitizer run stopped at."""
    with pytest.raises(ValueError):
        PURE[cls](*problem) if isinstance(problem, tuple) else PURE[cls](problem)


def test_main_runs_every_case_once_with_its_plan_class(monkeypatch):
    """The run itself, its GPU work stubbed: each op's cases reach their case function once, with the plan class and
    the problem as listed; a failing case makes the exit status 1."""
    calls = []
    for fn in ("gemm_case", "dual_case", "grouped_case"):
        monkeypatch.setattr(SAN, fn, lambda cls, *problem, _fn=fn, **kw: calls.append((_fn, cls, problem, kw)) or True)

    class _Device:
        def synchronize(self):
            calls.append(("synchronize",))

    monkeypatch.setattr(SAN.nvfp4rt, "device", lambda: _Device())
    assert SAN.main(["gemm", "dual", "grouped"]) == 0
    expected = ([("gemm_case", c, mnkl, kw) for c, mnkl, kw in SAN.GEMM_CASES]
                + [("dual_case", c, mnkl, kw) for c, mnkl, kw in SAN.DUAL_CASES]
                + [("grouped_case", c, (shapes,), kw) for c, shapes, kw in SAN.GROUPED_CASES])
    got = [(fn, f"{cls.__module__.removeprefix('nvfp4rt.ops.')}.{cls.__name__}", problem, kw)
           for fn, cls, problem, kw in calls[:-1]]
    assert got == expected and calls[-1] == ("synchronize",)
    monkeypatch.setattr(SAN, "dual_case", lambda cls, *problem, **kw: False)
    assert SAN.main(["dual"]) == 1
