"""The pre-commit hooks, run by the real `pre-commit` against throwaway git repositories.

pre-commit installs the hook repository from a git commit, so the working tree
under test is snapshotted and committed in a temporary directory first. The
hook's environment is built once per session (PRE_COMMIT_HOME is shared), except
for `try-repo`, which always builds its own: it runs once.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.material import EXAMPLE_MANIFEST
from tests.real_reports import PINNED_CODES, cmake_binaries, real_wheel
from tests.repo_snapshot import REPO, commit_all, snapshot

ACME = REPO / "tests" / "data" / "projects" / "acme"
HOOKS = REPO / ".pre-commit-hooks.yaml"


def hooks() -> dict[str, dict[str, Any]]:
    return {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}


@dataclass(frozen=True)
class HookRepo:
    path: Path
    rev: str
    home: Path


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> HookRepo:
    path = tmp_path_factory.mktemp("hook-repo")
    rev = snapshot(path)
    return HookRepo(path, rev, tmp_path_factory.mktemp("pre-commit-home"))


def project(
    tmp_path: Path,
    hook: HookRepo,
    hook_ids: tuple[str, ...] = ("shiplint",),
    source: Path | None = ACME,
) -> Path:
    """A fresh git repository (the acme project by default) whose config points at the hook repo."""
    path = tmp_path / "project"
    if source is None:
        path.mkdir(exist_ok=True)
    else:
        shutil.copytree(source, path)
    config = {
        "repos": [{"repo": str(hook.path), "rev": hook.rev, "hooks": [{"id": i} for i in hook_ids]}]
    }
    (path / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    commit_all(path, "project")
    return path


def pre_commit(cwd: Path, hook: HookRepo, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(hook.home), "PRE_COMMIT_COLOR": "never"}
    env.pop("SHIPLINT_DEBUG", None)
    return subprocess.run(
        ["pre-commit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


# Paths relative to the repository root, as pre-commit matches them.
TRIGGER = [
    "CMakeLists.txt",
    "runtime/kernels/CMakeLists.txt",
    "tools/cmake/executorch-config.cmake",
    "tools/cmake/executorch-config.cmake.in",
    "cmake/Utils.cmake",
    "shiplint.yaml",
    "packaging/shiplint.yml",
    "pyproject.toml",
    "setup.py",
    "CMakePresets.json",
    "CMakeUserPresets.json",
]
NO_TRIGGER = [
    "src/acme.cpp",
    "README.md",
    "CMakeLists.txt.orig",
    "docs/cmake.md",
    "cmake/README",
    "tools/cmake/notes.cmake.txt",
    "myshiplint.yaml",
    "shiplint.yaml.bak",
    "pyproject.toml.orig",
    "tests/setup.pyc",
    "mysetup.py",
    "dist/acme-1.0-py3-none-any.whl",
]


@pytest.mark.parametrize("path", TRIGGER)
def test_source_hook_files_pattern_triggers(path: str) -> None:
    # pre-commit matches `files` with re.search on the repo-relative path.
    assert re.search(hooks()["shiplint"]["files"], path)


@pytest.mark.parametrize("path", NO_TRIGGER)
def test_source_hook_files_pattern_ignores(path: str) -> None:
    assert not re.search(hooks()["shiplint"]["files"], path)


@pytest.mark.parametrize(
    ("path", "triggers"),
    [
        ("dist/acme-1.0-cp311-cp311-manylinux_2_28_x86_64.whl", True),
        ("dist/acme-1.0.tar.gz", True),
        ("install.zip", True),
        ("dist/acme-1.0.whl.sha256", False),
        ("CMakeLists.txt", False),
    ],
)
def test_artifact_hook_files_pattern(path: str, triggers: bool) -> None:
    assert bool(re.search(hooks()["shiplint-artifacts"]["files"], path)) is triggers


def test_hook_definitions() -> None:
    source, artifacts = hooks()["shiplint"], hooks()["shiplint-artifacts"]
    # The source check reads the whole tree: file names only decide whether it runs.
    assert (source["language"], source["pass_filenames"], source["require_serial"]) == (
        "python",
        False,
        True,
    )
    assert "stages" not in source
    # Artifacts are passed by name, all to one run, and only when asked for.
    assert (artifacts["language"], artifacts["pass_filenames"], artifacts["require_serial"]) == (
        "python",
        True,
        True,
    )
    assert artifacts["stages"] == ["manual"]
    assert "--no-sources" in artifacts["entry"].split()


def test_hooks_file_and_readme_config_pass_pre_commit_validation(tmp_path: Path) -> None:
    done = subprocess.run(
        ["pre-commit", "validate-manifest", str(HOOKS)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # The README's .pre-commit-config.yaml examples are valid configs naming real hooks.
    pinned, local = readme_configs()
    for example in (pinned, local):
        config = tmp_path / ".pre-commit-config.yaml"
        config.write_text(example, encoding="utf-8")
        done = subprocess.run(
            ["pre-commit", "validate-config", str(config)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
    named = {h["id"] for repo in yaml.safe_load(pinned)["repos"] for h in repo["hooks"]}
    assert named == set(hooks())
    # The local form runs the installed shiplint exactly as the published hook does.
    (hook,) = yaml.safe_load(local)["repos"][0]["hooks"]
    published = hooks()[hook["id"]]
    for key in ("name", "entry", "pass_filenames", "require_serial", "files"):
        assert hook[key] == published[key], key


def readme_configs() -> tuple[str, str]:
    """The README's two .pre-commit-config.yaml blocks: the pinned one, the local one."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "repos:" in b]
    (pinned,) = (b for b in blocks if "repo: local" not in b)
    (local,) = (b for b in blocks if "repo: local" in b)
    return pinned, local


