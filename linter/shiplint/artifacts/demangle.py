"""Itanium C++ demangling through the C++ runtime's own `__cxa_demangle`, and base names.

The binary parser's own demangler needs its "extended" build and its Mach-O symbols do
not demangle (their names carry the extra leading underscore), so one demangler
serves every format: the one in the C++ runtime library the host already has
(libstdc++ on Linux, libc++abi on macOS). Without one, names stay mangled and
`demangle` returns None; matching by mangled name still works.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

_Demangler = Callable[[bytes], "str | None"]

# Qualifiers a demangled member function carries after its argument list.
_TRAILING = (" const", " volatile", " &&", " &", " noexcept")
# Special names the demangler spells as `<what> for|to <entity>`.
_SPECIAL = tuple(
    f"{what} "
    for what in (
        "vtable for",
        "VTT for",
        "construction vtable for",
        "typeinfo for",
        "typeinfo name for",
        "typeinfo fn for",
        "guard variable for",
        "reference temporary #0 for",
        "TLS init function for",
        "TLS wrapper function for",
        "non-virtual thunk to",
        "virtual thunk to",
        "covariant return thunk to",
    )
)


@functools.cache
def _demangler() -> _Demangler | None:
    # ctypes is imported on the first demangled name: the records and rules that hold
    # this module are imported by runs that never demangle (a sources-only hook).
    import ctypes
    import ctypes.util

    # find_library runs ldconfig or the compiler: only ask when the usual soname fails.
    candidates: tuple[Callable[[], str | None], ...] = (
        lambda: "libstdc++.so.6",
        lambda: ctypes.util.find_library("stdc++"),
        lambda: ctypes.util.find_library("c++abi"),
    )
    for candidate in candidates:
        name = candidate()
        if not name:
            continue
        try:
            runtime = ctypes.CDLL(name)
            function = runtime.__cxa_demangle
            free = ctypes.CDLL(None).free
        except (OSError, AttributeError):
            continue
        function.restype = ctypes.c_void_p
        function.argtypes = [
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.POINTER(ctypes.c_size_t),
            ctypes.POINTER(ctypes.c_int),
        ]
        free.argtypes = [ctypes.c_void_p]
        free.restype = None
        return _bind(function, free)
    return None


def _bind(function: Any, free: Any) -> _Demangler:
    import ctypes

    # ctypes function pointers have no public static type.
    def demangle(mangled: bytes) -> str | None:
        status = ctypes.c_int()
        pointer = function(mangled, None, None, ctypes.byref(status))
        if not pointer:
            return None
        try:
            return ctypes.string_at(pointer).decode("utf-8", "replace")
        finally:
            free(pointer)

    return demangle


def demangle(name: str) -> str | None:
    """The demangled form of an Itanium-mangled name, or None (not mangled, or no demangler)."""
    if not name.startswith("_Z"):
        return None
    demangler = _demangler()
    if demangler is None:
        return None
    return demangler(name.encode("utf-8", "surrogateescape"))


def base_name(demangled: str) -> str:
    """The demangled name without its argument list, qualifiers or template return type.

    `void ns::f<int>(int) const` -> `ns::f<int>`. Two symbols with the same base
    name are NOT the same symbol (overloads); this is only for matching the
    manifest's sentinel names, which are written without arguments.
    """
    text = demangled.strip()
    # `vtable for X`, `non-virtual thunk to X(...)`: keep the prefix, reduce X.
    for prefix in _SPECIAL:
        if text.startswith(prefix):
            return prefix + base_name(text[len(prefix) :])
    stripped = True
    while stripped:
        stripped = False
        for suffix in _TRAILING:
            if text.endswith(suffix):
                text = text[: -len(suffix)].rstrip()
                stripped = True
    if text.endswith(")") and not text.endswith("operator()"):
        opening = _matching_open(text, len(text) - 1, "(", ")")
        if opening > 0:
            text = text[:opening].rstrip()
    return _drop_return_type(text)


def _matching_open(text: str, close: int, left: str, right: str) -> int:
    depth = 0
    for index in range(close, -1, -1):
        if text[index] == right:
            depth += 1
        elif text[index] == left:
            depth -= 1
            if depth == 0:
                return index
    return -1


def _drop_return_type(text: str) -> str:
    # A function template's demangled name starts with its return type: cut at
    # the last space outside <> and () that is not part of `operator new` etc.
    depth = 0
    cut = -1
    for index, char in enumerate(text):
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
        elif char == " " and depth == 0 and not text[:index].endswith("operator"):
            cut = index
    return text[cut + 1 :] if cut >= 0 else text
