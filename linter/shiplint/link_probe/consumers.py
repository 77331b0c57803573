"""Which consumers to build for one CMake, and the tiny CMake projects that are them.

Every consumer's main() references nothing: whatever lands in its NEEDED is
there because the package kept it on the link line, which is exactly what a
registration-only library needs and what `--as-needed` otherwise undoes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from shiplint.link_probe.model import Consumer, ConsumerKind
from shiplint.manifest.model import CMakeRoute, Manifest

MAIN_CPP = "int main() { return 0; }\n"
# Files the discovery project writes into its build directory.
TARGETS_FILE = "shiplint-targets.txt"
VERSION_FILE = "shiplint-cmake-version.txt"
# Old enough for the 3.24 route, new enough that CMake 4 accepts it.
_MINIMUM = "cmake_minimum_required(VERSION 3.19)"


@dataclass(frozen=True)
class Plan:
    consumers: tuple[Consumer, ...]
    # Shipped components this CMake offers no name for (no target, no variable).
    unnamed: tuple[str, ...]


def _applies(routes: tuple[str, ...], route: str | None) -> bool:
    return not routes or route is None or route in routes


def shipped_components(manifest: Manifest, shipped_libraries: Iterable[str]) -> tuple[str, ...]:
    """Components whose owning library the artifact ships, in manifest order."""
    libraries = set(shipped_libraries)
    return tuple(
        c.name
        for c in manifest.components
        if (owner := manifest.owner_of(c.name)) is not None and owner.name in libraries
    )


def plan(
    manifest: Manifest, route: CMakeRoute | None, targets: tuple[str, ...], shipped: tuple[str, ...]
) -> Plan:
    """The consumers for one CMake, given the component targets its discovery run saw.

    On a route the manifest says has imported targets, every shipped component is
    asked for by target, so a missing one fails loudly at configure. On a route
    without them by design (ExecuTorch below 3.28) components are asked for only
    through the component variables the manifest documents for it. A CMake no
    route covers is judged by what its discovery run defined.
    """
    consumers: list[Consumer] = []
    named: set[str] = set()
    with_targets = route.imported_targets if route is not None else bool(targets)
    name = route.name if route is not None else None
    if with_targets:
        for component in shipped:
            target = manifest.target_name(component)
            consumers.append(Consumer(ConsumerKind.TARGET, component=component, target=target))
            named.add(component)
    for cv in manifest.component_variables:
        if cv.component in shipped and _applies(cv.routes, name):
            consumers.append(
                Consumer(ConsumerKind.VARIABLE, component=cv.component, variable=cv.variable)
            )
            named.add(cv.component)
    for aggregate in manifest.aggregates:
        if _applies(aggregate.routes, name):
            consumers.append(Consumer(ConsumerKind.AGGREGATE, variable=aggregate.variable))
    unnamed = tuple(c for c in shipped if c not in named)
    return Plan(tuple(consumers), unnamed)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def discovery_project(manifest: Manifest) -> str:
    """find_package without REQUIRED, then write which component targets exist."""
    package = manifest.cmake.package
    # Each component's own target (any depth, or no namespace), as the manifest names it.
    checks = "".join(
        f"if(TARGET {_quote(manifest.target_name(c.name))})\n"
        f"  list(APPEND _shiplint_found {_quote(c.name)})\nendif()\n"
        for c in manifest.components
    )
    return f"""{_MINIMUM}
project(shiplint_discovery NONE)
file(WRITE "${{CMAKE_BINARY_DIR}}/{VERSION_FILE}" "${{CMAKE_VERSION}}")
find_package({package} CONFIG)
set(_shiplint_found "")
{checks}file(WRITE "${{CMAKE_BINARY_DIR}}/{TARGETS_FILE}" "${{_shiplint_found}}")
"""


def consumer_project(manifest: Manifest, consumer: Consumer) -> str:
    package = manifest.cmake.package
    if consumer.kind is ConsumerKind.TARGET:
        assert consumer.component is not None and consumer.target is not None
        request = manifest.request_name(consumer.component)
        find = f"find_package({package} CONFIG REQUIRED COMPONENTS {_quote(request)})"
        link = consumer.target
    else:
        assert consumer.variable is not None
        find = f"find_package({package} CONFIG REQUIRED)"
        link = f"${{{consumer.variable}}}"
    return f"""{_MINIMUM}
project(shiplint_consumer CXX)
{find}
add_executable(shiplint_consumer main.cpp)
target_link_libraries(shiplint_consumer PRIVATE {link})
"""


def write_project(directory: Path, text: str) -> None:
    directory.mkdir(parents=True)
    (directory / "CMakeLists.txt").write_text(text, encoding="utf-8")
    (directory / "main.cpp").write_text(MAIN_CPP, encoding="utf-8")
