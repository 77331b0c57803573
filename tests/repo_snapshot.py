"""A committed copy of this repository's working tree, for tools that clone HEAD.

`pre-commit` installs a hook repository from a git commit, and the GitHub
Action installs shiplint from its own checkout; both must see the working tree
under test, not the last commit. The copy holds what git would: tracked files
and untracked files that are not ignored.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

GIT_ENV = {
    "GIT_AUTHOR_NAME": "shiplint tests",
    "GIT_AUTHOR_EMAIL": "tests@shiplint.invalid",
    "GIT_COMMITTER_NAME": "shiplint tests",
    "GIT_COMMITTER_EMAIL": "tests@shiplint.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    # The developer's own git config (signing, hooks) must not change a test repository.
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def working_tree_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout.decode()
    # A tracked file deleted in the working tree is not part of it.
    return [name for name in listed.split("\0") if name and (REPO / name).is_file()]


def snapshot(dest: Path) -> str:
    """Copy the working tree to `dest`, commit it there, and return the commit id."""
    for name in working_tree_files():
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    commit_all(dest, "snapshot of the working tree under test")
    return git(dest, "rev-parse", "HEAD")


def commit_all(repo: Path, message: str) -> None:
    if not (repo / ".git").exists():
        git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", message)
