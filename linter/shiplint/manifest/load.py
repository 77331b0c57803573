"""Load a manifest: read safely, parse with positions, validate, build frozen models once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shiplint.codes import rule_codes
from shiplint.diagnostics import Location
from shiplint.manifest.crossfield import cross_field_problems
from shiplint.manifest.errors import InputError, ManifestError, Problem
from shiplint.manifest.model import (
    AcceleratorBuild,
    Aggregate,
    BuildDeclaration,
    Carries,
    CMakePackage,
    CMakeRoute,
    Component,
    ComponentVariable,
    Conflict,
    Externals,
    HeaderOwner,
    Headers,
    Library,
    LibraryKind,
    LibraryType,
    Manifest,
    OtherPackage,
    Ownership,
    PackagingCall,
    Placement,
    ProvidedLibraries,
    Registry,
    RegistryListing,
    RequestSet,
    Sources,
    Waiver,
)
from shiplint.manifest.validate import schema_problems
from shiplint.manifest.yamldoc import Document, PathKey, parse_yaml, read_text
from shiplint.platforms import PlatformSelector
from shiplint.validity import known_valid, remember_valid

SCHEMA = "manifest.schema.json"


def load_manifest(path: Path, label: str | None = None) -> Manifest:
    """The manifest at `path`; raises ManifestError listing every problem with its position."""
    label = label or str(path)
    try:
        text = read_text(path, label)
        doc = parse_yaml(text, label)
    except InputError as exc:  # unreadable or not YAML: reported the same way as schema errors
        raise ManifestError(exc.problems) from None
    if not isinstance(doc.data, dict):
        # Not quoted: a path that led to some other file (/etc/passwd) must not print it.
        names: dict[type, str] = {str: "a string", list: "a list"}
        kind = names.get(type(doc.data), type(doc.data).__name__)
        raise ManifestError(
            [
                Problem(
                    Location(label, 1, 1),
                    "",
                    f"the document is {kind}, not a mapping of manifest keys",
                )
            ]
        )
    # A hook loads the same manifest on every commit: what the schema accepted once is
    # not validated again (nor is jsonschema imported).
    content = text.encode("utf-8")
    if not known_valid(content, SCHEMA):
        problems = schema_problems(doc, SCHEMA)
        if problems:
            raise ManifestError(problems)
        remember_valid(content, SCHEMA)
    problems = cross_field_problems(doc, rule_codes())
    if problems:
        raise ManifestError(problems)
    return build_manifest(doc)


def _version(text: str | None) -> tuple[int, ...] | None:
    return None if text is None else tuple(int(p) for p in text.split("."))


def _directory(text: str | None) -> str | None:
    """A site-packages-relative directory as the linkage compares them: no `./`, no
    trailing `/` (the schema refuses `..`, absolute paths and tokens)."""
    if text is None:
        return None
    parts = [part for part in text.split("/") if part not in ("", ".")]
    return "/".join(parts)


def _carries(data: dict[str, Any]) -> Carries:
    only = data.get("only")
    return Carries(
        only=tuple(only) if only is not None else None,
        excluded=tuple(data.get("all_except", ())),
    )


def build_manifest(doc: Document) -> Manifest:
    """The frozen model of a document the schema and the cross-field checks accepted."""
    d: dict[str, Any] = doc.data

    def mark(path: PathKey) -> Location:
        line, column = doc.mark(path)
        return Location(doc.file, line, column)

    def key_mark(path: PathKey) -> Location:
        """Where the key introducing `path` is written (the value's position without one)."""
        line, column = doc.key_marks.get(path) or doc.mark(path)
        return Location(doc.file, line, column)

    cm = d["cmake"]
    cmake = CMakePackage(
        package=cm["package"],
        namespace=cm.get("namespace", ""),
        installed_config_dirs=tuple(cm["installed_config_dirs"]),
        config_source=cm.get("config_source"),
        config_source_extras=tuple(cm.get("config_source_extras", ())),
        routes=tuple(
            CMakeRoute(
                r["name"],
                _version(r.get("since")),
                _version(r.get("below")),
                r.get("description"),
                r.get("imported_targets", True),
            )
            for r in cm["routes"]
        ),
        package_root=cm["package_root"],
        required_dirs=tuple(cm.get("required_dirs", ())),
        config_source_marks=tuple(
            [key_mark(("cmake", "config_source"))] if "config_source" in cm else []
        )
        + tuple(
            mark(("cmake", "config_source_extras", i))
            for i in range(len(cm.get("config_source_extras", ())))
        ),
        other_packages=tuple(
            OtherPackage(
                o["package"],
                o.get("namespace", ""),
                tuple(o.get("installed_config_dirs", cm["installed_config_dirs"])),
            )
            for o in cm.get("other_packages", ())
        ),
        request_sets=tuple(
            RequestSet(r["request"], _carries(r["brings"]), mark(("cmake", "request_sets", i)))
            for i, r in enumerate(cm.get("request_sets", ()))
        ),
    )
    libraries = tuple(_library(lib, mark(("libraries", i))) for i, lib in enumerate(d["libraries"]))
    components = tuple(
        Component(
            c["name"],
            c.get("opt_in", False),
            c.get("description"),
            mark(("components", i)),
            target=c.get("target"),
            request=c.get("request"),
            only_on_request=c.get("only_on_request", False),
            header_only=c.get("header_only", False),
            requestable=c.get("requestable", True),
            package=c.get("package"),
        )
        for i, c in enumerate(d["components"])
    )
    aggregates = tuple(
        Aggregate(
            a["variable"],
            _carries(a["carries"]),
            tuple(a.get("routes", ())),
            mark(("aggregates", i)),
            package=a.get("package"),
        )
        for i, a in enumerate(d.get("aggregates", []))
    )
    variables = tuple(
        ComponentVariable(
            v["variable"],
            v["component"],
            tuple(v.get("routes", ())),
            mark(("component_variables", i)),
            package=v.get("package"),
        )
        for i, v in enumerate(d.get("component_variables", []))
    )
    ext = d.get("externals", {})
    externals = Externals(
        system=tuple(e for e in ext.get("system", ()) if isinstance(e, str)),
        policies=tuple(e["policy"] for e in ext.get("system", ()) if isinstance(e, dict)),
        provided=tuple(
            ProvidedLibraries(
                p["provider"],
                tuple(p["libraries"]),
                p.get("distribution"),
                directory=_directory(p.get("directory")),
                loaded_by=p.get("loaded_by"),
            )
            for p in ext.get("provided", ())
        ),
        accelerator_builds=tuple(
            AcceleratorBuild(a["label"], tuple(a["requires"]))
            for a in ext.get("accelerator_builds", ())
        ),
    )
    conflicts = tuple(
        Conflict(tuple(c["libraries"]), c["reason"], mark(("conflicts", i)))
        for i, c in enumerate(d.get("conflicts", []))
    )
    registries = tuple(
        Registry(
            r["name"], tuple(r["symbols"]), mark(("registries", i)), _listing(r.get("listing"))
        )
        for i, r in enumerate(d.get("registries", []))
    )
    waivers = tuple(
        Waiver(
            w["rule"],
            tuple(sorted(w.get("subject", {}).items())),
            w["reason"],
            mark(("waivers", i)),
        )
        for i, w in enumerate(d.get("waivers", []))
    )
    src = d.get("sources", {})
    sources = Sources(
        cmake_roots=tuple(src.get("cmake_roots", (".",))),
        exclude=tuple(src.get("exclude", ())),
        build_declarations=tuple(
            BuildDeclaration(
                b["kind"],
                b.get("path"),
                mark(("sources", "build_declarations", i)),
                _packaging(b.get("packaging")),
            )
            for i, b in enumerate(src.get("build_declarations", ()))
        ),
    )
    return Manifest(
        path=doc.file,
        name=d["package"]["name"],
        cmake=cmake,
        libraries=libraries,
        components=components,
        aggregates=aggregates,
        component_variables=variables,
        externals=externals,
        conflicts=conflicts,
        registries=registries,
        waivers=waivers,
        sources=sources,
        headers=_headers(d.get("headers", {})),
        companions=tuple(d["package"].get("companions", ())),
    )


def _packaging(raw: Any) -> tuple[PackagingCall, ...]:
    """`packaging:`, a list of call descriptions (the schema checked the shape)."""
    return tuple(
        PackagingCall(
            calls=tuple(p["calls"]),
            name_keyword=p["name_keyword"],
            name_position=p.get("name_position"),
            dir_keyword=p.get("dir_keyword"),
            name_functions=tuple(p.get("name_functions", ())),
        )
        for p in raw or ()
    )


def _headers(raw: dict[str, Any]) -> Headers:
    """`headers:` (the schema checked the shape)."""
    owners = tuple(HeaderOwner(tuple(o["headers"]), o["component"]) for o in raw.get("owners", ()))
    return Headers(
        exclude=tuple(raw.get("exclude", ())),
        owners=owners,
        required=tuple(raw.get("required", ())),
        external=tuple(raw.get("external", ())),
    )


def _listing(raw: dict[str, Any] | None) -> RegistryListing | None:
    """A registry's `listing:` (the schema checked the shape)."""
    if raw is None:
        return None
    return RegistryListing(raw["component"], tuple(raw["includes"]), raw["statement"])


def _library(raw: dict[str, Any], mark: Location) -> Library:
    owns = raw.get("owns", {})
    build = raw.get("build", {})
    return Library(
        name=raw["name"],
        kind=LibraryKind(raw["kind"]),
        build_target=build.get("target"),
        output_name=build.get("output_name", raw["name"]),
        placements=tuple(
            Placement(PlatformSelector.parse(sel), p["dir"], p.get("file"), p.get("required", True))
            for sel, p in raw["platforms"].items()
        ),
        registers_statically=raw.get("registers_statically", False),
        owns=Ownership(
            components=tuple(owns.get("components", ())),
            symbols=tuple(owns.get("symbols", ())),
            operators=tuple(owns.get("operators", ())),
            operator_namespaces=tuple(owns.get("operator_namespaces", ())),
            operator_count=owns.get("operator_count"),
        ),
        depends_on=tuple(raw.get("depends_on", ())),
        must_not_depend_on=tuple(raw.get("must_not_depend_on", ())),
        mark=mark,
        type=LibraryType(raw.get("type", "shared")),
    )