def test_the_readmes_blocks_work_as_written_with_a_clone_beside_the_project(
    tmp_path: Path, hook_repo: HookRepo
) -> None:
    """The README's configs, copied verbatim: the pinned one against a clone beside the
    project at the release tag the README names, the local one with shiplint installed;
    each runs the source hook on the acme project, which passes."""
    import sys

    from shiplint import __version__

    from tests.repo_snapshot import git

    pinned, local = readme_configs()
    clone = tmp_path / "shiplint"
    git(tmp_path, "clone", "-q", str(hook_repo.path), str(clone))
    # What a release leaves in every clone: the tag the README's rev names.
    git(clone, "tag", "-a", f"v{__version__}", "-m", f"shiplint {__version__}")
    assert f"rev: v{__version__}" in pinned
    for name, config in (("pinned", pinned), ("local", local)):
        repo = tmp_path / name / "project"
        shutil.copytree(ACME, repo)
        (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
        commit_all(repo, "project")
        # `repo: ../shiplint` is relative to the project's root: the clone is beside it.
        (tmp_path / name / "shiplint").symlink_to(clone, target_is_directory=True)
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        }
        done = subprocess.run(
            ["pre-commit", "run", "shiplint", "--all-files", "--color", "never"],
            cwd=repo,
            env={**env, "PRE_COMMIT_HOME": str(hook_repo.home)},
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, name + done.stdout + done.stderr
        assert re.search(r"^shiplint \(sources\)\.+Passed$", done.stdout, re.M), done.stdout


def test_good_project_passes(tmp_path: Path, hook_repo: HookRepo) -> None:
    repo = project(tmp_path, hook_repo)
    done = pre_commit(repo, hook_repo, "run", "--all-files")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^shiplint \(sources\)\.+Passed$", done.stdout, re.M), done.stdout


def test_only_relevant_changes_run_the_hook(tmp_path: Path, hook_repo: HookRepo) -> None:
    repo = project(tmp_path, hook_repo)
    skipped = pre_commit(repo, hook_repo, "run", "--files", "src/acme.cpp")
    assert skipped.returncode == 0
    assert re.search(r"^shiplint \(sources\)\.+\(no files to check\)Skipped$", skipped.stdout, re.M)
    ran = pre_commit(repo, hook_repo, "run", "--files", "CMakeLists.txt")
    assert re.search(r"^shiplint \(sources\)\.+Passed$", ran.stdout, re.M), ran.stdout


def test_broken_manifest_fails_with_its_position(tmp_path: Path, hook_repo: HookRepo) -> None:
    repo = project(tmp_path, hook_repo)
    manifest = repo / "shiplint.yaml"
    manifest.write_text(manifest.read_text().replace("kind: runtime", "kind: runtim"))
    commit_all(repo, "typo")
    done = pre_commit(repo, hook_repo, "run", "--all-files")
    assert done.returncode == 1
    assert "- exit code: 2" in done.stdout
    assert re.search(r"shiplint: error: shiplint\.yaml:\d+:\d+: .*runtim", done.stdout), done.stdout


def test_try_repo_fails_on_a_broken_project(tmp_path: Path, hook_repo: HookRepo) -> None:
    repo = project(tmp_path, hook_repo)
    (repo / "shiplint.yaml").write_text("version: 1\n")
    commit_all(repo, "empty manifest")
    done = pre_commit(repo, hook_repo, "try-repo", str(hook_repo.path), "shiplint", "--all-files")
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"^shiplint \(sources\)\.+Failed$", done.stdout, re.M)
    assert "shiplint.yaml:1:1:" in done.stdout


