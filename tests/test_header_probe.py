"""The header probe: every public header compiled alone, with real CMake and the host g++.

On the synthetic package of the link-probe tests with a few headers added (one that
stands alone, one that does not, one whose error comes through an include, one that
forbids direct inclusion and is excluded), and on the real ExecuTorch 1.5.1 wheels.
The real run's outcome is pinned in tests/golden/header_probe/ and explained in
docs/findings/header_probe.md. Set SHIPLINT_UPDATE_GOLDEN=1 to rewrite the golden file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import HeaderOwner, Headers, Manifest
from shiplint.probes.header.model import HeaderSweep
from shiplint.probes.header.probe import HeaderOptions, probe_headers
from shiplint.registry import RULES

from tests.link_probe_support import (
    CONFIG,
    compile_libraries,
    make_package,
    probepkg_manifest,
    render,
)
from tests.material import (
    EXAMPLE_MANIFEST,
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    REPO,
    cmake,
    wheel,
)

GOLDEN = REPO / "tests" / "golden" / "header_probe" / "executorch-1.5.1-manylinux_2_28_x86_64.txt"
# Headers added to the synthetic package, below its include directory.
HEADERS = {
    # Stands alone.
    "probepkg/span.h": "#pragma once\n#include <cstddef>\nstruct Span { std::size_t n; };\n",
    # Uses std::size_t without including what declares it.
    "probepkg/needs_size.h": "#pragma once\n\nstruct Sized {\n  std::size_t n;\n};\n",
    # Fine itself; the error is in what it includes on line 3.
    "probepkg/outer.h": '#pragma once\n// the inner header is broken\n#include "detail/inner.h"\n',
    "probepkg/detail/inner.h": "#pragma once\nundeclared_type value;\n",
    # Forbids direct inclusion: excluded in the manifest.
    "probepkg/detail/private.h": '#pragma once\n#error "include probepkg/span.h instead"\n',
    # Owned by the runtime: inline code calling what libprobepkg.so defines ...
    "probepkg/registry.h": (
        "#pragma once\nnamespace probepkg {\nint registered_count();\n"
        "inline int count_now() { return registered_count(); }\n}\n"
    ),
    # ... and what it does not.
    "probepkg/totals.h": (
        "#pragma once\nnamespace probepkg {\nint registered_total();\n"
        "inline int total_now() { return registered_total(); }\n}\n"
    ),
}


def diagnose(models: Sequence[object], manifest: Manifest) -> list[Diagnostic]:
    return lint(RULES, manifest, models, Selection(select=("SL507", "SL508", "SL509")))


def probe(artifact: Path, manifest: Manifest, cmakes: Sequence[str]) -> list[object]:
    options = HeaderOptions(cmake=tuple(cmakes))
    with open_artifact(artifact) as tree:
        return list(probe_headers(tree, read_inventory(tree, manifest), manifest, options))


@pytest.fixture(scope="session")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    libraries = compile_libraries(tmp_path_factory.mktemp("headers-libs"))
    artifact = make_package(libraries, tmp_path_factory.mktemp("headers"), CONFIG.read_text())
    for name, text in HEADERS.items():
        path = artifact / "probepkg" / "include" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return artifact


@pytest.fixture(scope="session")
def excluding() -> Manifest:
    headers = Headers(
        exclude=("probepkg/detail/private.h",),
        # needs_size.h does not compile: the runtime's other headers are linked without it.
        owners=(
            HeaderOwner(
                ("probepkg/registry.h", "probepkg/totals.h", "probepkg/needs_size.h"), "runtime"
            ),
        ),
    )
    return replace(probepkg_manifest(), headers=headers)


def test_each_header_that_does_not_stand_alone_is_reported_at_its_line(
    synthetic: Path, excluding: Manifest
) -> None:
    models = probe(synthetic, excluding, [str(cmake(NEW_CMAKE_VERSION))])
    (sweep,) = models
    assert isinstance(sweep, HeaderSweep)
    assert sweep.excluded == ("probepkg/include/probepkg/detail/private.h",)
    assert sweep.linked == ("runtime",)
    assert len(sweep.probed) == 7  # probepkg.h and the six others
    found = {(d.location.member, d.location.line): d.message for d in diagnose(models, excluding)}
    assert sorted(found) == [
        ("probepkg/include/probepkg/detail/inner.h", 2),
        ("probepkg/include/probepkg/needs_size.h", 4),
        ("probepkg/include/probepkg/outer.h", 3),
        ("probepkg/include/probepkg/totals.h", None),
    ]
    size = found[("probepkg/include/probepkg/needs_size.h", 4)]
    assert size.startswith("<probepkg/needs_size.h> does not compile alone")
    assert "(CMake 4.4.5, route targets, 3 imported targets)" in size
    assert "first error: 'size_t' in namespace 'std' does not name a type" in size
    outer = found[("probepkg/include/probepkg/outer.h", 3)]
    assert "first error (included from here) at probepkg/include/probepkg/detail/inner.h:2" in outer
    # Compiled with its inline functions kept and linked against libprobepkg.so alone.
    totals = found[("probepkg/include/probepkg/totals.h", None)]
    assert "inline code does not resolve against its owner, component runtime" in totals
    assert totals.endswith("undefined reference to `probepkg::registered_total()'")


def test_without_the_exclusion_the_forbidding_header_is_reported(synthetic: Path) -> None:
    manifest = probepkg_manifest()
    diags = diagnose(probe(synthetic, manifest, [str(cmake(NEW_CMAKE_VERSION))]), manifest)
    (forbidden,) = [d for d in diags if (d.location.member or "").endswith("private.h")]
    assert (forbidden.code, forbidden.location.line) == ("SL507", 2)
    assert "#error" in forbidden.message


def test_a_route_without_imported_targets_is_said_not_probed(synthetic: Path) -> None:
    manifest = probepkg_manifest()
    (diag,) = diagnose(probe(synthetic, manifest, [str(cmake(OLD_CMAKE_VERSION))]), manifest)
    assert (diag.code, diag.severity.value) == ("SL509", "info")
    assert "no-targets" in diag.message


def test_no_compiler_is_a_finding_not_a_skip(
    synthetic: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    manifest = probepkg_manifest()
    (diag,) = diagnose(probe(synthetic, manifest, [str(cmake(NEW_CMAKE_VERSION))]), manifest)
    assert (diag.code, diag.severity.value) == ("SL508", "warning")
    assert "no C++ compiler" in diag.message


@pytest.fixture(scope="session")
def example() -> Manifest:
    return load_manifest(EXAMPLE_MANIFEST, "examples/executorch/shiplint.yaml")


def test_another_platforms_wheel_is_said_not_probed(example: Manifest) -> None:
    models = probe(wheel("1.5.1", "macosx_14_0_arm64"), example, [str(cmake(NEW_CMAKE_VERSION))])
    (diag,) = diagnose(models, example)
    assert (diag.code, diag.severity.value) == ("SL509", "info")
    assert "the artifact is for macos-aarch64" in diag.message


def test_the_real_wheels_headers_are_pinned(example: Manifest) -> None:
    cmakes = [str(cmake(v)) for v in (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION)]
    models = probe(wheel("1.5.1", "manylinux_2_28_x86_64"), example, cmakes)
    (sweep,) = models
    assert isinstance(sweep, HeaderSweep)
    assert sweep.context.cmake_version == NEW_CMAKE_VERSION  # the route with targets
    # Every owner's headers were linked against its target alone, and resolved.
    assert sorted(sweep.linked) == ["etdump", "runtime", "threadpool"]
    # The two headers that stop direct inclusion themselves are the manifest's exclusions.
    assert sorted(Path(m).name for m in sweep.excluded) == ["complex_math.h", "complex_utils.h"]
    diags = diagnose(models, example)
    lines = [
        f"# {len(sweep.probed)} headers compiled alone, {len(sweep.excluded)} excluded:",
        *sweep.excluded,
        "",
        "# diagnostics",
        *render(diags),
    ]
    text = "\n".join(lines) + "\n"
    if os.environ.get("SHIPLINT_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")
