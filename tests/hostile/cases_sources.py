"""Hostile CMake sources, setup.py and CMakePresets.json in the checked repository."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.hostile.material import ACME
from tests.hostile.runner import Case, Workspace

SECRET = "s3cr3t-sources"
_DECLARATIONS = """sources:
  build_declarations:
    - kind: setup-py
      path: setup.py
      packaging:
        - {calls: [copy_file], name_keyword: src, name_position: 0}
    - kind: cmake-presets
      path: CMakePresets.json
    - kind: scikit-build
      path: pyproject.toml
"""
_PROJECT = "cmake_minimum_required(VERSION 3.20)\nproject(acme CXX)\n"
_LIB = "add_library(acme SHARED src/acme.cpp)\ninstall(TARGETS acme LIBRARY DESTINATION acme/lib)\n"


def _cmake(ws: Workspace, rng: random.Random) -> dict[str, str | bytes | Callable[[Path], None]]:
    escape = ws.escape("cmake")
    options: list[dict[str, str | bytes | Callable[[Path], None]]] = [
        {"CMakeLists.txt": _PROJECT + "if(A)\n" * 10_000 + _LIB + "endif()\n" * 10_000},
        {
            "CMakeLists.txt": _PROJECT
            + "if("
            + "(" * 5000
            + "A"
            + ")" * 5000
            + ")\n"
            + _LIB
            + "endif()\n"
        },
        {"CMakeLists.txt": _PROJECT + "include(/proc/self/environ)\n" + _LIB},
        {"CMakeLists.txt": _PROJECT + f"include({ws.canary / 'keep.txt'})\n" + _LIB},
        {"CMakeLists.txt": _PROJECT + "add_subdirectory(/etc)\n" + _LIB},
        {"CMakeLists.txt": _PROJECT + f"add_subdirectory({escape})\n" + _LIB},
        {"CMakeLists.txt": _PROJECT + "set(X " + " ".join(["a"] * 1_000_000) + ")\n" + _LIB},
        {"CMakeLists.txt": _PROJECT + "set(A x)\n" + 'set(A "${A}${A}")\n' * 40 + _LIB},
        {"CMakeLists.txt": _PROJECT + "set(A x)\n" + "list(APPEND A ${A})\n" * 40 + _LIB},
        {"CMakeLists.txt": _PROJECT + "if(A)\n" * 10_000 + _LIB},
        {
            "CMakeLists.txt": _PROJECT
            + "set(A x)\n"
            + 'set(A "${A}${A}")\n' * 19
            + "set(B "
            + " ".join(["${A}"] * 5000)
            + ")\nif("
            + " ".join(["${A}"] * 5000)
            + ")\nendif()\n"
            + _LIB
        },
        {"CMakeLists.txt": _PROJECT + "function(f)\n f()\nendfunction()\nf()\n" + _LIB},
        {"CMakeLists.txt": _PROJECT + "macro(m)\n m()\nendmacro()\nm()\n" + _LIB},
        {"CMakeLists.txt": _PROJECT + "foreach(i RANGE 100000000)\nendforeach()\n" + _LIB},
        {"CMakeLists.txt": _PROJECT + "while(TRUE)\nendwhile()\n" + _LIB},
        # Each level runs what it holds twice: exponential work long before deep nesting.
        {"CMakeLists.txt": _PROJECT + "foreach(i a b)\n" * 1000 + _LIB + "endforeach()\n" * 1000},
        {
            "CMakeLists.txt": _PROJECT
            + "foreach(i a b)\n" * 10_000
            + _LIB
            + "endforeach()\n" * 10_000
        },
        {
            "CMakeLists.txt": _PROJECT + "include(cmake/env.cmake)\n" + _LIB,
            "cmake/env.cmake": lambda p: os.symlink("/proc/self/environ", p),
        },
        {
            "CMakeLists.txt": _PROJECT + "add_subdirectory(a0)\n" + _LIB,
            **{
                f"a{'/a'.join(str(j) for j in range(i + 1))}/CMakeLists.txt": f"add_subdirectory(a{i + 1})\n"
                for i in range(300)
            },
        },
        {
            "CMakeLists.txt": _PROJECT + "include(c0.cmake)\n" + _LIB,
            **{f"c{i}.cmake": f"include(c{i + 1}.cmake)\n" for i in range(3000)},
        },
        {
            "CMakeLists.txt": _PROJECT + "include(self.cmake)\n" + _LIB,
            "self.cmake": "include(self.cmake)\ninclude(${CMAKE_CURRENT_LIST_FILE})\n",
        },
        {"CMakeLists.txt": b"\xff\xfe\x00\x00" + _PROJECT.encode() + b"\x00\x00" + _LIB.encode()},
        {"CMakeLists.txt": _PROJECT + "set(X [==[unterminated\n" + _LIB},
        {"CMakeLists.txt": _PROJECT + 'message("\x1b]0;pwned\x07\x1b[2J"\n' + _LIB},
        {"CMakeLists.txt": _PROJECT + "add_library(\x1b[31m\x00 SHARED x.cpp)\n" + _LIB},
        {"CMakeLists.txt": _PROJECT + ("# " + "x" * 1000 + "\n") * 60_000 + _LIB},
        {"CMakeLists.txt": lambda p: os.mkfifo(p)},
        {"CMakeLists.txt": lambda p: os.symlink("/dev/zero", p)},
        {"CMakeLists.txt": lambda p: p.mkdir()},
        {
            "CMakeLists.txt": _PROJECT + "add_subdirectory(loop)\n" + _LIB,
            "loop": lambda p: os.symlink(".", p),
        },
    ]
    return rng.choice(options)


def _setup(ws: Workspace, rng: random.Random) -> dict[str, str | bytes | Callable[[Path], None]]:
    options: list[str | bytes | Callable[[Path], None]] = [
        "x = " + "(" * 1000 + "1" + ")" * 1000 + "\n",
        "x = " + " + ".join(["'a'"] * 100_000) + "\n",
        "x = [" + ", ".join(["'--target'", "'acme'"] * 50_000) + "]\n",
        "def f():\n"
        + "".join("    " * (i + 1) + "if x:\n" for i in range(120))
        + "    " * 121
        + "pass\n",
        "lambda: " * 5000 + "1\n",
        "cmd = ['--target', " + " + ".join(["'acme'"] * 400) + "]\n",
        "cmd = ['--target', " + " + ".join(["'acme'"] * 900) + "]\n",
        b"\xff\xfe\x00 not python",
        "cmd = ['--target', '\x1b]0;pwned\x07']\n",
        "x = '" + "a" * 50_000_000 + "'\n",
        lambda p: os.mkfifo(p),
        lambda p: os.symlink("/dev/zero", p),
        lambda p: os.symlink("/proc/self/environ", p),
        lambda p: p.mkdir(),
    ]
    return {"setup.py": rng.choice(options)}


def _presets(ws: Workspace, rng: random.Random) -> dict[str, str | bytes | Callable[[Path], None]]:
    chain = {
        "version": 3,
        "buildPresets": [{"name": f"p{i}", "inherits": [f"p{i + 1}"]} for i in range(5000)]
        + [{"name": "p5000", "targets": ["acme"]}],
    }
    loop = {
        "version": 3,
        "buildPresets": [{"name": "a", "inherits": "b"}, {"name": "b", "inherits": ["a"]}],
    }
    wrong = {
        "version": 3,
        "buildPresets": [
            {"name": 5, "inherits": {"x": 1}, "targets": [[["acme"]]]},
            "text",
            None,
            7,
        ],
    }
    options: list[str | bytes | Callable[[Path], None]] = [
        json.dumps(chain),
        json.dumps(loop),
        json.dumps(wrong),
        json.dumps({"version": 3, "buildPresets": {"a": 1}}),
        "[" * 100_000 + "]" * 100_000,
        '{"buildPresets": ' + "[" * 5000 + "]" * 5000 + "}",
        json.dumps(
            {
                "version": 3,
                "buildPresets": [{"name": "a", "inherits": 5}, {"name": "b", "inherits": [["a"]]}],
            }
        ),
        json.dumps({"buildPresets": [{"name": "x", "targets": "\x1b]0;pwned\x07"}]}),
        '{"buildPresets": [1e999999, NaN]}',
        b"\xff\xfe",
        lambda p: os.mkfifo(p),
        lambda p: os.symlink("/dev/zero", p),
    ]
    return {"CMakePresets.json": rng.choice(options)}


def _pyproject(
    ws: Workspace, rng: random.Random
) -> dict[str, str | bytes | Callable[[Path], None]]:
    options: list[str | bytes | Callable[[Path], None]] = [
        "[tool]\nscikit-build = 5\n",
        "[tool]\nscikit-build = " + "[" * 5000 + "]" * 5000 + "\n",
        "[tool.scikit-build]\nbuild = " + "{a = " * 400 + "1" + "}" * 400 + "\n",
        '[tool.scikit-build.build]\ntargets = [[["acme"]]]\n',
        lambda p: os.mkfifo(p),
        lambda p: os.symlink("/dev/zero", p),
    ]
    return {"pyproject.toml": rng.choice(options)}


Files = Callable[[Workspace, random.Random], dict[str, str | bytes | Callable[[Path], None]]]


def cases(count: int, seed: int) -> Iterator[Case]:
    kinds: tuple[Files, ...] = (_cmake, _setup, _presets, _cmake, _pyproject)
    for i in range(count):
        kind = kinds[i % len(kinds)]
        case_seed = seed * 100_000 + i

        def build(ws: Workspace, kind: Files = kind, s: int = case_seed) -> list[str]:
            rng = random.Random(s)
            root = ws.inputs / "project"
            root.mkdir()
            (root / "src").mkdir()
            (root / "src" / "acme.cpp").write_text("int acme() { return 1; }\n")
            (root / "CMakeLists.txt").write_text(_PROJECT + _LIB)
            (root / "setup.py").write_text("cmd = ['cmake', '--build', '.', '--target', 'acme']\n")
            (root / "CMakePresets.json").write_text('{"version": 3, "buildPresets": []}')
            (root / "pyproject.toml").write_text('[tool.scikit-build]\nbuild.targets = ["acme"]\n')
            (root / "shiplint.yaml").write_text(
                (ACME / "shiplint.yaml").read_text().split("sources:")[0] + _DECLARATIONS
            )
            for rel, content in kind(ws, rng).items():
                path = root / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                if path.is_symlink() or path.is_file():
                    path.unlink()
                if callable(content):
                    content(path)
                elif isinstance(content, bytes):
                    path.write_bytes(content)
                else:
                    path.write_text(content, encoding="utf-8", errors="surrogateescape")
            return [
                "check",
                "--root",
                str(root),
                "--select",
                "SL2",
                "--format",
                rng.choice(("text", "json", "sarif", "github", "markdown")),
            ]

        yield Case(
            "sources",
            f"{kind.__name__.strip('_')}-{i}",
            case_seed,
            build,
            env={"SHIPLINT_SECRET": SECRET},
            forbidden=(SECRET, "root:x:0:0", "\x1b"),
        )
