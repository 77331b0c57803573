"""The version scheme agrees with itself: `__version__`, the package's version, the
changelog, the release tags and the version the README's copy-paste blocks pin.

A user copies the README's pre-commit and Action blocks as they are; a `rev:` or
`ref:` naming a tag the project never made, or a version the changelog does not
describe, fails for them at the first run.
"""

from __future__ import annotations

import re
import subprocess
import sys

import yaml
from packaging.version import Version
from shiplint import __version__

from tests.material import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

TAG = f"v{__version__}"


def _readme_yaml_blocks() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```yaml\n(.*?)```", readme, re.S)


def test_the_version_is_a_release_version_the_package_reads() -> None:
    version = Version(__version__)
    assert not version.is_devrelease and not version.local
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["hatch"]["version"]["path"] == "linter/shiplint/__init__.py"
    shown = subprocess.run(
        [sys.executable, "-m", "shiplint", "--version"],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO / "linter")},
    )
    assert shown.stdout.strip() == f"shiplint {__version__}"


def test_the_changelog_describes_the_version() -> None:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[0] == "Unreleased"
    released = [h.split()[0] for h in headings[1:]]
    assert released[0] == __version__
    # Newest first, each version once.
    versions = [Version(v) for v in released]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)


def test_the_readmes_blocks_pin_the_current_release_tag() -> None:
    blocks = _readme_yaml_blocks()
    (pre_commit,) = (b for b in blocks if "repos:" in b and "repo: local" not in b)
    (repo,) = yaml.safe_load(pre_commit)["repos"]
    assert repo["rev"] == TAG
    (workflow,) = (yaml.safe_load(b) for b in blocks if "jobs:" in b)
    steps = next(iter(workflow["jobs"].values()))["steps"]
    fetch = next(s for s in steps if s.get("with", {}).get("repository", "").endswith("shiplint"))
    assert fetch["with"]["ref"] == TAG
    # The Action is used from the very checkout the step before made.
    used = next(s for s in steps if s.get("id") == "shiplint")
    assert used["uses"] == f"./{fetch['with']['path']}"
    assert "<" not in pre_commit and "<owner>" not in yaml.safe_dump(workflow)


def test_the_schema_line_names_the_schema_in_a_clone_beside_the_project() -> None:
    (line,) = (b.strip() for b in _readme_yaml_blocks() if b.startswith("# yaml-language-server"))
    path = line.split("$schema=", 1)[1]
    # Relative to a manifest at the project's root, with the clone at ../shiplint.
    assert path.startswith("../shiplint/")
    assert (REPO / path.removeprefix("../shiplint/")).is_file()


def test_every_release_tag_names_its_own_version() -> None:
    """Each `v<version>` tag the repository has is on a commit whose `__version__` is
    that version and whose changelog has its section."""
    listed = subprocess.run(
        ["git", "tag", "--list", "v*"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    for tag in listed:
        init = subprocess.run(
            ["git", "show", f"{tag}:linter/shiplint/__init__.py"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert f'__version__ = "{tag[1:]}"' in init, tag
        changelog = subprocess.run(
            ["git", "show", f"{tag}:CHANGELOG.md"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert re.search(rf"^## {re.escape(tag[1:])}\b", changelog, re.M), tag
