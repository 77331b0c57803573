"""SL340-SL342 and SL312's universal2 half: what a wheel's platform tag promises.

The versioned library is compiled here: a stand-in whose SONAME is `libstdc++.so.6`
defines one function under the version node `GLIBCXX_3.4.32` (a version script), and
`libpkg.so` calls it, so its version needs ask the system's libstdc++ for
GLIBCXX_3.4.32, as a library built by GCC 14 does. The macOS cases are the real
ExecuTorch macOS wheel, read under other tags (a link with another file name: the tag
is the name's).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.artifacts.tag_promises import linux_promise, macos_promise, version_key
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.registry import RULES

from tests.artifact_libs import pack_wheel
from tests.builders import manifest
from tests.material import other_wheel, wheel

_BUILT: dict[str, dict[str, Path]] = {}


def _compile(args: list[str], cwd: Path) -> None:
    subprocess.run(["cc", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="session")
def versioned(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if "libs" in _BUILT:
        return _BUILT["libs"]
    root = tmp_path_factory.mktemp("versioned")
    (root / "std.c").write_text("int fake_new_api(void) { return 32; }\n")
    (root / "std.map").write_text("GLIBCXX_3.4.32 { global: fake_new_api; local: *; };\n")
    (root / "pkg.c").write_text(
        "#include <stdio.h>\nint fake_new_api(void);\n"
        'int pkg_run(void) { puts("run"); return fake_new_api(); }\n'
    )
    _compile(
        [
            "-shared",
            "-fPIC",
            "-Wl,-soname,libstdc++.so.6",
            "-Wl,--version-script,std.map",
            "std.c",
            "-o",
            "libstdc++.so.6",
        ],
        root,
    )
    _compile(
        [
            "-shared",
            "-fPIC",
            "-Wl,-soname,libpkg.so",
            "pkg.c",
            "-L.",
            "-l:libstdc++.so.6",
            "-o",
            "libpkg.so",
        ],
        root,
    )
    _BUILT["libs"] = {"std": root / "libstdc++.so.6", "pkg": root / "libpkg.so"}
    return _BUILT["libs"]


def _run(path: Path, code: str) -> list[Diagnostic]:
    mf = manifest()
    with open_artifact(path) as tree:
        model = read_inventory(tree, mf)
    return lint(RULES, mf, [model], Selection(select=(code,)))


def _retagged(tmp_path: Path, source: Path, name: str) -> Path:
    link = tmp_path / name
    link.symlink_to(source)
    return link


# ------------------------------------------------------------------ the policy data


def test_the_tags_promise_what_auditwheels_policies_list() -> None:
    promise = linux_promise("manylinux_2_28_x86_64")
    assert promise is not None
    assert promise.highest("GLIBCXX") == "3.4.24"
    assert promise.highest("GLIBC") == "2.28"
    assert promise.beyond("GLIBCXX_3.4.32")
    assert not promise.beyond("GLIBCXX_3.4.24")
    # A prefix no policy lists (a package's own version node) is never beyond.
    assert not promise.beyond("OPENCL_2.1")
    alias = linux_promise("manylinux2014_x86_64")
    assert alias is not None and alias.highest("GLIBC") == "2.17"
    assert linux_promise("musllinux_1_2_x86_64") is None
    assert macos_promise("macosx_10_9_x86_64") == (10, 9)
    assert version_key("2.3.4") > version_key("2.3") > version_key("2.2.5")


# ------------------------------------------------------------------ SL340


def test_sl340_fires_for_a_version_the_tag_does_not_promise(
    tmp_path: Path, versioned: dict[str, Path]
) -> None:
    path = pack_wheel(
        tmp_path / "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl",
        {"pkg/lib/libpkg.so": versioned["pkg"]},
    )
    (diag,) = _run(path, "SL340")
    assert diag.location.member == "pkg/lib/libpkg.so"
    assert "needs GLIBCXX_3.4.32, newer than manylinux_2_28_x86_64 promises" in diag.message
    assert "at most GLIBCXX_3.4.24" in diag.message


def test_sl340_quiet_when_the_tag_promises_it(tmp_path: Path, versioned: dict[str, Path]) -> None:
    path = pack_wheel(
        tmp_path / "pkg-1.0-cp311-cp311-manylinux_2_39_x86_64.whl",
        {"pkg/lib/libpkg.so": versioned["pkg"]},
    )
    assert _run(path, "SL340") == []


def test_sl340_quiet_when_the_wheel_ships_the_library(
    tmp_path: Path, versioned: dict[str, Path]
) -> None:
    path = pack_wheel(
        tmp_path / "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl",
        {"pkg/lib/libpkg.so": versioned["pkg"], "pkg/lib/libstdc++.so.6": versioned["std"]},
    )
    assert _run(path, "SL340") == []


def test_sl340_every_tag_of_a_compressed_set_is_a_promise(
    tmp_path: Path, versioned: dict[str, Path]
) -> None:
    path = pack_wheel(
        tmp_path / "pkg-1.0-cp311-cp311-manylinux_2_39_x86_64.manylinux_2_28_x86_64.whl",
        {"pkg/lib/libpkg.so": versioned["pkg"]},
    )
    (diag,) = _run(path, "SL340")
    assert "manylinux_2_28_x86_64 promises" in diag.message


def test_sl340_on_real_wheels() -> None:
    # tbb-devel is tagged manylinux1 (glibc 2.5, GLIBCXX_3.4.8); auditwheel show says
    # its binaries constrain it to manylinux_2_24.
    found = _run(other_wheel("tbb-devel"), "SL340")
    assert found, "tbb-devel's libraries need glibc 2.14 and GLIBCXX_3.4.21"
    assert all("newer than manylinux1_x86_64 promises" in d.message for d in found)
    assert any("GLIBC_2.14" in d.message and "GLIBCXX_3.4.21" in d.message for d in found)
    # ExecuTorch 1.5.1 needs no more than manylinux_2_27 (auditwheel show) and is 2_28.
    assert _run(wheel("1.5.1", "manylinux_2_28_x86_64"), "SL340") == []


def test_sl340_on_a_real_wheel_retagged_older(tmp_path: Path) -> None:
    path = _retagged(
        tmp_path,
        wheel("1.5.1", "manylinux_2_28_x86_64"),
        "executorch-1.5.1-cp311-cp311-manylinux_2_17_x86_64.whl",
    )
    found = _run(path, "SL340")
    assert found
    assert all("manylinux_2_17_x86_64 promises" in d.message for d in found)


# ------------------------------------------------------------------ SL341


def test_sl341_fires_for_a_binary_in_a_pure_wheel(
    tmp_path: Path, versioned: dict[str, Path]
) -> None:
    path = pack_wheel(
        tmp_path / "pkg-1.0-py3-none-any.whl", {"pkg/lib/libpkg.so": versioned["pkg"]}
    )
    (diag,) = _run(path, "SL341")
    assert diag.location.member == "pkg/lib/libpkg.so"
    assert "in a wheel tagged `any`" in diag.message


def test_sl341_quiet_for_a_platform_wheel(tmp_path: Path, versioned: dict[str, Path]) -> None:
    path = pack_wheel(
        tmp_path / "pkg-1.0-py3-none-manylinux_2_39_x86_64.whl",
        {"pkg/lib/libpkg.so": versioned["pkg"]},
    )
    assert _run(path, "SL341") == []


# ------------------------------------------------------------------ SL342 / SL312


def test_sl342_fires_for_a_real_wheel_tagged_older_than_its_binaries(tmp_path: Path) -> None:
    path = _retagged(
        tmp_path,
        wheel("1.5.1", "macosx_14_0_arm64"),
        "executorch-1.5.1-cp311-cp311-macosx_11_0_arm64.whl",
    )
    found = _run(path, "SL342")
    assert found
    assert all(
        "needs macOS 14.0 (LC_BUILD_VERSION minos), newer than macosx_11_0_arm64" in d.message
        for d in found
    )
    assert any(d.location.member == "executorch/lib/libexecutorch.dylib" for d in found)


def test_sl342_quiet_for_the_real_wheels_own_tag() -> None:
    assert _run(wheel("1.5.1", "macosx_14_0_arm64"), "SL342") == []
    assert _run(other_wheel("mlx"), "SL342") == []


def test_sl312_a_universal2_wheel_needs_both_slices(tmp_path: Path) -> None:
    path = _retagged(
        tmp_path,
        wheel("1.5.1", "macosx_14_0_arm64"),
        "executorch-1.5.1-cp311-cp311-macosx_14_0_universal2.whl",
    )
    found = _run(path, "SL312")
    assert found
    assert all("built as Mach-O for aarch64" in d.message for d in found)
    assert _run(wheel("1.5.1", "macosx_14_0_arm64"), "SL312") == []


# ------------------------------------------------------------------ SL349


def test_sl349_a_glibc_binary_in_a_musllinux_wheel(
    tmp_path: Path, versioned: dict[str, Path]
) -> None:
    path = pack_wheel(
        tmp_path / "pkg-1.0-cp311-cp311-musllinux_1_2_x86_64.whl",
        {"pkg/lib/libpkg.so": versioned["pkg"]},
    )
    (diag,) = _run(path, "SL349")
    assert diag.location.member == "pkg/lib/libpkg.so"
    assert "needs glibc (libc.so.6, GLIBC_" in diag.message
    assert "musllinux_1_2_x86_64 promises a musl system" in diag.message


def test_sl349_a_musl_binary_in_a_manylinux_wheel(tmp_path: Path) -> None:
    # A stand-in with musl's SONAME, NEEDed as a musl-linked library NEEDs it.
    (tmp_path / "stub.c").write_text("int musl_stub(void) { return 0; }\n")
    (tmp_path / "user.c").write_text(
        "int musl_stub(void);\nint run(void) { return musl_stub(); }\n"
    )
    soname = "libc.musl-x86_64.so.1"
    _compile(["-shared", "-fPIC", f"-Wl,-soname,{soname}", "stub.c", "-o", soname], tmp_path)
    _compile(["-shared", "-fPIC", "user.c", "-L.", f"-l:{soname}", "-o", "libuser.so"], tmp_path)
    musl = pack_wheel(
        tmp_path / "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl",
        {"pkg/lib/libuser.so": tmp_path / "libuser.so"},
    )
    (diag,) = _run(musl, "SL349")
    assert f"needs musl ({soname})" in diag.message
    quiet = pack_wheel(
        tmp_path / "pkg-1.0-cp311-cp311-musllinux_1_2_x86_64.whl",
        {"pkg/lib/libstub.so": tmp_path / soname},
    )
    assert _run(quiet, "SL349") == []


def test_sl349_quiet_on_the_real_manylinux_wheels() -> None:
    assert _run(wheel("1.5.1", "manylinux_2_28_x86_64"), "SL349") == []
