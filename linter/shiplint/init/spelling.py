"""Which names a consumer could request a component by: the candidates init tries.

A config answers `find_package(<pkg> COMPONENTS <name>)` for the names it knows,
which need not be the target's (OpenVINO: `ONNX` for `openvino::frontend::onnx`).
The candidates are the component's own name and every `<Pkg>_<name>_FOUND` the
config's text tests that reads the same up to case and underscores; a library no
plain find_package imports is tried under its own name and that name without the
package prefix and a `_debug` suffix (TBB's `tbbbind` for `libtbbbind_debug.so.3`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shiplint.init.model import ArtifactFacts, ConfigFacts, Trial
from shiplint.init.names import is_extension_module
from shiplint.init.targets import (
    accepts_anything,
    component_name,
    imported,
    in_namespace,
    namespace,
    newest,
)


def _plain(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def target_spellings(target: str, prefix: str, known: Sequence[str]) -> tuple[str, ...]:
    """The component's name first, then the config's spellings that read like its
    whole name, its last part or its first part."""
    name = component_name(target, prefix)
    parts = name.split("_")
    forms = [_plain(name), _plain(parts[-1]), _plain(parts[0])]
    out = [name]
    for form in forms:
        out.extend(s for s in known if _plain(s) == form)
    return tuple(dict.fromkeys(out))


def library_spellings(library: str, package: str) -> tuple[str, ...]:
    names = [library]
    for prefix in (f"{package.lower()}_", "lib"):
        if library.lower().startswith(prefix):
            names.append(library[len(prefix) :])
    names += [n[: -len("_debug")] for n in names if n.endswith("_debug")]
    return tuple(dict.fromkeys(n for n in names if n))


def candidate_requests(read: Sequence[ArtifactFacts], config: ConfigFacts) -> tuple[Trial, ...]:
    pairs: dict[tuple[str, str | None], None] = {}
    for facts in read:
        evaluation = newest(facts.evaluations)
        if evaluation is None or accepts_anything(evaluation):
            continue
        targets = imported(facts, evaluation)
        prefix = namespace(targets)
        for target in targets:
            if in_namespace(target.name, prefix):
                for spelling in target_spellings(target.name, prefix, config.spellings):
                    pairs.setdefault((spelling, target.library), None)
        reached = {t.library for t in targets}
        for shipped in facts.shipped.values():
            if shipped.name in reached or is_extension_module(shipped.file_name):
                continue
            for spelling in library_spellings(shipped.name, config.package):
                pairs.setdefault((spelling, shipped.name), None)
    return tuple(
        Trial(f"shiplint_try_{index}", spelling, library)
        for index, (spelling, library) in enumerate(sorted(pairs, key=lambda p: (p[0], p[1] or "")))
    )
