"""Which consumers to build for one CMake, and the tiny CMake projects that are them.

Every consumer's main() references nothing: whatever lands in its NEEDED is
there because the package kept it on the link line, which is exactly what a
registration-only library needs and what `--as-needed` otherwise undoes.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from shiplint.fastclass import dataclass
from shiplint.manifest.model import CMakeRoute, Manifest, RegistryListing
from shiplint.probes.link.model import Consumer, ConsumerKind

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
    # The manifest declares registry listings and these consumers cannot run them.
    unlisted: bool = False


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
    listing = listing_targets(manifest, shipped) if with_targets else ()
    if with_targets:
        for component in shipped:
            target = manifest.target_name(component)
            consumers.append(
                Consumer(ConsumerKind.TARGET, component=component, target=target, listing=listing)
            )
            named.add(component)
    for cv in manifest.component_variables:
        if cv.component in shipped and _applies(cv.routes, name):
            consumers.append(
                Consumer(
                    ConsumerKind.VARIABLE,
                    component=cv.component,
                    variable=cv.variable,
                    listing=listing,
                )
            )
            named.add(cv.component)
    for aggregate in manifest.aggregates:
        if _applies(aggregate.routes, name):
            consumers.append(
                Consumer(ConsumerKind.AGGREGATE, variable=aggregate.variable, listing=listing)
            )
    unnamed = tuple(c for c in shipped if c not in named)
    unlisted = bool(_listings(manifest)) and not listing
    return Plan(tuple(consumers), unnamed, unlisted)


def _listings(manifest: Manifest) -> tuple[RegistryListing, ...]:
    return tuple(r.listing for r in manifest.registries if r.listing is not None)


def listing_targets(manifest: Manifest, shipped: tuple[str, ...]) -> tuple[str, ...]:
    """The imported targets the registry listings need, when the artifact ships every
    component they name; () when it does not (nothing to list with)."""
    components = tuple(dict.fromkeys(listing.component for listing in _listings(manifest)))
    if not components or any(c not in shipped for c in components):
        return ()
    return tuple(manifest.target_name(c) for c in components)


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


def main_source(manifest: Manifest, consumer: Consumer) -> str:
    """`int main` referencing nothing, or, for a consumer that lists registrations, the
    manifest's listings: it then references only the registry's own API."""
    if not consumer.listing:
        return MAIN_CPP
    listings = _listings(manifest)
    headers = dict.fromkeys(h for listing in listings for h in listing.includes)
    includes = "".join(f"#include <{h}>\n" for h in ("cstdio", *headers))
    body = "".join(f"  {{\n{listing.statement}\n  }}\n" for listing in listings)
    return f"{includes}\nint main() {{\n{body}  std::fflush(stdout);\n  return 0;\n}}\n"


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
target_link_libraries(shiplint_consumer PRIVATE {" ".join((link, *consumer.listing))})
"""


def write_project(directory: Path, text: str, main: str = MAIN_CPP) -> None:
    directory.mkdir(parents=True)
    (directory / "CMakeLists.txt").write_text(text, encoding="utf-8")
    (directory / "main.cpp").write_text(main, encoding="utf-8")
