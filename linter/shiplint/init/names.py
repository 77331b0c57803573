"""How init names what it finds: a library from its file, its file pattern, the config's package.

Pure functions over member paths, so the same file gets the same name on every run
and every platform.
"""

from __future__ import annotations

import posixpath
import re

from shiplint.artifacts.configs import config_file_names
from shiplint.manifest.model import default_file_name
from shiplint.platforms import Platform

# `_C.cpython-311-x86_64-linux-gnu.so`, `_ext.abi3.so`, `_C.cp311-win_amd64.pyd`: a module
# the interpreter loads; its tag changes with every Python, so the pattern globs it.
_EXTENSION = re.compile(
    r"^(?P<stem>[^.]+)\.(?P<tag>cpython-[^.]+|abi3|cp\d+[^.]*|pypy[^.]*)\.(?P<ext>so|pyd)$"
)
_PYD = re.compile(r"^(?P<stem>[^.]+)\.pyd$", re.IGNORECASE)
# `libx.so`, `libx.so.12`, `libx.so.12.13`
_ELF = re.compile(r"^(?P<stem>.+?)\.so(?P<version>(\.\d+)*)$")
# `libx.dylib`, `libx.1.dylib`, `libx.1.2.dylib`
_MACHO = re.compile(r"^(?P<stem>.+?)(?P<version>(\.\d+)*)\.dylib$")
_DLL = re.compile(r"^(?P<stem>.+)\.dll$", re.IGNORECASE)
# A config file: `<Pkg>Config.cmake` or `<pkg>-config.cmake`.
_CONFIG = re.compile(r"^(?P<package>.+?)(Config|-config)\.cmake$")
# What the manifest's `name` may hold.
_NAME_CHARACTERS = re.compile(r"[^A-Za-z0-9_.+-]")


def is_extension_module(file_name: str) -> bool:
    return _EXTENSION.match(file_name) is not None or _PYD.match(file_name) is not None


def library_name(file_name: str) -> str:
    """The manifest name of a shared object: its file name without the `lib` prefix, the
    extension, version suffixes and a Python module's interpreter tag."""
    for pattern in (_EXTENSION, _PYD, _ELF, _MACHO, _DLL):
        match = pattern.match(file_name)
        if match is not None:
            stem = match["stem"]
            break
    else:
        stem = file_name
    if pattern in (_ELF, _MACHO) and stem.startswith("lib") and len(stem) > 3:
        stem = stem[3:]
    name = _NAME_CHARACTERS.sub("_", stem)
    return name if re.match(r"[A-Za-z_]", name) else f"_{name}"


def file_pattern(name: str, file_name: str, platform: Platform) -> str | None:
    """The `file:` a placement needs for `file_name`, None when the default name fits.

    The pattern survives a version bump: an extension's interpreter tag and a versioned
    SONAME's digits are globbed (`_C.*.so`, `libopenvino.so.*`), and placement prefers the
    shortest match, the SONAME over its longer byte-identical copies.
    """
    if file_name == default_file_name(name, platform):
        return None
    extension = _EXTENSION.match(file_name)
    if extension is not None:
        return f"{extension['stem']}.*.{extension['ext']}"
    elf = _ELF.match(file_name)
    if elf is not None and elf["version"]:
        return f"{elf['stem']}.so.*"
    macho = _MACHO.match(file_name)
    if macho is not None and macho["version"]:
        return f"{macho['stem']}.*.dylib"
    return file_name


def config_package(member: str) -> str | None:
    """The find_package name a config file answers to, or None when it is not one."""
    file_name = posixpath.basename(member)
    if file_name.endswith(("ConfigVersion.cmake", "-config-version.cmake", "Config-version.cmake")):
        return None
    match = _CONFIG.match(file_name)
    if match is None:
        return None
    package = match["package"]
    return package if file_name in config_file_names(package) else None


_PREFIX_TAILS = (
    re.compile(r"^(?P<root>.*?)/?(lib(32|64)?|share)/cmake(/[^/]+)?$"),
    re.compile(r"^(?P<root>.*?)/?(lib(32|64)?|share)/[^/]+/cmake$"),
    re.compile(r"^(?P<root>.*?)/?[Cc][Mm]ake$"),
)


def install_prefix(config_dir: str) -> str:
    """The install prefix a config directory sits in (`x/share/cmake/Pkg` -> `x`)."""
    for pattern in _PREFIX_TAILS:
        match = pattern.match(config_dir)
        if match is not None:
            return match["root"] or "."
    return config_dir or "."
