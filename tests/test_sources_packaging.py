"""Packaging entries of setup.py (SL209, SL210): what the script copies into the wheel.

Each case is a copy of tests/fixtures/srcproject whose setup.py gets a packaging list
in ExecuTorch's style (`BuiltFile(src_dir=..., src_name=get_dynamic_lib_name("x"))`),
with one edit. The good list is checked against a real CMake build of the fixture:
every file the rules accept exists in the build tree, and the one SL209 flags does not.
"""

from __future__ import annotations

import runpy
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import BuildDeclaration, Manifest, PackagingCall
from shiplint.registry import RULES
from shiplint.sources.collect import read_sources
from shiplint.sources.model import SourceModel

from tests.material import NEW_CMAKE_VERSION, cmake

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "srcproject"

# Appended to the fixture's setup.py; `setup()` moves under `__main__` so the test can
# run the script's own BuiltFile class and see the file names it really computes.
PACKAGING = """
import sys


def get_dynamic_lib_name(name: str) -> str:
    return f"{name}.dll" if sys.platform == "win32" else f"lib{name}.so"


class BuiltFile:
    def __init__(self, src_dir, src_name, dst, is_dynamic_lib=False):
        self.src = os.path.join(src_dir, get_dynamic_lib_name(src_name) if is_dynamic_lib else src_name)
        self.dst = dst


if os.environ.get("DEMO_MINIMAL") != "1":
    PACKAGED = [
        BuiltFile("%BUILD%/runtime", get_dynamic_lib_name("demo"), "demo/lib/"),
        BuiltFile(
            src_dir="%BUILD%/kernels",
            src_name="demo_kernels_quantized",
            dst="demo/lib/",
            is_dynamic_lib=True,
        ),
        BuiltFile(src_dir="%BUILD%/kernels", src_name="*demo_kernels_optimized" + ".so", dst="demo/lib/"),
        BuiltFile(
            src_dir="%BUILD%/plugin",
            src_name="demo_plugin.dll" if sys.platform == "win32" else "libdemo_plugin.so",
            dst="demo/plugin/",
        ),
        BuiltFile(src_dir="cmake", src_name="DemoUtils.cmake", dst="demo/lib/cmake/demo/"),
    ]
"""

CONFIG = PackagingCall(
    calls=("BuiltFile",),
    name_keyword="src_name",
    name_position=1,
    dir_keyword="src_dir",
    name_functions=("get_dynamic_lib_name",),
)


@pytest.fixture(scope="session")
def manifest() -> Manifest:
    m = load_manifest(FIXTURE / "shiplint.yaml")
    declaration = BuildDeclaration("setup-py", "setup.py", packaging=(CONFIG,))
    return replace(m, sources=replace(m.sources, build_declarations=(declaration,)))


def packaged_copy(root: Path, edits: dict[str, str] | None = None) -> Path:
    """The fixture with the packaging list in its setup.py, `old` replaced by `new`."""
    shutil.copytree(FIXTURE, root)
    setup_py = root / "setup.py"
    text = setup_py.read_text(encoding="utf-8")
    call = 'setup(name="demo", version="0.1")\n'
    assert text.endswith(call), "the fixture's setup.py changed"
    text = text.removesuffix(call) + PACKAGING + f'\n\nif __name__ == "__main__":\n    {call}'
    for old, new in (edits or {}).items():
        assert old in text, f"setup.py no longer contains {old!r}"
        text = text.replace(old, new)
    setup_py.write_text(text, encoding="utf-8")
    return root


def run(root: Path, manifest: Manifest) -> list[Diagnostic]:
    return lint(RULES, manifest, [read_sources(root, manifest)], Selection(select=("SL2",)))


def line_of(root: Path, needle: str) -> int:
    lines = (root / "setup.py").read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


@pytest.fixture(scope="session")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return packaged_copy(tmp_path_factory.mktemp("packaged") / "srcproject")


@pytest.fixture(scope="session")
def good_model(good: Path, manifest: Manifest) -> SourceModel:
    return read_sources(good, manifest)


