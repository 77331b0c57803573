"""SL5xx rules on hand-built probe models: one table of firing and quiet cases per rule."""

from __future__ import annotations

import pytest
from shiplint.diagnostics import Location
from shiplint.engine import Selection, lint
from shiplint.probes.link.model import (
    Consumer,
    ConsumerBuild,
    ConsumerKind,
    NotProbed,
    NotProbedReason,
    ProbeContext,
    ProbeStep,
    ProbeUnavailable,
    ToolFailure,
)
from shiplint.registry import RULES

from tests.link_probe_support import probepkg_manifest

MANIFEST = probepkg_manifest()
CONFIG = Location("probepkg.whl", member="probepkg/share/cmake/probepkg-config.cmake")
SHIPPED = (
    ("probepkg", "libprobepkg.so"),
    ("probepkg_kernels", "libprobepkg_kernels.so"),
    ("probepkg_extra", "libprobepkg_extra.so"),
)
NEW = ProbeContext("probepkg.whl", "linux-x86_64", CONFIG, "4.4.5", "targets", SHIPPED)
OLD = ProbeContext("probepkg.whl", "linux-x86_64", CONFIG, "3.24.3", "paths", SHIPPED)
WITHOUT_EXTRA = ProbeContext(
    "probepkg.whl", "linux-x86_64", CONFIG, "4.4.5", "targets", SHIPPED[:2]
)

KERNELS = Consumer(ConsumerKind.TARGET, component="kernels", target="probepkg::kernels")
RUNTIME = Consumer(ConsumerKind.TARGET, component="runtime", target="probepkg::runtime")
EXTRA_VAR = Consumer(ConsumerKind.VARIABLE, component="extra", variable="PROBEPKG_EXTRA_LIBRARY")
AGGREGATE = Consumer(ConsumerKind.AGGREGATE, variable="PROBEPKG_LIBRARIES")
FAILED = ToolFailure(
    ProbeStep.BUILD, 1, "exited with status 1", "ld: cannot find -lprobepkg_missing"
)


def built(
    consumer: Consumer, libraries: tuple[str, ...], context: ProbeContext = NEW
) -> ConsumerBuild:
    files = dict(context.shipped)
    needed = (*(files[lib] for lib in libraries), "libc.so.6")
    return ConsumerBuild(context, consumer, None, needed, libraries)


CASES = [
    # SL501: a registration-only component asked for by name, missing from NEEDED.
    ("target dropped", built(KERNELS, ()), ["SL501"]),
    ("target kept", built(KERNELS, ("probepkg_kernels",)), []),
    ("variable dropped", built(EXTRA_VAR, (), OLD), ["SL501"]),
    ("variable kept", built(EXTRA_VAR, ("probepkg_extra",), OLD), []),
    # The runtime registers nothing: --as-needed rightly drops it when unreferenced.
    ("runtime dropped is fine", built(RUNTIME, ()), []),
    # A component the artifact does not ship is not asked for.
    ("unshipped extra", built(EXTRA_VAR, (), WITHOUT_EXTRA), []),
    # SL502 / SL503: the aggregate's consumer.
    ("aggregate right", built(AGGREGATE, ("probepkg_kernels",)), []),
    ("aggregate with runtime too", built(AGGREGATE, ("probepkg", "probepkg_kernels")), []),
    (
        "aggregate carries opt-in",
        built(AGGREGATE, ("probepkg_kernels", "probepkg_extra")),
        ["SL502"],
    ),
    ("aggregate drops kernels", built(AGGREGATE, (), OLD), ["SL503"]),
    ("aggregate both wrong", built(AGGREGATE, ("probepkg_extra",)), ["SL502", "SL503"]),
    # SL504: a failed step is reported, and no NEEDED rule runs on it.
    ("build failed", ConsumerBuild(NEW, KERNELS, FAILED), ["SL504"]),
    ("aggregate failed", ConsumerBuild(OLD, AGGREGATE, FAILED), ["SL504"]),
    # SL505 / SL506.
    ("no compiler", ProbeUnavailable("probepkg.whl", "no C++ compiler", CONFIG), ["SL505"]),
    (
        "other platform",
        NotProbed("x.whl", NotProbedReason.OTHER_PLATFORM, "macos", Location("x.whl")),
        ["SL506"],
    ),
]


@pytest.mark.parametrize(("model", "codes"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rule_table(model: object, codes: list[str]) -> None:
    found = [d.code for d in lint(RULES, MANIFEST, [model], Selection(select=("SL5",)))]
    assert sorted(found) == codes


def test_dropped_component_names_library_route_and_needed() -> None:
    (diag,) = lint(RULES, MANIFEST, [built(KERNELS, ())], Selection(select=("SL5",)))
    assert diag.location == CONFIG
    assert "libprobepkg_kernels.so" in diag.message
    assert "CMake 4.4.5, route targets" in diag.message
    assert "[libc.so.6]" in diag.message
    assert diag.subject.component == "kernels"
    assert diag.subject.target == "probepkg::kernels"
    assert diag.subject.cmake_version == "4.4.5"
    assert diag.hint is not None and "--no-as-needed" in diag.hint


def test_aggregate_findings_name_the_component_and_variable() -> None:
    diags = lint(
        RULES, MANIFEST, [built(AGGREGATE, ("probepkg_extra",))], Selection(select=("SL5",))
    )
    by_code = {d.code: d for d in diags}
    assert by_code["SL502"].subject.component == "extra"
    assert by_code["SL502"].subject.variable == "PROBEPKG_LIBRARIES"
    assert "libprobepkg_extra.so" in by_code["SL502"].message
    assert by_code["SL503"].subject.library == "probepkg_kernels"


def test_failure_reports_step_version_and_tail() -> None:
    (diag,) = lint(
        RULES, MANIFEST, [ConsumerBuild(OLD, KERNELS, FAILED)], Selection(select=("SL5",))
    )
    assert "at the build step with CMake 3.24.3, route paths" in diag.message
    assert diag.message.endswith("ld: cannot find -lprobepkg_missing")
