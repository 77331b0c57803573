"""Which binaries of an artifact the Python interpreter loads, and so get its names.

An extension module's `Py*` / `_Py*` references bind to the interpreter (the python
executable or the libpython it loaded globally), which no NEEDED entry names. The same
holds for every library the module loads: the interpreter is in the global scope of
the whole process. A binary is an extension module when the manifest declares it
`kind: python-extension`, or when its file name is one the import system loads
(`.cpython-311-x86_64-linux-gnu.so`, `.abi3.so`, `.cp311-win_amd64.pyd`).
"""

from __future__ import annotations

import re

from shiplint.artifacts.model import Inventory
from shiplint.manifest.model import LibraryKind, Manifest

_EXTENSION_MODULE = re.compile(r"\.(cpython-[^.]+|abi3|cp\d+-[^.]+)\.(so|pyd)$|\.pyd$")
INTERPRETER_NAME = re.compile(r"_?Py")


def python_loaded(manifest: Manifest, model: Inventory) -> frozenset[str]:
    """The members loaded into a Python process: the extension modules and their closures."""
    kinds = {library.name: library.kind for library in manifest.libraries}
    modules = [
        binary.name
        for binary in model.binaries
        if _EXTENSION_MODULE.search(binary.file_name)
        or kinds.get(model.library_of(binary.name) or "") is LibraryKind.PYTHON_EXTENSION
    ]
    return frozenset(member for module in modules for member in model.links.closure(module))