def test_entries_are_read_with_names_positions_and_conditions(
    good: Path, good_model: SourceModel
) -> None:
    plan = good_model.plan
    assert plan.packaging_read == ("setup-py (setup.py)",)
    assert plan.packaging_unreadable == ()
    when = ("os.environ.get('DEMO_MINIMAL') != '1'",)
    first = line_of(good, 'BuiltFile("%BUILD%/runtime"')
    # Each entry is located at its file name, positional or keyword.
    assert [(e.names, e.location.render(), e.conditions, e.checked_in) for e in plan.packaging] == [
        (("demo",), f"setup.py:{first}:38", when, False),
        (("demo_kernels_quantized",), f"setup.py:{first + 3}:22", when, False),
        (("*demo_kernels_optimized.so",), f"setup.py:{first + 7}:55", when, False),
        (("demo_plugin.dll", "libdemo_plugin.so"), f"setup.py:{first + 10}:22", when, False),
        (("DemoUtils.cmake",), f"setup.py:{first + 13}:45", when, True),
    ]
    lines = (good / "setup.py").read_text(encoding="utf-8").splitlines()
    assert lines[first - 1][37:].startswith('get_dynamic_lib_name("demo")')
    assert lines[first + 2][21:].startswith('"demo_kernels_quantized"')


def test_good_packaging_list_is_quiet(good: Path, manifest: Manifest) -> None:
    diagnostics = run(good, manifest)
    # Only the conditions SL208 always reports on the fixture (test_sources_rules).
    assert [d.code for d in diagnostics] == ["SL208"]


