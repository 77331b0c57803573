"""Write shiplint's table of what the well-known Linux system libraries define and NEED.

Read from real libraries (the files of distribution packages, unpacked by
`.ci/system-libraries`), never typed by hand. For each library: its DT_NEEDED entries
and every dynamic symbol an *unversioned* reference can bind to, grouped by the
version it is defined under. glibc's loader (`check_match` in elf/dl-lookup.c) binds
an unversioned reference to a definition that is unversioned, or under the library's
base or first version (version index 1 or 2, hidden or not), or else to the one
non-hidden (default, `@@`) version; a name defined only as hidden compatibility
versions past the first binds nothing, so it is left out.

Usage: python .ci/system_libraries.py OUT-STEM SOURCE-LABEL ARCH=DIR [ARCH=DIR ...]
  each DIR holds the unpacked package files of one architecture (x86_64, aarch64);
  each is written to OUT-STEM-ARCH.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import lief

# The sonames auditwheel's manylinux policies allow that are glibc's, GCC's runtime's or
# zlib's: the libraries every Linux machine has and whose exports the table records.
SONAMES = (
    "libc.so.6",
    "libm.so.6",
    "libdl.so.2",
    "libpthread.so.0",
    "librt.so.1",
    "libutil.so.1",
    "libresolv.so.2",
    "libanl.so.1",
    "libnsl.so.1",
    "libmvec.so.1",
    "ld-linux-x86-64.so.2",
    "ld-linux-aarch64.so.1",
    "libstdc++.so.6",
    "libgcc_s.so.1",
    "libatomic.so.1",
    "libz.so.1",
)
_HIDDEN = 0x8000


def _find(root: Path, soname: str) -> Path | None:
    """The file named `soname` under `root` (a symlink followed to its target)."""
    for path in sorted(root.rglob(soname)):
        if path.is_file():
            return path.resolve()
    return None


def _library(path: Path) -> dict[str, Any]:
    binary = lief.ELF.parse(str(path))
    if binary is None:
        raise SystemExit(f"{path}: not an ELF file lief can read")
    binds: dict[str, set[str]] = {}
    for symbol in binary.dynamic_symbols:
        if symbol.shndx == 0 or symbol.binding.name not in ("GLOBAL", "WEAK", "GNU_UNIQUE"):
            continue
        name = str(symbol.name)
        version = ""
        tag = symbol.symbol_version
        if symbol.has_version and tag is not None:
            raw = tag.value
            index = raw & ~_HIDDEN
            if index > 1:
                aux = tag.symbol_version_auxiliary if tag.has_auxiliary_version else None
                if aux is None:
                    continue
                version = str(aux.name)
                if name == version:
                    # The version's own marker symbol (an ABS entry named after it).
                    continue
                if raw & _HIDDEN and index > 2:
                    continue
        binds.setdefault(version, set()).add(name)
    return {
        "needed": list(binary.libraries),
        "binds": {version: sorted(names) for version, names in sorted(binds.items())},
    }


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, label, *pairs = argv
    for pair in pairs:
        arch, _, directory = pair.partition("=")
        libraries: dict[str, Any] = {}
        for soname in SONAMES:
            path = _find(Path(directory), soname)
            if path is not None:
                libraries[soname] = _library(path)
        if not libraries:
            raise SystemExit(f"{directory}: none of the system libraries is there")
        document = {
            "source": label,
            "arch": arch,
            "generated_by": ".ci/system-libraries",
            "libraries": libraries,
        }
        text = json.dumps(document, indent=1, sort_keys=True) + "\n"
        Path(f"{out}-{arch}.json").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
