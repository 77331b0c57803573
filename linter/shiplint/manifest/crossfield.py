"""The manifest checks the schema cannot express: names that must refer to each other.

One function, reporting like schema errors (file, line, column, path in the document).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from typing import Any

from shiplint.codes import names_a_rule
from shiplint.diagnostics import Location
from shiplint.manifest.errors import Problem, json_path
from shiplint.manifest.yamldoc import Document, PathKey


def cross_field_problems(doc: Document, known_rule_codes: Iterable[str]) -> list[Problem]:
    data: dict[str, Any] = doc.data
    problems: list[Problem] = []

    def report(path: PathKey, message: str) -> None:
        line, column = doc.mark(path)
        problems.append(Problem(Location(doc.file, line, column), json_path(path), message))

    libraries = data.get("libraries", [])
    components = data.get("components", [])
    route_names = {r["name"] for r in data.get("cmake", {}).get("routes", [])}

    library_names = _unique_names(libraries, ("libraries",), "library", report)
    component_names = _unique_names(components, ("components",), "component", report)

    owners: dict[str, int] = {}
    for i, lib in enumerate(libraries):
        for j, comp in enumerate(lib.get("owns", {}).get("components", [])):
            path: PathKey = ("libraries", i, "owns", "components", j)
            if comp not in component_names:
                report(path, f"library {lib['name']!r} owns unknown component {comp!r}")
            elif comp in owners:
                first = libraries[owners[comp]]["name"]
                report(
                    path,
                    f"component {comp!r} is owned by two libraries: {first!r} and {lib['name']!r}",
                )
            else:
                owners[comp] = i
        if lib.get("type") == "static" and lib["kind"] in ("plugin", "python-extension"):
            # Both are loaded at run time by name; an archive cannot be.
            report(
                ("libraries", i, "type"),
                f"library {lib['name']!r} is a {lib['kind']} and static: a static archive "
                "cannot be loaded at run time",
            )
        for field in ("depends_on", "must_not_depend_on"):
            for j, other in enumerate(lib.get(field, [])):
                if other not in library_names:
                    report(("libraries", i, field, j), f"{field} names unknown library {other!r}")
                elif other == lib["name"]:
                    report(("libraries", i, field, j), f"library {other!r} names itself in {field}")

    for i, comp in enumerate(components):
        if not comp.get("requestable", True):
            # A target no COMPONENTS request names cannot have a spelling or be read from
            # its own request.
            for field in ("request", "only_on_request"):
                if comp.get(field):
                    report(
                        ("components", i, field),
                        f"component {comp['name']!r} is not requestable (requestable: false) "
                        f"but sets {field}",
                    )
        if comp.get("header_only", False):
            if comp["name"] in owners:
                owner = libraries[owners[comp["name"]]]["name"]
                report(
                    ("components", i, "header_only"),
                    f"header-only component {comp['name']!r} is owned by library {owner!r} "
                    "(a header-only component has no library)",
                )
            continue
        if comp["name"] not in owners:
            report(
                ("components", i),
                f"component {comp['name']!r} is owned by no library (list it under a library's owns.components)",
            )

    for i, agg in enumerate(data.get("aggregates", [])):
        for key, names in agg.get("carries", {}).items():
            for j, name in enumerate(names):
                if name not in component_names:
                    report(
                        ("aggregates", i, "carries", key, j),
                        f"aggregate {agg['variable']} names unknown component {name!r}",
                    )
        _check_routes(agg, ("aggregates", i), route_names, report)

    _check_packages(data, report)
    package = data.get("package", {})
    for i, companion in enumerate(package.get("companions", [])):
        if (
            re.sub(r"[-_.]+", "-", companion).lower()
            == re.sub(r"[-_.]+", "-", str(package.get("name", ""))).lower()
        ):
            report(
                ("package", "companions", i),
                f"companion {companion!r} is the package itself (package.name)",
            )

    spellings = {c.get("request", c["name"]) for c in components}
    for i, request_set in enumerate(data.get("cmake", {}).get("request_sets", [])):
        at: PathKey = ("cmake", "request_sets", i)
        if request_set["request"] in spellings:
            report(
                (*at, "request"),
                f"request set {request_set['request']!r} is also a component's request "
                "spelling (a request set stands for several components)",
            )
        for key, names in request_set["brings"].items():
            for j, name in enumerate(names):
                if name not in component_names:
                    report(
                        (*at, "brings", key, j),
                        f"request set {request_set['request']} names unknown component {name!r}",
                    )

    for i, var in enumerate(data.get("component_variables", [])):
        if var["component"] not in component_names:
            report(
                ("component_variables", i, "component"),
                f"variable {var['variable']} names unknown component {var['component']!r}",
            )
        _check_routes(var, ("component_variables", i), route_names, report)

    for i, conflict in enumerate(data.get("conflicts", [])):
        for j, name in enumerate(conflict["libraries"]):
            if name not in library_names:
                report(("conflicts", i, "libraries", j), f"conflict names unknown library {name!r}")

    for i, registry in enumerate(data.get("registries", [])):
        listing = registry.get("listing")
        if listing is not None and listing["component"] not in component_names:
            report(
                ("registries", i, "listing", "component"),
                f"registry {registry['name']} lists through unknown component "
                f"{listing['component']!r}",
            )

    for i, owner in enumerate(data.get("headers", {}).get("owners", [])):
        if owner["component"] not in component_names:
            report(
                ("headers", "owners", i, "component"),
                f"headers owned by unknown component {owner['component']!r}",
            )

    codes = tuple(known_rule_codes)
    for i, waiver in enumerate(data.get("waivers", [])):
        if not names_a_rule(waiver["rule"], codes):
            report(
                ("waivers", i, "rule"),
                f"waiver names no known rule: {waiver['rule']!r} (see `shiplint rules`)",
            )
    for path, value in _path_values(data):
        reason = _path_problem(value)
        if reason is not None:
            report(path, f"{value!r} {reason}")
    return problems


# Where the manifest holds paths (inside an artifact or the repository); "*" is any key
# or index. The schema's pattern is a first filter; these are checked as paths.
_PATH_FIELDS: tuple[tuple[str, ...], ...] = (
    ("cmake", "package_root"),
    ("cmake", "installed_config_dirs", "*"),
    ("cmake", "config_source"),
    ("cmake", "config_source_extras", "*"),
    ("cmake", "required_dirs", "*"),
    ("sources", "cmake_roots", "*"),
    ("sources", "build_declarations", "*", "path"),
    ("libraries", "*", "platforms", "*", "dir"),
)


def _path_values(data: Any) -> Iterable[tuple[PathKey, str]]:
    for pattern in _PATH_FIELDS:
        found: list[tuple[PathKey, Any]] = [((), data)]
        for step in pattern:
            found = [
                ((*path, key), child)
                for path, node in found
                for key, child in _children(node, step)
            ]
        yield from ((path, value) for path, value in found if isinstance(value, str))


def _children(node: Any, step: str) -> Iterable[tuple[str | int, Any]]:
    if isinstance(node, dict):
        return node.items() if step == "*" else ([(step, node[step])] if step in node else [])
    if isinstance(node, list) and step == "*":
        return enumerate(node)
    return []


def _path_problem(value: str) -> str | None:
    """Why `value` is no relative path that stays inside its tree, judged after
    normalisation (a regular expression's `.` does not see a newline)."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        return "holds a control character: not a path"
    text = value.replace("\\", "/")
    if text.startswith("/") or (len(text) >= 2 and text[1] == ":"):
        return "is absolute: paths are relative to the artifact or repository root"
    if posixpath.normpath(text).split("/")[0] == "..":
        return "leaves the tree it is relative to"
    return None


def _check_packages(data: dict[str, Any], report: Callable[[PathKey, str], None]) -> None:
    """Every `package` names one of the manifest's CMake packages, and what an aggregate
    or component variable carries is that package's."""
    cmake = data.get("cmake", {})
    main = cmake.get("package")
    others = cmake.get("other_packages", [])
    for i, other in enumerate(others):
        if other["package"] == main:
            report(
                ("cmake", "other_packages", i, "package"),
                f"other package {main!r} is the main package (cmake.package)",
            )
    known = {main, *(o["package"] for o in others)}
    owner = {c["name"]: c.get("package", main) for c in data.get("components", [])}

    def check(path: PathKey, entry: dict[str, Any]) -> str:
        package = entry.get("package", main)
        if package not in known:
            report(
                (*path, "package"),
                f"package {package!r} is neither cmake.package nor one of cmake.other_packages",
            )
        return str(package)

    for i, comp in enumerate(data.get("components", [])):
        check(("components", i), comp)
    for i, agg in enumerate(data.get("aggregates", [])):
        package = check(("aggregates", i), agg)
        for key, names in agg.get("carries", {}).items():
            for j, name in enumerate(names):
                if name in owner and owner[name] != package:
                    report(
                        ("aggregates", i, "carries", key, j),
                        f"aggregate {agg['variable']} of package {package} names component "
                        f"{name!r} of package {owner[name]}",
                    )
    for i, var in enumerate(data.get("component_variables", [])):
        package = check(("component_variables", i), var)
        name = var["component"]
        if name in owner and owner[name] != package:
            report(
                ("component_variables", i, "component"),
                f"variable {var['variable']} of package {package} names component {name!r} "
                f"of package {owner[name]}",
            )


def _unique_names(
    entries: list[dict[str, Any]], path: PathKey, what: str, report: Callable[[PathKey, str], None]
) -> set[str]:
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        name = entry["name"]
        if name in seen:
            report((*path, i, "name"), f"duplicate {what} name {name!r}")
        seen.add(name)
    return seen


def _check_routes(
    entry: dict[str, Any], path: PathKey, known: set[str], report: Callable[[PathKey, str], None]
) -> None:
    for j, route in enumerate(entry.get("routes", [])):
        if route not in known:
            report(
                (*path, "routes", j),
                f"unknown CMake route {route!r} (routes: {', '.join(sorted(known))})",
            )
