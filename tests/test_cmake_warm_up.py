"""The warm-up: what the evaluations first ask of the machine, made while the run reads its
inputs, with real CMakes; each detection is made once, whoever asks first."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from shiplint.cmake_eval import compilers, run
from shiplint.cmake_eval.cmake_binary import identify
from shiplint.cmake_eval.run import platform_arguments
from shiplint.cmake_eval.warm_up import warming, wheel_systems
from shiplint.platforms import Platform

from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

LINUX_WHEEL = Path("executorch-1.5.1-cp311-cp311-manylinux_2_28_x86_64.whl")
MACOS_WHEEL = Path("executorch-1.5.1-cp311-cp311-macosx_14_0_arm64.whl")


@pytest.fixture
def empty_user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _kept(path: str, system: Platform) -> compilers.Detection | None:
    binary = identify(path)
    return compilers.load(compilers.inputs(binary, platform_arguments(system, ()), ()))


def test_the_systems_are_those_the_wheel_tags_name_each_once() -> None:
    artifacts = [
        LINUX_WHEEL,
        Path("executorch-1.5.1-cp311-cp311-manylinux_2_28_aarch64.whl"),
        MACOS_WHEEL,
        Path("pybind11-3.1.0-py3-none-any.whl"),
        Path("install-tree"),
    ]
    assert wheel_systems(artifacts) == (Platform("linux"), Platform("macos"))


@pytest.mark.usefixtures("empty_user_cache")
def test_each_cmakes_detection_of_each_wheel_system_is_kept_on_leaving() -> None:
    cmakes = [str(cmake(OLD_CMAKE_VERSION)), str(cmake(NEW_CMAKE_VERSION))]
    systems = wheel_systems([LINUX_WHEEL, MACOS_WHEEL])
    assert all(_kept(path, system) is None for path in cmakes for system in systems)
    with warming(cmakes, systems, 120.0):
        pass
    assert all(_kept(path, system) is not None for path in cmakes for system in systems)


@pytest.mark.usefixtures("empty_user_cache")
def test_nothing_is_detected_for_an_artifact_without_a_wheel_tag() -> None:
    path = str(cmake(NEW_CMAKE_VERSION))
    with warming([path], wheel_systems([Path("pybind11-3.1.0-py3-none-any.whl")]), 120.0):
        pass
    assert _kept(path, Platform("linux")) is None


@pytest.mark.usefixtures("empty_user_cache")
def test_an_evaluation_asking_during_the_warm_up_waits_for_its_detection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    lock = threading.Lock()
    real = run._detect_in

    def counted(*args: Any, **kwargs: Any) -> Any:
        with lock:
            made.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(run, "_detect_in", counted)
    path = str(cmake(NEW_CMAKE_VERSION))
    system = Platform("linux")
    with warming([path], (system,), 120.0):
        # Asked at once, as an evaluation would: whoever comes first makes it.
        run.detect(identify(path), system, (), tmp_path / "evaluation", 120.0)
    assert len(made) == 1
    assert _kept(path, system) is not None
