"""SL2xx on the synthetic source project: quiet on the good one, each rule fires on a broken copy.

tests/fixtures/srcproject has a wrapper function (`demo_add_shared_library`) and a
macro, a conditional OUTPUT_NAME, a setup.py building an explicit target list
across statements, a CMakePresets.json with an inherited target list, a
scikit-build-core table and an excluded vendored tree that would not parse. Each
broken variant is a copy in tmp_path with one edit.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.diagnostics import Diagnostic, Severity
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import BuildDeclaration, Manifest, Sources
from shiplint.registry import RULES
from shiplint.sources.collect import read_sources

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "srcproject"


@pytest.fixture(scope="session")
def manifest() -> Manifest:
    return load_manifest(FIXTURE / "shiplint.yaml")


def run(root: Path, manifest: Manifest) -> list[Diagnostic]:
    return lint(RULES, manifest, [read_sources(root, manifest)], Selection(select=("SL2",)))


def codes(diagnostics: list[Diagnostic]) -> list[str]:
    return [d.code for d in diagnostics]


def broken(tmp_path: Path, edits: dict[str, tuple[str, str]]) -> Path:
    """A copy of the fixture with `old` replaced by `new` in each file (which must contain it)."""
    root = tmp_path / "srcproject"
    shutil.copytree(FIXTURE, root)
    for rel, (old, new) in edits.items():
        path = root / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{rel} no longer contains {old!r}: the fixture changed"
        path.write_text(text.replace(old, new), encoding="utf-8")
    return root


def declarations(*kinds: tuple[str, str | None]) -> Callable[[Manifest], Manifest]:
    def apply(m: Manifest) -> Manifest:
        decls = tuple(BuildDeclaration(k, p) for k, p in kinds)
        return replace(m, sources=replace(m.sources, build_declarations=decls))

    return apply


def test_good_project_reports_only_the_conditions(manifest: Manifest) -> None:
    diagnostics = run(FIXTURE, manifest)
    assert [(d.code, d.location.render(), d.message) for d in diagnostics] == [
        (
            "SL208",
            "kernels/CMakeLists.txt:6:3",
            "component kernels_quantized: target demo_quantized_ops is defined only when "
            "DEMO_BUILD_SHARED; named demo_kernels_quantized only when "
            "DEMO_BUILD_WHEEL; requested only when shared",
        )
    ]
    assert diagnostics[0].severity is Severity.INFO


@pytest.mark.parametrize(
    "kinds",
    [
        (("setup-py", "setup.py"),),
        (("cmake-presets", "CMakePresets.json"),),
        (("scikit-build", "pyproject.toml"),),
        (("setup-py", "setup.py"), ("cmake-presets", "CMakePresets.json")),
    ],
    ids=["setup-py", "presets", "scikit-build", "setup-py+presets"],
)
def test_every_declaration_kind_builds_the_good_project(
    manifest: Manifest, kinds: tuple[tuple[str, str], ...]
) -> None:
    diagnostics = run(FIXTURE, declarations(*kinds)(manifest))
    assert not [d for d in diagnostics if d.severity is not Severity.INFO]


# Each case: the files edited, a manifest change, the code that must fire, where, and a
# fragment of its message.
Edits = dict[str, tuple[str, str]]
Case = tuple[Edits, Callable[[Manifest], Manifest] | None, str, str, str]
CASES: dict[str, Case] = {
    "SL201-target-renamed": (
        {
            "kernels/CMakeLists.txt": (
                "    demo_quantized_ops quantized.cpp",
                "    demo_q_ops quantized.cpp",
            )
        },
        None,
        "SL201",
        "shiplint.yaml:21:5",
        "component kernels_quantized: library demo_kernels_quantized is built by target "
        "demo_quantized_ops, which none of the 5 CMake files read defines",
    ),
    "SL202-wrapper-static": (
        {"cmake/DemoUtils.cmake": ("add_library(${name} SHARED", "add_library(${name} STATIC")},
        None,
        "SL202",
        "kernels/CMakeLists.txt:16:1",
        "library demo_kernels_optimized registers from a static initializer but its target "
        "demo_optimized_ops is built STATIC (explicit)",
    ),
    "SL202-build-shared-libs-unset": (
        {"cmake/DemoUtils.cmake": ("add_library(${name} SHARED", "add_library(${name}")},
        None,
        "SL202",
        "kernels/CMakeLists.txt:6:3",
        "is built STATIC (no type given and BUILD_SHARED_LIBS is not set, so STATIC)",
    ),
    "SL203-wrong-output-name": (
        {"kernels/CMakeLists.txt": ("OUTPUT demo_kernels_optimized", "OUTPUT demo_optimized")},
        None,
        "SL203",
        "kernels/CMakeLists.txt:16:1",
        "library demo_kernels_optimized must be named demo_kernels_optimized, but target "
        "demo_optimized_ops produces demo_optimized (set at kernels/CMakeLists.txt:16:1)",
    ),
    "SL203-conditional-name-removed": (
        {"kernels/CMakeLists.txt": ("OUTPUT_NAME demo_kernels_quantized", "OUTPUT_NAME demo_q")},
        None,
        "SL203",
        "kernels/CMakeLists.txt:10:5",
        "target demo_quantized_ops produces demo_q (set at kernels/CMakeLists.txt:10:5, only "
        "when DEMO_BUILD_SHARED and DEMO_BUILD_WHEEL), demo_quantized_ops (the target name)",
    ),
    "SL204-not-installed": (
        {
            "kernels/CMakeLists.txt": (
                "DEPS demo_kernels_impl demo_runtime",
                "NO_INSTALL DEPS demo_kernels_impl demo_runtime",
            )
        },
        None,
        "SL204",
        "kernels/CMakeLists.txt:6:3",
        "component kernels_quantized: target demo_quantized_ops (library "
        "demo_kernels_quantized) is never installed",
    ),
    "SL205-setup-py-forgets-it": (
        {
            "setup.py": (
                '        args.append("--target")\n        args.append("demo_quantized_ops")\n',
                "        pass\n",
            )
        },
        None,
        "SL205",
        "kernels/CMakeLists.txt:6:3",
        "component kernels_quantized: target demo_quantized_ops (library "
        "demo_kernels_quantized) is declared but never built: the build (setup-py (setup.py))",
    ),
    "SL205-nothing-links-it-any-more": (
        {"plugin/CMakeLists.txt": ("PRIVATE demo_optimized_ops", "PRIVATE demo_runtime")},
        None,
        "SL205",
        "kernels/CMakeLists.txt:16:1",
        "component kernels_optimized: target demo_optimized_ops",
    ),
    "SL205-preset-forgets-it": (
        {
            "CMakePresets.json": (
                '"demo_runtime", "demo_quantized_ops", "demo_plugin"',
                '"demo_runtime", "demo_plugin"',
            )
        },
        declarations(("cmake-presets", "CMakePresets.json")),
        "SL205",
        "kernels/CMakeLists.txt:6:3",
        "the build (cmake-presets (CMakePresets.json)) does not ask for it",
    ),
    "SL205-scikit-build-forgets-it": (
        {
            "pyproject.toml": (
                '"demo_runtime", "demo_quantized_ops", "demo_plugin"',
                '"demo_runtime", "demo_plugin"',
            )
        },
        declarations(("scikit-build", "pyproject.toml")),
        "SL205",
        "kernels/CMakeLists.txt:6:3",
        "target demo_quantized_ops (library demo_kernels_quantized) is declared but never built",
    ),
    "SL206-setup-py-typo": (
        {
            "setup.py": (
                'args += ["--target", "demo_runtime"]',
                'args += ["--target", "demo_runtme"]',
            )
        },
        None,
        "SL206",
        "setup.py:10:26",
        "the build (setup-py) asks for target demo_runtme, which none of the 5 CMake files "
        "read defines",
    ),
    "SL206-preset-typo": (
        {"CMakePresets.json": ('"demo_plugin"]', '"demo_plugn"]')},
        declarations(("cmake-presets", "CMakePresets.json")),
        "SL206",
        "CMakePresets.json:11:57",
        "the build (cmake-presets) asks for target demo_plugn",
    ),
    "SL206-packaging-entry-typo": (
        {"shiplint.yaml": ("build: {target: demo_plugin}", "build: {target: demo_plugins}")},
        None,
        "SL206",
        "shiplint.yaml:39:5",
        "library demo_plugin (plugin) is built by target demo_plugins, which none of the 5 "
        "CMake files read defines",
    ),
    "SL207-vendored-tree-not-excluded": (
        {
            "shiplint.yaml": ('exclude: ["third-party/**"]', "exclude: []"),
            "CMakeLists.txt": ("if(DEMO_USE_VENDORED)", "if(TRUE)"),
        },
        None,
        "SL207",
        "third-party/vendored/CMakeLists.txt:2:1",
        "CMake syntax error",
    ),
    "SL207-f-string-target": (
        {
            "setup.py": (
                'args += ["--target", "demo_runtime"]',
                'name = "runtime"\n    args += ["--target", f"demo_{name}"]',
            )
        },
        None,
        "SL207",
        "setup.py:11:26",
        "`--target` is followed by `f'demo_{name}'`, not a literal target name",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rule_fires_on_broken_variant(tmp_path: Path, manifest: Manifest, case: str) -> None:
    edits, change, code, where, fragment = CASES[case]
    root = broken(tmp_path, edits)
    used = load_manifest(root / "shiplint.yaml") if "shiplint.yaml" in edits else manifest
    if change is not None:
        used = change(used)
    diagnostics = run(root, used)
    hits = [d for d in diagnostics if d.code == code]
    assert hits, f"{code} did not fire; got {codes(diagnostics)}"
    assert any(d.location.render().endswith(where) and fragment in d.message for d in hits), [
        (d.location.render(), d.message) for d in hits
    ]
    for d in hits:
        assert d.hint, "every finding says what to do"


def test_unconditional_component_is_not_reported_as_conditional(
    tmp_path: Path, manifest: Manifest
) -> None:
    root = broken(tmp_path, {"setup.py": ("    if shared:\n", "    if True:\n")})
    (root / "kernels" / "CMakeLists.txt").write_text(
        "demo_add_kernel_library(demo_kernels_impl STATIC kernels.cpp)\n"
        "demo_add_shared_library(demo_quantized_ops quantized.cpp\n"
        "  OUTPUT demo_kernels_quantized DEPS demo_kernels_impl demo_runtime)\n"
        "if(TRUE)\n"
        "  demo_add_shared_library(demo_optimized_ops optimized.cpp\n"
        "    OUTPUT demo_kernels_optimized DEPS demo_runtime)\n"
        "endif()\n",
        encoding="utf-8",
    )
    assert codes(run(root, manifest)) == []


def test_stray_endif_is_a_syntax_error(tmp_path: Path, manifest: Manifest) -> None:
    root = broken(tmp_path, {"plugin/CMakeLists.txt": ("add_library(", "endif()\nadd_library(")})
    diagnostics = [d for d in run(root, manifest) if d.code == "SL207"]
    assert [(d.location.render(), d.message) for d in diagnostics] == [
        ("plugin/CMakeLists.txt:2:1", "endif() without its opening command")
    ]


def test_all_builds_every_target_not_excluded_from_all(tmp_path: Path, manifest: Manifest) -> None:
    everything = declarations(("all", None))(manifest)
    assert codes(run(FIXTURE, everything)) == ["SL208"]
    root = broken(
        tmp_path,
        {"cmake/DemoUtils.cmake": ("add_library(${name} SHARED", "add_library(${name} SHARED EXCLUDE_FROM_ALL")},
    )  # fmt: skip
    # The wrapper now keeps its libraries out of ALL, but the plugin (in ALL) links the
    # optimized kernels, which link the runtime: only the quantized kernels are left.
    never = [d for d in run(root, everything) if d.code == "SL205"]
    assert [d.subject.component for d in never] == ["kernels_quantized"]


def test_no_build_declaration_means_no_built_verdict(manifest: Manifest) -> None:
    bare = replace(manifest, sources=Sources(cmake_roots=(".",), exclude=("third-party/**",)))
    assert "SL205" not in codes(run(FIXTURE, bare))


def test_missing_cmake_root_is_reported(manifest: Manifest, tmp_path: Path) -> None:
    moved = replace(manifest, sources=replace(manifest.sources, cmake_roots=("nowhere",)))
    diagnostics = run(FIXTURE, moved)
    assert "SL207" in codes(diagnostics)
    assert any("sources.cmake_roots names nowhere" in d.message for d in diagnostics)


def test_cli_fails_on_a_component_declared_but_never_built(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from shiplint.cli import main

    root = broken(
        tmp_path,
        {
            "setup.py": (
                '        args.append("--target")\n        args.append("demo_quantized_ops")\n',
                "        pass\n",
            )
        },
    )
    code = main(["check", "--root", str(root), "--manifest", str(root / "shiplint.yaml")])
    out = " ".join(capsys.readouterr().out.split())  # the text report wraps at 100 columns
    assert code == 1
    assert (
        "kernels/CMakeLists.txt:6:3: SL205 [error] component kernels_quantized: target "
        "demo_quantized_ops (library demo_kernels_quantized) is declared but never built" in out
    )


def test_hostile_inputs_are_findings_not_tracebacks(tmp_path: Path, manifest: Manifest) -> None:
    root = broken(tmp_path, {})
    (root / "plugin" / "CMakeLists.txt").write_bytes(b"\x00\xff\xfe(((\x89PNG\r\n\x1a\n" * 50)
    (root / "setup.py").write_bytes(b"args = ['--target', '\xff\xfe']\n")
    (root / "runtime" / "CMakeLists.txt").unlink()
    (root / "runtime" / "CMakeLists.txt").mkdir()
    diagnostics = run(root, manifest)
    unreadable = [(d.location.path, d.message) for d in diagnostics if d.code == "SL207"]
    assert any(
        p == "plugin/CMakeLists.txt" and m.startswith("CMake syntax error") for p, m in unreadable
    ), unreadable
    assert any(
        p.endswith("shiplint.yaml") and "build declaration setup-py names setup.py" in m
        for p, m in unreadable
    ), unreadable
    assert any(
        p == "CMakeLists.txt" and "add_subdirectory(runtime) names a directory without" in m
        for p, m in unreadable
    ), unreadable
