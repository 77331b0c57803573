"""The package's imported targets as the newest CMake route publishes them, and the
component names init gives them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from shiplint.cmake_eval.evaluate import ABSENT_COMPONENT
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.fastclass import dataclass
from shiplint.init.model import ArtifactFacts


@dataclass(frozen=True)
class PackageTarget:
    name: str
    # The library (by init's name) it imports; None for an INTERFACE target.
    library: str | None


def newest(evaluations: Sequence[ConfigEvaluation]) -> ConfigEvaluation | None:
    """The evaluation of the newest CMake that ran to the end and found the package."""
    done = [e for e in evaluations if e.failure is None and e.found]
    return max(done, key=lambda e: _version(e.cmake_version), default=None)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())


def accepts_anything(evaluation: ConfigEvaluation) -> bool:
    """A config that answers a component no package has answers any name: its answers
    cannot tell a real spelling from a wrong one."""
    absent = evaluation.request(ABSENT_COMPONENT)
    return absent is not None and not absent.refused


def library_at(facts: ArtifactFacts, member: str | None) -> str | None:
    """The library shipped as `member` (or as the file it is a byte-identical copy of)."""
    if member is None:
        return None
    member = facts.inventory.copy_of(member) or member
    return next((s.name for s in facts.shipped.values() if s.member == member), None)


def imported(facts: ArtifactFacts, evaluation: ConfigEvaluation) -> list[PackageTarget]:
    """Every imported target the evaluation defined that imports a shipped library or
    imports no file at all (an INTERFACE target)."""
    out = []
    for target in evaluation.targets:
        library = library_at(facts, target.location)
        if library is not None or not target.location:
            out.append(PackageTarget(target.name, library))
    return out


def namespace(targets: Sequence[PackageTarget]) -> str:
    """The `ns::` most of the package's targets that import a library start with (of its
    INTERFACE targets when none imports one); "" when they have none (MLX's `mlx`)."""
    # A header-only package's targets import no library: its INTERFACE targets say it.
    counted = [t for t in targets if t.library] or list(targets)
    firsts = Counter(t.name.split("::", 1)[0] + "::" for t in counted if "::" in t.name)
    if not firsts:
        return ""
    (best, count), *_ = sorted(firsts.items(), key=lambda item: (-item[1], item[0]))
    return best if count * 2 > len(counted) else ""


def in_namespace(target: str, prefix: str) -> bool:
    return target.startswith(prefix) if prefix else "::" not in target


def component_name(target: str, prefix: str) -> str:
    """`executorch::etdump` -> `etdump`, `openvino::frontend::onnx` -> `frontend_onnx`."""
    rest = target[len(prefix) :] if prefix and target.startswith(prefix) else target
    return rest.replace("::", "_")
