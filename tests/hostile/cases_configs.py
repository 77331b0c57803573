"""Package configs that misbehave when CMake evaluates them: control characters in values,
endless loops, sleepers (also ones that leave the session), huge output, writes outside,
reading the caller's environment through /proc."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from tests.hostile.material import ACME
from tests.hostile.runner import Case, Workspace

SECRET = "s3cr3t-config"
_GOOD = """add_library(acme::runtime SHARED IMPORTED)
set_target_properties(acme::runtime PROPERTIES IMPORTED_LOCATION "${CMAKE_CURRENT_LIST_DIR}/../../lib/libacme.so")
set(acme_FOUND TRUE)
"""


def _bodies(ws: Workspace) -> list[str]:
    canary = ws.canary
    return [
        'set(ACME_LIBRARIES "a\fb")\n' + _GOOD,
        'set(ACME_LIBRARIES "a\u2028b\u2029c\x85d\x0be\x1cf")\n' + _GOOD,
        'set(ACME_LIBRARIES "a\rb\r\nc")\n' + _GOOD,
        'add_library("acme::run\ftime" SHARED IMPORTED)\n' + _GOOD,
        "while(TRUE)\nendwhile()\n",
        "execute_process(COMMAND sleep 1000)\n" + _GOOD,
        'execute_process(COMMAND sh -c "setsid sleep 300 >/dev/null 2>&1 < /dev/null &")\n'
        + "execute_process(COMMAND sleep 1000)\n",
        'execute_process(COMMAND sh -c "setsid sleep 300 >/dev/null 2>&1 < /dev/null &")\n' + _GOOD,
        'execute_process(COMMAND sh -c "nohup sleep 300 >/dev/null 2>&1 &")\n' + _GOOD,
        'string(REPEAT "x" 1000000 s)\nforeach(i RANGE 400)\nmessage(STATUS "${s}")\nendforeach()\n'
        + _GOOD,
        'string(REPEAT "x" 1000000 s)\nforeach(i RANGE 400)\nmessage(WARNING "${s}")\nendforeach()\n'
        + 'message(FATAL_ERROR "${s}")\n',
        'execute_process(COMMAND sh -c "yes | head -c 400000000")\n' + _GOOD,
        f'file(WRITE "{canary}/written" "x")\n' + _GOOD,
        f'file(MAKE_DIRECTORY "{canary}/made")\n' + _GOOD,
        f'execute_process(COMMAND touch "{canary}/touched")\n' + _GOOD,
        f'file(APPEND "{canary}/keep.txt" "x")\n' + _GOOD,
        f'file(TOUCH "{canary}/touched")\n' + _GOOD,
        f'file(REMOVE_RECURSE "{canary}")\n' + _GOOD,
        f'file(RENAME "{canary}/keep.txt" "{canary}/renamed")\n' + _GOOD,
        f'file(CREATE_LINK /etc/passwd "{canary}/link" SYMBOLIC)\n' + _GOOD,
        f'file(COPY "${{CMAKE_CURRENT_LIST_DIR}}" DESTINATION "{canary}")\n' + _GOOD,
        f'configure_file("${{CMAKE_CURRENT_LIST_FILE}}" "{canary}/copy" COPYONLY)\n' + _GOOD,
        f'file(DOWNLOAD "file:///etc/hostname" "{canary}/downloaded")\n' + _GOOD,
        f'execute_process(COMMAND sh -c "rm -rf {canary}; mkdir -p {canary}/x; '
        f'ln -s / {canary}/root; mkfifo {canary}/fifo; echo x > $HOME/../../../written")\n' + _GOOD,
        "execute_process(COMMAND python3 -c \"import os; os.makedirs('"
        + str(canary)
        + "/py', exist_ok=True)\")\n"
        + _GOOD,
        'file(READ /proc/self/environ e)\nmessage(FATAL_ERROR "${e}")\n',
        'execute_process(COMMAND sh -c "cat /proc/$PPID/environ; for p in /proc/[0-9]*; do '
        'cat $p/environ; done 2>/dev/null | tr \\"\\\\\\\\0\\" \\"\\\\\\\\n\\"" OUTPUT_VARIABLE e)\n'
        'message(FATAL_ERROR "${e}")\n',
        'execute_process(COMMAND sh -c "env; cat /proc/1/environ" OUTPUT_VARIABLE e)\n'
        'message(FATAL_ERROR "${e}")\n',
        'message(FATAL_ERROR "\x1b]0;pwned\x07\x1b[2J\x1b[31mred")\n',
        'set(ACME_LIBRARIES "\x1b[2J")\n' + _GOOD,
        "cmake_policy(VERSION 99.0)\n",
        'message(FATAL_ERROR "' + "é" * 100_000 + '")\n',
        "include(/proc/self/environ)\n",
        "\xff\xfe garbage\n",
        "return()\n",
        'set(acme_FOUND FALSE)\nset(acme_NOT_FOUND_MESSAGE "\x1b[31m")\n',
        "function(f)\nf()\nendfunction()\nf()\n",
        'execute_process(COMMAND sh -c "kill -STOP $PPID")\n' + _GOOD,
        'execute_process(COMMAND sh -c "kill -9 $PPID")\n' + _GOOD,
    ]


def cases(count: int, seed: int) -> Iterator[Case]:
    for i in range(count):
        case_seed = seed * 100_000 + i

        def build(ws: Workspace, i: int = i, s: int = case_seed) -> list[str]:
            rng = random.Random(s)
            bodies = _bodies(ws)
            body = bodies[i % len(bodies)]
            tree = ws.inputs / "tree"
            (tree / "acme" / "share" / "cmake").mkdir(parents=True)
            (tree / "acme" / "lib").mkdir(parents=True)
            (tree / "acme" / "lib" / "libacme.so").write_bytes(b"\x7fELF")
            (tree / "acme" / "share" / "cmake" / "acme-config.cmake").write_text(
                body, encoding="utf-8", errors="surrogateescape"
            )
            manifest = ws.inputs / "shiplint.yaml"
            # The aggregate makes the probe read a value the config may have poisoned.
            manifest.write_text(
                (ACME / "shiplint.yaml").read_text()
                + "aggregates:\n  - variable: ACME_LIBRARIES\n    carries: {only: [runtime]}\n"
            )
            return [
                "check",
                "--no-sources",
                "--manifest",
                str(manifest),
                "--select",
                "SL1",
                "--format",
                rng.choice(("text", "json", "sarif")),
                str(tree),
            ]

        yield Case(
            "configs",
            f"config-{i}",
            case_seed,
            build,
            env={"SHIPLINT_SECRET": SECRET},
            forbidden=(SECRET, "\x1b"),
        )


Builder = Callable[[Workspace], list[str]]