def test_good_list_against_a_real_build(
    good: Path, good_model: SourceModel, tmp_path: Path
) -> None:
    """CMake's verdict: every entry the rules accept names a file the build really leaves."""
    if shutil.which("ninja") is None or shutil.which("c++") is None:
        pytest.fail("this test builds the fixture: it needs ninja and a C++ compiler")
    binary = str(cmake(NEW_CMAKE_VERSION))
    build = tmp_path / "build"
    subprocess.run(
        [binary, "-S", str(good), "-B", str(build), "-G", "Ninja",
         "-DDEMO_BUILD_SHARED=ON", "-DDEMO_BUILD_WHEEL=ON"],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    requested = [r.name for r in good_model.plan.requests]
    subprocess.run(
        [binary, "--build", str(build), "--target", *requested],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    # The script's own BuiltFile computes the real file names (setup() is under __main__).
    packaged = runpy.run_path(str(good / "setup.py"), run_name="packaging")["PACKAGED"]
    found = {}
    for entry in packaged:
        src = str(entry.src)
        base = build if src.startswith("%BUILD%") else good
        found[src] = [p.name for p in base.glob(src.removeprefix("%BUILD%/"))]
    assert found == {
        "%BUILD%/runtime/libdemo.so": ["libdemo.so"],
        "%BUILD%/kernels/libdemo_kernels_quantized.so": ["libdemo_kernels_quantized.so"],
        "%BUILD%/kernels/*demo_kernels_optimized.so": ["libdemo_kernels_optimized.so"],
        "%BUILD%/plugin/libdemo_plugin.so": ["libdemo_plugin.so"],
        "cmake/DemoUtils.cmake": ["DemoUtils.cmake"],
    }
    # The target name of a renamed target is what SL209 rejects: no such file is built.
    assert not list(build.rglob("libdemo_runtime.so"))


FIRES = {
    "SL209-typo": (
        {'src_name="demo_kernels_quantized"': 'src_name="demo_kernel_quantized"'},
        "SL209",
        'src_name="demo_kernel_quantized"',
        "the packaging (setup-py (setup.py)) copies 'demo_kernel_quantized' with BuiltFile(...) "
        "(when os.environ.get('DEMO_MINIMAL') != '1'), but no target of the 5 CMake files "
        "read produces it",
    ),
    "SL209-target-name-of-a-renamed-target": (
        {'get_dynamic_lib_name("demo"), "demo/lib/"': 'get_dynamic_lib_name("demo_runtime"), "x/"'},
        "SL209",
        'BuiltFile("%BUILD%/runtime"',
        "copies 'demo_runtime' with BuiltFile(...)",
    ),
    "SL209-checked-in-file-gone": (
        {'src_name="DemoUtils.cmake"': 'src_name="DemoTools.cmake"'},
        "SL209",
        'src_name="DemoTools.cmake"',
        "copies 'DemoTools.cmake'",
    ),
    "SL210-quantized-not-packaged": (
        {'src_name="demo_kernels_quantized"': 'src_name="demo_kernels_optimized"'},
        "SL210",
        None,
        "component kernels_quantized: target demo_quantized_ops (library demo_kernels_quantized) "
        "is built but never packaged: none of the 5 packaging entries of setup-py (setup.py) "
        "copies demo_kernels_quantized",
    ),
    "SL210-optimized-not-packaged": (
        {'"*demo_kernels_optimized" + ".so"': '"*demo_kernels_optimised" + ".so"'},
        "SL210",
        None,
        "component kernels_optimized: target demo_optimized_ops (library "
        "demo_kernels_optimized) is built but never packaged",
    ),
    "SL207-f-string": (
        {'get_dynamic_lib_name("demo"), "demo/lib/"': 'f"lib{NAME}.so", "demo/lib/"'},
        "SL207",
        'f"lib{NAME}.so"',
        "packaging entry BuiltFile(...) names the file it copies with `f'lib{NAME}.so'`, "
        "not a literal",
    ),
    "SL207-variable": (
        {'src_name="DemoUtils.cmake"': "src_name=UTILS"},
        "SL207",
        "src_name=UTILS",
        "names the file it copies with `UTILS`, not a literal",
    ),
    "SL207-kwargs": (
        {'BuiltFile(src_dir="cmake", src_name="DemoUtils.cmake", dst="demo/lib/cmake/demo/")': (
            'BuiltFile(**{"src_dir": "cmake", "src_name": "DemoUtils.cmake", "dst": "d/"})'
        )},
        "SL207",
        'BuiltFile(**{"src_dir"',
        "packaging entry BuiltFile(...) passes its arguments through `*`/`**`",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(FIRES))
def test_rule_fires_on_broken_packaging(case: str, tmp_path: Path, manifest: Manifest) -> None:
    edits, code, needle, message = FIRES[case]
    root = packaged_copy(tmp_path / "srcproject", edits)
    found = [d for d in run(root, manifest) if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in run(root, manifest)]
    assert message in found[0].message
    if needle is not None:
        line = line_of(root, needle)
        assert found[0].location.path == "setup.py"
        assert found[0].location.line == line
    else:
        assert found[0].location.path == "kernels/CMakeLists.txt"


def test_conditional_output_name_and_wrapper_positional_name_are_quiet(
    tmp_path: Path, manifest: Manifest
) -> None:
    # demo_quantized_ops is the file's name when DEMO_BUILD_WHEEL is off: a name the target
    # may get is a name packaging may copy (SL208 says under which condition).
    root = packaged_copy(
        tmp_path / "srcproject",
        {'src_name="demo_kernels_quantized"': 'src_name="demo_quantized_ops"'},
    )
    assert [d.code for d in run(root, manifest)] == ["SL208"]


def test_without_packaging_config_nothing_is_read(tmp_path: Path) -> None:
    root = packaged_copy(
        tmp_path / "srcproject", {'src_name="demo_kernels_quantized"': 'src_name="nothing"'}
    )
    plain = load_manifest(FIXTURE / "shiplint.yaml")
    model = read_sources(root, plain)
    assert (model.plan.packaging, model.plan.packaging_read) == ((), ())
    assert [d.code for d in run(root, plain)] == ["SL208"]


def test_packaging_on_another_declaration_kind_is_said(tmp_path: Path, manifest: Manifest) -> None:
    # The schema forbids it; a model built in code is still told, not silently ignored.
    declaration = BuildDeclaration("scikit-build", "pyproject.toml", packaging=(CONFIG,))
    m = replace(manifest, sources=replace(manifest.sources, build_declarations=(declaration,)))
    found = [d for d in run(FIXTURE, m) if d.code == "SL207"]
    assert [d.message for d in found] == [
        "packaging is read from setup-py declarations only, not scikit-build; its packaging "
        "entries are not checked"
    ]


TOOL_ENTRY = (
    '        BuiltFile(src_dir="cmake", src_name="DemoUtils.cmake", dst="demo/lib/cmake/demo/"),\n'
)
TOOL_PROJECT = """
include(ExternalProject)
if(NOT DEMO_TOOL_EXECUTABLE)
  ExternalProject_Add(
    demo_tool_ep
    SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/tool
    BUILD_BYPRODUCTS <INSTALL_DIR>/bin/demo_tool ${CMAKE_CURRENT_BINARY_DIR}/tool/libtool.a
  )
endif()
"""


@pytest.mark.parametrize("byproducts", [True, False], ids=["declared", "undeclared"])
def test_external_project_byproducts_are_outputs(
    tmp_path: Path, manifest: Manifest, byproducts: bool
) -> None:
    # An ExternalProject's target name says nothing of its files (flatbuffers_ep makes
    # flatc); BUILD_BYPRODUCTS does, and is what packaging may copy.
    root = packaged_copy(
        tmp_path / "srcproject",
        {
            TOOL_ENTRY: TOOL_ENTRY
            + '        BuiltFile(src_dir="%BUILD%/demo_tool_ep/bin", src_name="demo_tool", dst="b/"),\n'
        },
    )
    project = TOOL_PROJECT if byproducts else TOOL_PROJECT.replace("BUILD_BYPRODUCTS", "#")
    with (root / "CMakeLists.txt").open("a", encoding="utf-8") as stream:
        stream.write(project)
    model = read_sources(root, manifest)
    made = [
        (b.target, b.value, b.location.render(), b.conditions) for b in model.project.byproducts
    ]
    found = [d for d in run(root, manifest) if d.code == "SL209"]
    if byproducts:
        assert made == [
            ("demo_tool_ep", "demo_tool", "CMakeLists.txt:22:3", ("NOT DEMO_TOOL_EXECUTABLE",)),
            ("demo_tool_ep", "libtool.a", "CMakeLists.txt:22:3", ("NOT DEMO_TOOL_EXECUTABLE",)),
        ]
        assert found == []
    else:
        assert made == []
        assert [d.message.split(",")[0] for d in found] == [
            "the packaging (setup-py (setup.py)) copies 'demo_tool' with BuiltFile(...) (when "
            "os.environ.get('DEMO_MINIMAL') != '1')"
        ]


def test_a_component_never_built_is_sl205s_not_sl210s(tmp_path: Path, manifest: Manifest) -> None:
    root = packaged_copy(
        tmp_path / "srcproject",
        {
            '        args.append("--target")\n        args.append("demo_quantized_ops")\n': (
                "        pass\n"
            ),
            'src_name="demo_kernels_quantized"': 'src_name="demo_kernels_optimized"',
        },
    )
    assert [d.code for d in run(root, manifest)] == ["SL205", "SL208"]


@pytest.mark.parametrize("depth", [3000, 40000], ids=["too-deep-to-follow", "too-deep-to-parse"])
def test_a_script_nested_too_deeply_is_said_not_a_traceback(
    tmp_path: Path, manifest: Manifest, depth: int
) -> None:
    # A `+` chain of thousands of literals: Python's parser, or the reader, runs out of
    # stack. Either way the script is reported (SL207) and nothing half-read is kept.
    chain = "+".join(['"b"'] * depth)
    root = packaged_copy(
        tmp_path / "srcproject",
        {"    PACKAGED = [\n": f"    PACKAGED = [\n        BuiltFile(src_name={chain}),\n"},
    )
    model = read_sources(root, manifest)
    assert model.plan.packaging == ()
    found = [d for d in run(root, manifest) if d.code == "SL207"]
    assert [d.location.render() for d in found] == ["setup.py"]
    assert "nested too deeply" in found[0].message
