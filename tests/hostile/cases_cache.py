"""A user cache turned against its user: a real run of the 1.5.1 Linux wheel (both
CMakes, so every kind of entry is kept), then its cache tampered with before the run
that is measured: forged entries in the real format (an attacker's key, a plain
digest, the previous format), authentic entries moved to other names, entries that
would run a command or write outside if taken (also written with the user's own key),
FIFOs and links to /dev/zero at entries, a kind directory and the prune stamp linked
into the canary directory, a key file or directory others may write. The measured run
must report every finding the first run reported (`required`), run nothing from the
cache and write nothing outside (the canary is where every planted path points)."""

from __future__ import annotations

import marshal
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.cache_forgery import WAYS, entry_bytes, forge
from tests.hostile.material import CACHE, EXAMPLE_MANIFEST, wheel_path
from tests.hostile.runner import REPO, Case, Workspace

_CMAKES = [CACHE / f"cmake-{v}" / "cmake" / "data" / "bin" / "cmake" for v in ("3.24.3", "4.4.5")]


def _arguments(ws: Workspace) -> list[str]:
    project = ws.inputs / "project"
    project.mkdir(exist_ok=True)
    # A table to keep: the pyproject-table entry is one a forger would rewrite.
    (project / "pyproject.toml").write_text('[tool.shiplint]\nfail-on = "error"\n')
    arguments = ["check", "--no-sources", "--root", str(project)]
    arguments += ["--manifest", str(EXAMPLE_MANIFEST)]
    for cmake in _CMAKES:
        arguments += ["--cmake", str(cmake)]
    return [*arguments, str(wheel_path("manylinux_2_28_x86_64"))]


def _warm(ws: Workspace, arguments: list[str]) -> tuple[Path, list[str]]:
    """The first, honest run: it fills the cache. Returns the cache and the codes it found."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(ws.home),
        "TMPDIR": str(ws.tmp),
        "PYTHONPATH": str(REPO / "linter"),
        "LC_ALL": "C.UTF-8",
    }
    done = subprocess.run(
        [sys.executable, "-m", "shiplint", *arguments],
        cwd=ws.cwd, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    codes = sorted(set(re.findall(r"\bSL\d{3}\b", done.stdout)))
    if done.returncode != 1 or not codes:
        # Without findings to hide, a case could not fail: the material is wrong.
        raise SystemExit(f"the warming run found nothing ({done.returncode}): {done.stderr[-500:]}")
    return ws.home / ".cache" / "shiplint", codes


def _entries(root: Path, kind: str) -> list[Path]:
    directory = root / kind
    return (
        sorted(p for p in directory.iterdir() if not p.name.startswith("."))
        if directory.is_dir()
        else []
    )


def _write(root: Path, kind: str, name: str, payload: bytes, way: str) -> None:
    """`way` is one of the forger's WAYS, or "user-key": written as the user's shiplint would."""
    if way == "user-key":
        key = (root / ".key").read_bytes()
        (root / kind / name).write_bytes(entry_bytes(kind, name, payload, key))
    else:
        forge(kind, name, payload, way, root=root)


Tamper = Callable[[Workspace, Path, random.Random], None]


def _hide_everything(ws: Workspace, root: Path, rng: random.Random) -> None:
    table = marshal.dumps({"fail-on": "error", "ignore": ["SL"], "cmake": [str(ws.canary / "x")]})
    for entry in _entries(root, "pyproject-table"):
        _write(root, "pyproject-table", entry.name, table, rng.choice(WAYS))


def _planted_launcher(ws: Workspace, root: Path, rng: random.Random) -> None:
    planted = ["/bin/sh", "-c", f'touch {ws.canary}/ran-from-the-cache; exec "$@"', "sh"]
    entry = marshal.dumps((planted, planted, "none"))
    for path in _entries(root, "cmake-launch"):
        _write(root, "cmake-launch", path.name, entry, rng.choice((*WAYS, "user-key")))


def _escaping_detection(ws: Workspace, root: Path, rng: random.Random) -> None:
    climb = "../" * 40 + str(ws.canary).lstrip("/")
    for path in _entries(root, "cmake-compilers"):
        # The memo's form (compilers._encode): version directory, files, cache, tools, lookup.
        entry: tuple[Any, ...] = (
            rng.choice((f"{climb}/dir", f"{ws.canary}/dir")),
            {
                f"{climb}/CMakeSystem.cmake": "",
                f"{ws.canary}/CMakeCCompiler.cmake": "",
                "CMakeSystem.cmake": f'file(WRITE "{ws.canary}/written-by-kept-code" "x")\n',
            },
            "CMAKE_PLATFORM_INITIALIZED:INTERNAL=1\n",
            {},
            {},
        )
        _write(
            root,
            "cmake-compilers",
            path.name,
            marshal.dumps(entry),
            rng.choice((*WAYS, "user-key")),
        )


def _planted_code(ws: Workspace, root: Path, rng: random.Random) -> None:
    """Kept compiler files that run a command from every probe, as a forger writes them."""
    for path in _entries(root, "cmake-compilers"):
        data = path.read_bytes()
        version_dir, files, kept_cache, tools, lookup = marshal.loads(
            data[len(b"shiplint-cache 2\n") + 32 :]
        )
        files = {
            name: f'execute_process(COMMAND touch "{ws.canary}/ran")\n' + text
            for name, text in files.items()
        }
        entry = marshal.dumps((version_dir, files, kept_cache, tools, lookup))
        forge("cmake-compilers", path.name, entry, rng.choice(WAYS), root=root)


def _swapped(ws: Workspace, root: Path, rng: random.Random) -> None:
    """Every verdict replaced by another input's authentic one, or by a forged copy of it."""
    for kind in ("elf-records", "elf-pointers", "cmake-evaluations", "validated", "cmake-version"):
        entries = _entries(root, kind)
        datas = [p.read_bytes() for p in entries]
        for index, path in enumerate(entries):
            other = datas[(index + 1) % len(datas)]
            if rng.random() < 0.5:
                path.write_bytes(other)  # authentic, under another name
            else:
                payload = other[len(b"shiplint-cache 2\n") + 32 :]
                forge(kind, path.name, payload, rng.choice(WAYS), root=root)


