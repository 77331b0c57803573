"""Group the NEEDED entries no shipped library resolves, for `externals.system`.

What the wheel's platform tag already allows is one `policy: platform-tag` entry;
the rest are grouped by what init knows them to be, and what it does not know is
listed under a comment asking the human to decide (a system library, or one another
distribution provides, which belongs in `externals.provided`).
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from shiplint.init.draft import ExternalGroup

_KNOWN = (
    (
        "linux",
        "glibc, the GCC runtime and the dynamic loader.",
        (
            "libc.so.6",
            "libm.so.6",
            "libdl.so.2",
            "libpthread.so.0",
            "librt.so.1",
            "libstdc++.so.6",
            "libgcc_s.so.1",
            "ld-linux*.so.*",
            "libatomic.so.1",
            "libutil.so.1",
            "libgomp.so.1",
        ),
    ),
    (
        "macos",
        "macOS system libraries and frameworks.",
        (
            "libSystem.B.dylib",
            "libc++.1.dylib",
            "libc++abi.dylib",
            "libobjc.A.dylib",
            "libz.1.dylib",
            "libsqlite3.dylib",
            "/System/*",
            "/usr/lib/*",
            "[A-Z]*",
        ),
    ),
    (
        "windows",
        "Windows system DLLs and the MSVC runtime (a redistributable, allowed by choice).",
        (
            "KERNEL32.dll",
            "USER32.dll",
            "ADVAPI32.dll",
            "SHELL32.dll",
            "ole32.dll",
            "WS2_32.dll",
            "api-ms-win-*",
            "ucrtbase.dll",
            "VCRUNTIME140*.dll",
            "MSVCP140*.dll",
            "VCOMP140.DLL",
            "dbghelp.dll",
            "bcrypt.dll",
        ),
    ),
)


def _known(os_name: str, name: str) -> str | None:
    for os_of, comment, patterns in _KNOWN:
        if os_of == os_name and any(fnmatchcase(name.lower(), p.lower()) for p in patterns):
            return comment
    return None


def group_externals(uses_tag: bool, rest: Iterable[tuple[str, str]]) -> tuple[ExternalGroup, ...]:
    groups: list[ExternalGroup] = []
    if uses_tag:
        groups.append(
            ExternalGroup(
                "What the wheel's platform tag promises every user has (the manylinux or "
                "musllinux policy's libraries, the OS's own DLLs).",
                (),
                ("platform-tag",),
            )
        )
    by_comment: dict[str, set[str]] = {}
    unknown: set[str] = set()
    for os_name, name in rest:
        comment = _known(os_name, name)
        if comment is None:
            unknown.add(name)
        else:
            by_comment.setdefault(comment, set()).add(name)
    for _, comment, _ in _KNOWN:
        if comment in by_comment:
            groups.append(ExternalGroup(comment, tuple(sorted(by_comment[comment]))))
    if unknown:
        groups.append(
            ExternalGroup(
                "Needed, shipped by nothing here, and not a library init knows. Decide: a "
                "system library (keep it here, say why), or one another distribution provides "
                "(move it to externals.provided, with the distribution).",
                tuple(sorted(unknown)),
            )
        )
    return tuple(groups)