def test_new_executorch_project_reports_real_findings(tmp_path: Path, hook_repo: HookRepo) -> None:
    """As a new user would: the example manifest, ExecuTorch's real config as the config
    source, both CMake routes in [tool.shiplint] by relative paths, and this repository's
    hooks."""
    repo = tmp_path / "project"
    (repo / "tools" / "cmake").mkdir(parents=True)
    shutil.copy(EXAMPLE_MANIFEST, repo / "shiplint.yaml")
    with zipfile.ZipFile(real_wheel()) as wheel:
        config = wheel.read("executorch/share/cmake/executorch-config.cmake")
    (repo / "tools" / "cmake" / "executorch-wheel-config.cmake").write_bytes(config)
    # The CMakes as the README installs them (`pip install --target cmake-3.24 ...`), named
    # by relative paths: relative to the pyproject.toml, whatever directory CMake runs in.
    for binary, name in zip(cmake_binaries(), ("cmake-3.24", "cmake-4.4"), strict=True):
        (repo / name).symlink_to(binary.parents[3], target_is_directory=True)
    (repo / ".gitignore").write_text("/cmake-3.24\n/cmake-4.4\n")
    (repo / "pyproject.toml").write_text(
        '[tool.shiplint]\ncmake = ["cmake-3.24/cmake/data/bin/cmake", '
        '"./cmake-4.4/cmake/data/bin/cmake"]\n'
    )
    repo = project(tmp_path, hook_repo, ("shiplint", "shiplint-artifacts"), source=None)

    done = pre_commit(repo, hook_repo, "run", "--all-files")
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"^shiplint \(sources\)\.+Failed$", done.stdout, re.M)
    findings = re.findall(r"^(\S+): (SL\d+) \[(\w+)\]", done.stdout, re.M)
    counted = Counter((path.split(":")[0], code) for path, code, _ in findings)
    # What a tree holding only the manifest and the config really gets: no
    # CMakeLists.txt or setup.py, so every build target the manifest names is
    # undefined (SL201 for the 13 components' libraries, SL206 for the 2 plugins
    # and the extension with a build target) and each missing input is SL207; and
    # the real config finding: ExecuTorch's pre-3.28 route leaves the shipped QNN
    # delegate out of EXECUTORCH_LIBRARIES (SL102), so the routes disagree (SL103).
    assert counted == {
        ("CMakeLists.txt", "SL207"): 1,
        ("shiplint.yaml", "SL201"): 13,
        ("shiplint.yaml", "SL206"): 3,
        ("shiplint.yaml", "SL207"): 1,
        ("tools/cmake/executorch-wheel-config.cmake", "SL102"): 1,
        ("tools/cmake/executorch-wheel-config.cmake", "SL103"): 1,
    }
    assert (
        "EXECUTORCH_LIBRARIES does not carry the shipped component backend_qnn on CMake 3.24.3"
        in " ".join(done.stdout.split())  # the text report wraps at 100 columns
    )
    # The artifact hook is on the manual stage: a commit never runs it.
    assert "built artifacts" not in done.stdout

    dist = repo / "dist"
    dist.mkdir()
    try:
        os.link(real_wheel(), dist / real_wheel().name)
    except OSError:  # another filesystem
        shutil.copy(real_wheel(), dist / real_wheel().name)
    wheel_path = f"dist/{real_wheel().name}"
    done = pre_commit(
        repo,
        hook_repo,
        "run",
        "shiplint-artifacts",
        "--hook-stage",
        "manual",
        "--files",
        wheel_path,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"^shiplint \(built artifacts\)\.+Failed$", done.stdout, re.M)
    # Findings name the wheel by its path in the repository, as the hook was given it.
    codes = re.findall(rf"^{re.escape(wheel_path)}\S*: (SL\d+) ", done.stdout, re.M)
    assert sorted(codes) == sorted(c for c, n in PINNED_CODES.items() for _ in range(n))
