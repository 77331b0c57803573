"""System-library policies: which libraries a platform's users are guaranteed to have.

`externals.system` may name a policy instead of listing file names: `platform-tag`
(the policy the wheel's own platform tag claims), or one by name (`manylinux_2_28`,
`musllinux_1_2`, `macos`, `windows`). The manylinux and musllinux lists are
auditwheel's policy data, shipped verbatim under `schemas/system-policies/` (with
its MIT licence) so a run gives the same answer whether or not auditwheel is
installed; a test keeps the copy equal to the installed auditwheel's. The Windows
list (API sets and OS DLLs) is shiplint's own. macOS needs no list: install names
under /usr/lib and /System/Library are the OS's own whatever the manifest says
(`linkage`), so the `macos` policy adds nothing to that.
"""

from __future__ import annotations

import json
import re
from functools import cache

from shiplint.resources import data_dir

PLATFORM_TAG = "platform-tag"
# auditwheel's policy files, both about Linux: a policy never allows anything on another OS.
_POLICY_FILES = ("manylinux", "musllinux")
# A tag's architecture suffix (`manylinux_2_28_x86_64` -> `manylinux_2_28`).
_ARCH_SUFFIX = re.compile(
    r"_(x86_64|i686|aarch64|armv7l|ppc64le|ppc64|s390x|riscv64|loongarch64|amd64|arm64|"
    r"universal2|intel|x86)$"
)


@cache
def _policies() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every named policy: (its OS, its allowed library globs), aliases included."""
    folder = data_dir("schemas") / "system-policies"
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    for stem in _POLICY_FILES:
        for entry in json.loads((folder / f"{stem}-policy.json").read_text("utf-8")):
            if entry["name"] == "linux":
                continue
            allowed = ("linux", tuple(entry["lib_whitelist"]))
            for name in (entry["name"], *entry["aliases"]):
                out[name] = allowed
    windows = json.loads((folder / "windows-policy.json").read_text("utf-8"))
    out["windows"] = ("windows", tuple(windows["libraries"]))
    out["macos"] = ("macos", ())
    return out


def policy_names() -> tuple[str, ...]:
    """The names `externals.system` accepts as a policy."""
    return (PLATFORM_TAG, *sorted(_policies()))


def tag_policy(tag: str) -> str | None:
    """The policy one platform tag claims (`manylinux2014_x86_64` -> `manylinux2014`)."""
    lowered = tag.lower()
    if lowered.startswith("macosx_"):
        return "macos"
    if lowered.startswith("win"):
        return "windows"
    name = _ARCH_SUFFIX.sub("", lowered)
    return name if name in _policies() else None


@cache
def allowed_by(
    policies: tuple[str, ...], platform_tag: str | None, os_name: str | None
) -> tuple[str, ...]:
    """The library globs `policies` allow for an artifact of `os_name` tagged `platform_tag`.

    A compressed tag set (`manylinux_2_17_x86_64.manylinux_2_28_x86_64`) claims every
    one of its tags, so `platform-tag` allows only what all of them allow. An
    artifact without a tag (an install tree) gets nothing from `platform-tag`.
    """
    table = _policies()
    out: list[str] = []
    for policy in policies:
        if policy == PLATFORM_TAG:
            out.extend(_tag_set_allows(platform_tag))
            continue
        entry = table.get(policy)
        if entry is not None and entry[0] == os_name:
            out.extend(entry[1])
    return tuple(dict.fromkeys(out))


def _tag_set_allows(platform_tag: str | None) -> tuple[str, ...]:
    if not platform_tag:
        return ()
    sets: list[tuple[str, ...]] = []
    for tag in platform_tag.split("."):
        policy = tag_policy(tag)
        if policy is None:
            return ()
        sets.append(_policies()[policy][1])
    common = set(sets[0]).intersection(*sets[1:])
    return tuple(p for p in sets[0] if p in common)
