"""What a wheel's platform tag promises the binaries it holds need, and no more.

A manylinux tag promises a glibc and a libstdc++/libgcc no older than its policy's:
the symbol versions each policy admits are auditwheel's data (`symbol_versions` in
`schemas/system-policies/manylinux-policy.json`, the copy a test keeps equal to the
installed auditwheel's), read here as auditwheel reads them: a binary needing a
version of a listed prefix (`GLIBCXX_3.4.32`) that the policy's set does not hold is
beyond the tag. A `macosx_X_Y_arch` tag promises macOS X.Y; `any` promises nothing a
binary could need.
"""

from __future__ import annotations

import json
import re
from functools import cache

from shiplint.fastclass import dataclass
from shiplint.resources import data_dir

# auditwheel's architecture names, as its policy data keys them.
_LINUX_ARCHES = (
    "x86_64",
    "i686",
    "aarch64",
    "armv7l",
    "ppc64le",
    "s390x",
    "riscv64",
    "loongarch64",
)
_MACOS_TAG = re.compile(r"^macosx_(\d+)_(\d+)_([a-z0-9_]+)$")
# Loaders, not libraries a symbol version is asked of (auditwheel passes them over too).
_LOADERS = ("ld-linux", "ld64.so.", "ld-musl")


@dataclass(frozen=True)
class LinuxPromise:
    """One manylinux tag's promise: per versioned prefix, every version it admits."""

    tag: str
    versions: dict[str, frozenset[str]]

    def beyond(self, needed: str) -> bool:
        """Whether a binary needing `needed` (`GLIBCXX_3.4.32`) asks more than this tag
        promises; a prefix the policy does not list (a package's own) is never beyond."""
        prefix, _, version = needed.partition("_")
        admitted = self.versions.get(prefix)
        return admitted is not None and version not in admitted

    def highest(self, prefix: str) -> str | None:
        """The newest version of `prefix` the tag admits (`3.4.24`), for messages."""
        admitted = self.versions.get(prefix)
        return max(admitted, key=version_key) if admitted else None


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Orders `2.3.4` after `2.3` and numbers before words (`TM_1`, `ABI_DT_RELR`)."""
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"[._]", version))


@cache
def _manylinux() -> dict[str, dict[str, dict[str, frozenset[str]]]]:
    """Policy name (and alias) -> architecture -> prefix -> admitted versions."""
    path = data_dir("schemas") / "system-policies" / "manylinux-policy.json"
    out: dict[str, dict[str, dict[str, frozenset[str]]]] = {}
    for entry in json.loads(path.read_text("utf-8")):
        if entry["name"] == "linux":
            continue
        table = {
            arch: {prefix: frozenset(v) for prefix, v in prefixes.items()}
            for arch, prefixes in entry["symbol_versions"].items()
        }
        for name in (entry["name"], *entry["aliases"]):
            out[name] = table
    return out


def linux_promise(tag: str) -> LinuxPromise | None:
    """The promise of one manylinux tag (`manylinux_2_28_x86_64`, `manylinux2014_aarch64`);
    None for a tag auditwheel's data does not know (musllinux policies list no versions)."""
    lowered = tag.lower()
    for arch in _LINUX_ARCHES:
        if lowered.endswith("_" + arch):
            table = _manylinux().get(lowered[: -len(arch) - 1])
            if table is None or arch not in table:
                return None
            return LinuxPromise(tag, table[arch])
    return None


def is_loader(file: str) -> bool:
    return file.startswith(_LOADERS)


def macos_promise(tag: str) -> tuple[int, int] | None:
    """The macOS release a `macosx_X_Y_arch` tag promises, as (X, Y)."""
    found = _MACOS_TAG.match(tag.lower())
    return (int(found.group(1)), int(found.group(2))) if found else None
