"""Hostile `[tool.shiplint]` tables in a project's pyproject.toml."""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator

from tests.hostile.material import EXAMPLE_MANIFEST, LIBRARIES, member, small_wheel
from tests.hostile.runner import Case, Workspace

PLATFORM, LIB = "manylinux_2_28_x86_64", LIBRARIES["elf"][1]


def _texts(ws: Workspace) -> list[str]:
    t = "[tool.shiplint]\n"
    return [
        "tool = 5\n",
        "[tool]\nshiplint = 5\n",
        "[[tool.shiplint]]\nselect = ['SL1']\n",
        t + "select = " + "[" * 5000 + "]" * 5000 + "\n",
        t + "ignore = " + "[" * 200 + "'SL1'" + "]" * 200 + "\n",
        t + "cmake-timeout = nan\n",
        t + "cmake-timeout = inf\n",
        t + "cmake-timeout = -inf\n",
        t + "cmake-timeout = -1\n",
        t + "cmake-timeout = 0\n",
        t + "cmake-timeout = 1e308\n",
        t + "cmake-timeout = 'soon'\n",
        t + "cmake-timeout = 99999999999999999999\n",
        t + "".join(f"unknown{i} = {i}\n" for i in range(20_000)),
        t + "manifest = '../../../../../../../etc/passwd'\n",
        t + "manifest = '/proc/self/environ'\n",
        t + "manifest = '/dev/zero'\n",
        t + "manifest = 'x\\n/y'\n",
        t + "manifest = 'a\\u0000b'\n",
        t + "manifest = 5\n",
        t + "manifest = ''\n",
        t + "cmake = ['/bin/false']\n",
        t + "cmake = [5]\n",
        t + "cmake = 'cmake'\n",
        t + f"cmake = ['{ws.canary / 'keep.txt'}']\n",
        t + "fail-on = 5\n",
        t + "fail-on = 'fatal'\n",
        t + "select = 'SL1'\n",
        t + "select = [1, 2]\n",
        t + "select = ['']\n",
        t + "select = ['\\u001b]0;pwned\\u0007']\n",
        t + "'\\u001b[2J\\u001b]0;pwned\\u0007' = 1\n",
        t + "link-probe = 'yes'\n",
        t + "select = [" + ", ".join("'SL1'" for _ in range(50_000)) + "]\n",
        "[tool.shiplint\n",
        "\xff\xfe not toml",
        "[tool.shiplint]\nmanifest = 'shiplint.yaml'\n" * 2,
        t + "a.b.c.d = 1\n" + "[tool.shiplint." + ".".join(["x"] * 2000) + "]\n",
    ]


def cases(count: int, seed: int) -> Iterator[Case]:
    for i in range(count):
        case_seed = seed * 100_000 + i

        def build(ws: Workspace, i: int = i, s: int = case_seed) -> list[str]:
            rng = random.Random(s)
            root = ws.inputs / "project"
            root.mkdir()
            (root / "shiplint.yaml").write_bytes(EXAMPLE_MANIFEST.read_bytes())
            texts = _texts(ws)
            path = root / "pyproject.toml"
            if i % (len(texts) + 1) == len(texts):
                kind = rng.choice(("fifo", "zero", "dir", "environ"))
                special: dict[str, Callable[[], None]] = {
                    "fifo": lambda: os.mkfifo(path),
                    "zero": lambda: os.symlink("/dev/zero", path),
                    "dir": lambda: path.mkdir(),
                    "environ": lambda: os.symlink("/proc/self/environ", path),
                }
                special[kind]()
            else:
                text = texts[i % (len(texts) + 1)]
                path.write_bytes(
                    text.encode("latin-1") if text.startswith("\xff") else text.encode()
                )
            wheel = small_wheel(ws.inputs, PLATFORM, [(LIB, member(PLATFORM, LIB))])
            return ["check", "--root", str(root), "--no-sources", "--select", "SL3", str(wheel)]

        yield Case(
            "pyproject",
            f"pyproject-{i}",
            case_seed,
            build,
            env={"SHIPLINT_SECRET": "s3cr3t-pyproject"},
            forbidden=("s3cr3t-pyproject", "root:x:0:0", "\x1b"),
        )
