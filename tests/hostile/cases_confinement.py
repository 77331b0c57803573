"""Package configs that try to undo the evaluation's confinement: remount every mount
read-write and write outside, unmount /proc (or mount another) to read the caller's
processes, reach a listener on the loopback, gain every capability in a nested user
namespace, connect to a Unix socket outside, write outside through a hard or symbolic
link, change a file's times."""

from __future__ import annotations

import random
import subprocess
from collections.abc import Iterator

from tests.hostile.cases_configs import SECRET
from tests.hostile.material import ACME
from tests.hostile.runner import Case, Workspace

_GOOD = """add_library(acme::runtime SHARED IMPORTED)
set_target_properties(acme::runtime PROPERTIES IMPORTED_LOCATION "${CMAKE_CURRENT_LIST_DIR}/../../lib/libacme.so")
set(acme_FOUND TRUE)
"""
# In the command line of the campaign's launcher, which runs outside the evaluation.
CALLER = "tests/hostile/launcher.py"
# What the config greps for: it matches CALLER, and is not CALLER, so the config's own
# command line (which /proc shows too) never holds the forbidden text.
_CALLER_PATTERN = "hostile/launche[r]"
# A program of the config's that makes a user and mount namespace of its own (where it
# holds every capability), tries to undo the mounts from there and to write outside.
_NESTED = (
    "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
    "libc.unshare(0x10000000 | 0x00020000); "
    "[libc.mount(None, p, None, 4096 | 32, None) for p in (b'/', b'/proc', b'/tmp')]; "
    "libc.umount2(b'/proc', 2); "
    "open('{target}', 'w').write('x')"
)


def _bodies(ws: Workspace) -> list[str]:
    canary, port = ws.canary, ws.port
    nested = _NESTED.format(target=canary / "nested")
    return [
        # The review's reproduction, aimed at the canary.
        "execute_process(COMMAND sh -c \"for m in $(awk '{print $5}' /proc/self/mountinfo); "
        f'do mount -o remount,bind,rw $m; done; echo x > {canary}/outside")\n' + _GOOD,
        # The caller's processes: their environment (the secret) and command lines.
        'execute_process(COMMAND sh -c "umount -l /proc; grep -a SHIPLINT_SECRET '
        f"/proc/[0-9]*/environ; grep -ah '{_CALLER_PATTERN}' /proc/[0-9]*/cmdline\""
        ' OUTPUT_VARIABLE e ERROR_VARIABLE e)\nmessage(FATAL_ERROR "${e}")\n',
        'execute_process(COMMAND sh -c "p=${CMAKE_BINARY_DIR}/p; mkdir -p $p; '
        "mount -t proc proc $p; grep -a SHIPLINT_SECRET $p/[0-9]*/environ; "
        f"grep -ah '{_CALLER_PATTERN}' $p/[0-9]*/cmdline\""
        ' OUTPUT_VARIABLE e ERROR_VARIABLE e)\nmessage(FATAL_ERROR "${e}")\n',
        # The network: CMake's own download, and a program the config runs.
        f'file(DOWNLOAD "http://127.0.0.1:{port}/" "${{CMAKE_BINARY_DIR}}/d" TIMEOUT 5 '
        "INACTIVITY_TIMEOUT 2)\n" + _GOOD,
        'execute_process(COMMAND python3 -c "import socket; '
        f"socket.create_connection(('127.0.0.1', {port}), 3)\")\n" + _GOOD,
        # A socket file outside: a read-only mount does not stop a connect to it.
        'execute_process(COMMAND python3 -c "import socket; '
        f"socket.socket(socket.AF_UNIX).connect('{ws.unix_socket}')\")\n" + _GOOD,
        f'execute_process(COMMAND python3 -c "{nested}")\n' + _GOOD,
        # Through links made inside the writable directory.
        f'execute_process(COMMAND sh -c "ln {canary}/keep.txt ${{CMAKE_BINARY_DIR}}/hard; '
        "echo x >> ${CMAKE_BINARY_DIR}/hard; "
        f'ln -s {canary}/keep.txt ${{CMAKE_BINARY_DIR}}/soft; echo x >> ${{CMAKE_BINARY_DIR}}/soft")\n'
        + _GOOD,
        # Metadata: times (the campaign sees them) and mode.
        f'execute_process(COMMAND sh -c "touch -d 2001-01-01 {canary}/keep.txt; '
        f'chmod 777 {canary}/keep.txt")\n' + _GOOD,
    ]


def _own_proc() -> bool:
    """Whether evaluations here get a /proc of their own (a PID namespace): without one
    (Landlock alone) other processes' command lines are readable, as the threat model
    in docs/cmake-evaluation.md says, and the launcher's is no leak to count."""
    # run.py's trial of the same options, without importing shiplint into the runner.
    options = ["--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--mount-proc"]
    try:
        ran = subprocess.run(
            ["unshare", *options, "--", "true"], capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return ran.returncode == 0


def cases(count: int, seed: int) -> Iterator[Case]:
    forbidden = (SECRET, CALLER, "\x1b") if _own_proc() else (SECRET, "\x1b")
    for i in range(count):
        case_seed = seed * 100_000 + i

        def build(ws: Workspace, i: int = i, s: int = case_seed) -> list[str]:
            rng = random.Random(s)
            bodies = _bodies(ws)
            tree = ws.inputs / "tree"
            (tree / "acme" / "share" / "cmake").mkdir(parents=True)
            (tree / "acme" / "lib").mkdir(parents=True)
            (tree / "acme" / "lib" / "libacme.so").write_bytes(b"\x7fELF")
            (tree / "acme" / "share" / "cmake" / "acme-config.cmake").write_text(
                bodies[i % len(bodies)], encoding="utf-8"
            )
            return [
                "check",
                "--no-sources",
                "--manifest",
                str(ACME / "shiplint.yaml"),
                "--select",
                "SL1",
                "--format",
                rng.choice(("text", "json", "sarif")),
                str(tree),
            ]

        yield Case(
            "confinement",
            f"confinement-{i}",
            case_seed,
            build,
            env={"SHIPLINT_SECRET": SECRET},
            forbidden=forbidden,
        )