def _empty_answers(ws: Workspace, root: Path, rng: random.Random) -> None:
    """Kept reads and replays emptied (nothing to find), forged."""
    for kind in ("elf-records", "elf-pointers", "cmake-evaluations"):
        for path in _entries(root, kind):
            forge(kind, path.name, marshal.dumps(()), rng.choice(WAYS), root=root)
    for path in _entries(root, "validated"):
        forge("validated", path.name, b"valid", rng.choice(WAYS), root=root)


def _fifos(ws: Workspace, root: Path, rng: random.Random) -> None:
    for kind in [p.name for p in root.iterdir() if p.is_dir()]:
        for path in _entries(root, kind):
            path.unlink()
            os.mkfifo(path)


def _links(ws: Workspace, root: Path, rng: random.Random) -> None:
    targets = ("/dev/zero", "/dev/urandom", "/etc/passwd", str(ws.canary / "keep.txt"))
    for kind in [p.name for p in root.iterdir() if p.is_dir()]:
        for path in _entries(root, kind):
            path.unlink()
            path.symlink_to(rng.choice(targets))


def _linked_directories(ws: Workspace, root: Path, rng: random.Random) -> None:
    """Every kind directory and the prune stamp point into the canary (dangling stamp)."""
    for kind in [p for p in root.iterdir() if p.is_dir()]:
        for path in kind.iterdir():
            path.unlink()
        kind.rmdir()
        (ws.canary / kind.name).mkdir()
        kind.symlink_to(ws.canary / kind.name)
    stamp = root / ".pruned"
    stamp.unlink(missing_ok=True)
    stamp.symlink_to(ws.canary / "pruned-through-a-link")


def _open_to_others(ws: Workspace, root: Path, rng: random.Random) -> None:
    """Writable by others (the directory, or a kind's), or a key others can read: not used."""
    choice = rng.randrange(3)
    if choice == 0:
        root.chmod(0o777)
    elif choice == 1:
        (root / "cmake-launch").chmod(0o777)
    else:
        (root / ".key").chmod(0o644)
    _hide_everything(ws, root, rng)


def _huge(ws: Workspace, root: Path, rng: random.Random) -> None:
    """Entries grown past the size bound (sparse: no disk used)."""
    for kind in [p.name for p in root.iterdir() if p.is_dir()]:
        for path in _entries(root, kind):
            with path.open("r+b") as stream:
                stream.truncate(65 * 1024 * 1024)


# The first four are the short form CI runs: what hides findings, what would run a command.
TAMPERS: list[tuple[str, Tamper]] = [
    ("hide-everything", _hide_everything),
    ("swapped", _swapped),
    ("planted-launcher", _planted_launcher),
    ("fifos", _fifos),
    ("escaping-detection", _escaping_detection),
    ("empty-answers", _empty_answers),
    ("planted-code", _planted_code),
    ("links", _links),
    ("linked-directories", _linked_directories),
    ("open-to-others", _open_to_others),
    ("huge", _huge),
]


def cases(count: int, seed: int) -> Iterator[Case]:
    for i in range(count):
        case_seed = seed * 100_000 + i
        name, tamper = TAMPERS[i % len(TAMPERS)]
        required: list[str] = []

        def build(
            ws: Workspace, tamper: Tamper = tamper, s: int = case_seed, out: list[str] = required
        ) -> list[str]:
            arguments = _arguments(ws)
            root, codes = _warm(ws, arguments)
            out[:] = codes
            tamper(ws, root, random.Random(s))
            return arguments

        yield Case("cache", f"{name}-{i}", case_seed, build, required=required)
