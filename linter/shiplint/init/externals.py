"""Group the NEEDED entries no shipped library resolves, for `externals.system`.

What the wheel's platform tag already allows is one `policy: platform-tag` entry;
the rest are grouped by what init knows them to be, and what it does not know is
listed under a comment asking the human to decide (a system library, or one another
distribution provides, which belongs in `externals.provided`).
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from shiplint.init.draft import ExternalGroup, ProvidedGroup

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


def known_system(os_name: str, name: str) -> str | None:
    # Only Windows matches file names without regard to case: on macOS `[A-Z]*` (a
    # framework's name) must not take `libtorch.dylib`.
    fold = os_name == "windows"
    for os_of, comment, patterns in _KNOWN:
        if os_of != os_name:
            continue
        if any(
            fnmatchcase(name.lower(), p.lower()) if fold else fnmatchcase(name, p) for p in patterns
        ):
            return comment
    return None


def _stem(name: str) -> str:
    """`libc10.so`, `libc10.dylib` and `c10.dll` are one library built for three OSes."""
    base = name.rsplit("/", 1)[-1].lower()
    base = base.split(".", 1)[0]
    return base.removeprefix("lib")


def provided_groups(
    found: Iterable[tuple[str, str]], rest: Iterable[tuple[str, str]]
) -> tuple[tuple[ProvidedGroup, ...], set[tuple[str, str]]]:
    """Group (provider, library) pairs seen through a search path into another
    distribution's package directory; a library of another OS with the same stem (a
    Windows DLL, found by the provider's own DLL directory rather than a search path)
    joins its group. Returns the groups and what of `rest` is left."""
    by_provider: dict[str, set[str]] = {}
    for provider, name in found:
        by_provider.setdefault(provider, set()).add(name)
    stems = {_stem(n): p for p, names in by_provider.items() for n in names}
    left: set[tuple[str, str]] = set()
    for os_name, name in rest:
        owner = stems.get(_stem(name))
        if owner is None:
            left.add((os_name, name))
        else:
            by_provider[owner].add(name)
    groups = tuple(
        ProvidedGroup(
            provider,
            tuple(sorted(names)),
            f"Found through the binaries' search path in {provider}/ beside the package in "
            f"site-packages: the {provider} distribution provides them. Check `distribution` "
            "is its name as Requires-Dist spells it (SL321 asks the wheel to require it).",
        )
        for provider, names in sorted(by_provider.items())
    )
    return groups, left


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
        comment = known_system(os_name, name)
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
