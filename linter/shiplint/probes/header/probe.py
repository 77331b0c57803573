"""Compile every public header of an artifact's package alone, with real CMake.

For the host platform only, like the link probe: the artifact's package is laid out
in a fresh temporary directory, one generated project finds it with the CMake whose
route has imported targets, and every header under the include directories those
targets publish becomes its own translation unit, compiled with their usage
requirements (include directories, definitions, options, language standard). The
whole sweep is one parallel build; only the headers that failed are compiled again,
one at a time, to read their first error.
"""

from __future__ import annotations

import json
import os
import shlex
import tempfile
import time
from collections.abc import Callable
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from shiplint.artifacts.archive import ArtifactError
from shiplint.artifacts.model import Inventory
from shiplint.artifacts.tree import Tree
from shiplint.cmake_eval.cmake_binary import CMakeBinary, CMakeUnusable, identify
from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.manifest.model import Manifest
from shiplint.placed import placed_libraries
from shiplint.platforms import Platform
from shiplint.plural import counted
from shiplint.probes.header import project
from shiplint.probes.header.compiler_output import first_error, unresolved_by_unit
from shiplint.probes.header.model import (
    CompileError,
    HeaderContext,
    HeaderFailure,
    HeaderModel,
    HeaderProbeFailed,
    HeadersNotProbed,
    HeaderSweep,
    NotRunReason,
)
from shiplint.probes.host import Toolchain, find_toolchain, host_platform, same_platform
from shiplint.probes.layout import Layout, LayoutError, lay_out
from shiplint.probes.runner import ToolRun, reduced_env, run_tool, tail

# What a header is called; `.inl`, `.tcc`, `.ipp` and `.inc` are fragments another header
# includes at a chosen point, never meant to stand alone.
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++")
PARALLEL_COMPILES = max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class HeaderOptions:
    cmake: tuple[str, ...]
    # Seconds each configure, and each single header's compile, may take.
    timeout: float = 60.0
    # Seconds the one build of every header may take.
    build_timeout: float = 900.0
    host: Platform | None = None
    progress: Callable[[str], None] | None = None


def probe_headers(
    tree: Tree, inventory: Inventory, manifest: Manifest, options: HeaderOptions
) -> list[HeaderModel]:
    """The header probe's model for one artifact."""
    host = options.host or host_platform()
    platform = inventory.platform
    if platform is not None and not same_platform(platform, host):
        detail = (
            f"the artifact is for {platform} and this host compiles for {host}: "
            "no header is compiled"
        )
        return [HeadersNotProbed(tree.label, NotRunReason.OTHER_PLATFORM, detail, tree.location())]
    toolchain = find_toolchain()
    if isinstance(toolchain, str):
        return [HeaderProbeFailed(tree.label, toolchain, tree.location())]
    chosen = _choose_cmake(manifest, options.cmake)
    if isinstance(chosen, str):
        return [HeaderProbeFailed(tree.label, chosen, tree.location())]
    if chosen is None:
        versions = ", ".join(options.cmake)
        detail = (
            f"no configured CMake ({versions}) falls in a route with imported targets: "
            "the flags a header compiles with are those targets' usage requirements"
        )
        return [HeadersNotProbed(tree.label, NotRunReason.NO_TARGETS, detail, tree.location())]
    with tempfile.TemporaryDirectory(prefix="shiplint-header-probe-") as tmp:
        sweep = _Sweep(Path(tmp), tree, inventory, manifest, host, toolchain, chosen, options)
        return [sweep.run()]


def _choose_cmake(manifest: Manifest, configured: tuple[str, ...]) -> CMakeBinary | str | None:
    """The newest configured CMake whose route has imported targets (or no route says it
    has none); None when every usable one is on a route without them; a reason when none
    is usable."""
    usable: list[CMakeBinary] = []
    problems: list[str] = []
    for name in configured:
        try:
            usable.append(identify(name))
        except CMakeUnusable as exc:
            problems.append(f"cannot use CMake {name}: {exc.reason}")
    if not usable:
        return "; ".join(problems) or "no CMake configured (`cmake` in [tool.shiplint] or --cmake)"
    with_targets = [
        b
        for b in usable
        if (route := manifest.cmake.route_for(b.version)) is None or route.imported_targets
    ]
    return max(with_targets, key=lambda b: b.version) if with_targets else None


@dataclass
class _Sweep:
    tmp: Path
    tree: Tree
    inventory: Inventory
    manifest: Manifest
    host: Platform
    toolchain: Toolchain
    cmake: CMakeBinary
    options: HeaderOptions

    def run(self) -> HeaderModel:
        started = time.monotonic()
        platform = self.inventory.platform
        libraries = placed_libraries(self.tree, self.inventory.listing, self.manifest, self.host)
        try:
            layout = lay_out(
                self.tree,
                self.inventory.listing,
                self.manifest,
                platform or self.host,
                libraries,
                self.tmp / "package",
            )
        except LayoutError as exc:
            return self._failed(str(exc))
        config = self.tree.location(layout.config_member)
        source, build = self.tmp / "project" / "source", self.tmp / "project" / "build"
        project.write_project(source, self.manifest)
        env = reduced_env(self.tmp / "project")
        first = self._configure(source, build, layout, env)
        if not first.ok:
            return self._failed(self._why("configure", first), config)
        version = (build / project.VERSION_FILE).read_text(encoding="utf-8").strip()
        route = self.manifest.cmake.route_for(self.cmake.version)
        text = (build / project.TARGETS_FILE).read_text(encoding="utf-8")
        targets = tuple(t for t in text.split(";") if t)
        if not targets:
            detail = (
                f"with CMake {version} the config defines none of the manifest's component "
                "targets: no usage requirements to compile the headers with"
            )
            return HeadersNotProbed(
                self.tree.label, NotRunReason.NO_TARGETS, detail, config, version
            )
        context = HeaderContext(
            self.tree.label, config, version, route.name if route else None, targets
        )
        prefixes = self._include_prefixes(build / project.INCLUDE_DIRS_FILE, layout)
        try:
            headers = self._headers(prefixes, layout)
        except (ArtifactError, OSError) as exc:
            return self._failed(f"cannot extract a header: {exc}", config)
        globs = self.manifest.headers.exclude

        def is_excluded(member: str) -> bool:
            spellings = [member[len(p) + 1 :] for p in prefixes if member.startswith(p + "/")]
            return any(fnmatchcase(s, g) for s in spellings for g in globs)

        probed = [(m, s) for m, s in headers if not is_excluded(m)]
        excluded = tuple(m for m, _ in headers if is_excluded(m))
        if not probed:
            where = ", ".join(prefixes) or "(none inside the artifact)"
            detail = f"no header under the include directories the targets publish: {where}"
            return HeadersNotProbed(
                self.tree.label, NotRunReason.NO_HEADERS, detail, config, version
            )
        owners = [self._owner(s) for _, s in probed]
        units = project.write_units(source, [s for _, s in probed], owners)
        second = self._configure(source, build, layout, env)
        if not second.ok:
            return self._failed(self._why("configure", second), config)
        built = self._build(build, env)
        if built.error is not None:
            return self._failed(self._why("build", built), config)
        failures = self._failures(build, layout, probed, units, env)
        failed = frozenset(
            i for i, (m, _) in enumerate(probed) if m in {f.header for f in failures}
        )
        if any(owners[i] is not None for i in failed):
            # Link each owner's headers that compiled: leave the others out and configure
            # again (the objects already built stay built).
            project.write_units(source, [s for _, s in probed], owners, failed)
            again = self._configure(source, build, layout, env)
            if not again.ok:
                return self._failed(self._why("configure", again), config)
        linked: list[str] = []
        failures += self._link_failures(build, probed, owners, targets, failures, env, linked)
        if self.options.progress:
            seconds = time.monotonic() - started
            self.options.progress(
                f"header probe: {counted(len(probed), 'header')} of {self.tree.label} compiled alone "
                f"with CMake {version} in {seconds:.1f} s, {len(failures)} failed"
            )
        return HeaderSweep(
            context,
            tuple(m for m, _ in probed),
            excluded,
            tuple(failures),
            artifact_path=config.path,
            linked=tuple(linked),
        )

    def _failed(self, reason: str, location: Location | None = None) -> HeaderProbeFailed:
        where = location if location is not None else self.tree.location()
        return HeaderProbeFailed(self.tree.label, reason, where, self.cmake.version_text)

    def _why(self, step: str, run: ToolRun) -> str:
        output = tail(run.output.replace(str(self.tmp), "<probe>"))
        return f"the {step} step with CMake {self.cmake.version_text} failed: {run.why}\n{output}"

    def _configure(self, source: Path, build: Path, layout: Layout, env: dict[str, str]) -> ToolRun:
        command = [
            *self.toolchain.configure(
                self.cmake.path, source, build, self.manifest.cmake.package, layout.config_dir
            ),
            f"-DCMAKE_CXX_COMPILER={self.toolchain.compiler}",
            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
        ]
        return run_tool(command, self.tmp, env, self.options.timeout)

    def _build(self, build: Path, env: dict[str, str]) -> ToolRun:
        # Keep going past a failing header: every header is tried in the one build.
        keep_going = ["-k", "0"] if self.toolchain.generator == "Ninja" else ["-k"]
        command = [
            self.cmake.path,
            "--build",
            str(build),
            "--parallel",
            str(PARALLEL_COMPILES),
            "--",
            *keep_going,
        ]
        return run_tool(command, self.tmp, env, self.options.build_timeout)

    def _owner(self, spelling: str) -> str | None:
        """The imported target of the component owning the header `spelling` names (manifest
        `headers.owners`, matched against the spelling a consumer includes it by)."""
        for owner in self.manifest.headers.owners:
            if any(fnmatchcase(spelling, g) for g in owner.headers):
                return self.manifest.target_name(owner.component)
        return None

    def _link_failures(
        self,
        build: Path,
        probed: list[tuple[str, str]],
        owners: list[str | None],
        targets: tuple[str, ...],
        failures: list[HeaderFailure],
        env: dict[str, str],
        linked: list[str],
    ) -> list[HeaderFailure]:
        """Each owner's headers, whose objects all compiled, linked against it alone: what
        their inline code references and the owner does not define. `linked` gains each
        owner whose link was made."""
        failed = {f.header for f in failures}
        found: list[HeaderFailure] = []
        for group, owner in enumerate(dict.fromkeys(o for o in owners if o is not None)):
            members = [i for i, o in enumerate(owners) if o == owner and probed[i][0] not in failed]
            if owner not in targets or not members:
                continue  # no such target, or none of its headers compiled (each said so)
            linked.append(self._component_of(owner))
            if (build / project.link_target(group)).exists():
                continue
            command = [self.cmake.path, "--build", str(build), "--target"]
            # The whole build's limit: building the target may compile its objects again.
            run = run_tool(
                [*command, project.link_target(group)], self.tmp, env, self.options.build_timeout
            )
            unresolved = unresolved_by_unit(run.output)
            component = self._component_of(owner)
            for index in members:
                symbols = unresolved.get(index)
                if not symbols:
                    continue
                member, spelling = probed[index]
                text = f"undefined reference to `{symbols[0]}'"
                if len(symbols) > 1:
                    text += f" and {len(symbols) - 1} more"
                found.append(
                    HeaderFailure(
                        header=member,
                        spelling=spelling,
                        line=None,
                        error=CompileError(member, None, text),
                        tail=tail(run.output.replace(str(self.tmp), "<probe>")),
                        step="link",
                        owner=component,
                    )
                )
            if not any(i in unresolved for i in members) and not run.ok:
                # The link failed for a reason no header's object names: the first line says it.
                member, spelling = probed[members[0]]
                output = tail(run.output.replace(str(self.tmp), "<probe>"))
                found.append(HeaderFailure(member, spelling, None, None, output, "link", component))
        return found

    def _component_of(self, target: str) -> str:
        return next(
            (
                o.component
                for o in self.manifest.headers.owners
                if self.manifest.target_name(o.component) == target
            ),
            target,
        )

    def _include_prefixes(self, listed: Path, layout: Layout) -> list[str]:
        """The include directories inside the laid-out package, as member prefixes,
        innermost first (a header is spelled from the innermost one holding it, as a
        consumer writes it: <c10/util/x.h>, not the path through the outer one)."""
        root = layout.root.resolve()
        prefixes: list[str] = []
        for entry in listed.read_text(encoding="utf-8").split(";"):
            if not entry:
                continue
            try:
                relative = Path(entry).resolve().relative_to(root)
            except ValueError:
                continue  # outside the artifact: the system's, or another package's
            prefix = relative.as_posix()
            if prefix not in prefixes:
                prefixes.append(prefix)
        return sorted(prefixes, key=lambda p: (-p.count("/"), p))

    def _headers(self, prefixes: list[str], layout: Layout) -> list[tuple[str, str]]:
        """(member, spelling) of every header below an include directory, extracting
        everything below those directories that the layout did not (a header may
        include a file of any name)."""
        headers: list[tuple[str, str]] = []
        for member in self.inventory.listing.members:
            prefix = next((p for p in prefixes if member.startswith(p + "/")), None)
            if prefix is None:
                continue
            target = layout.path_of(member)
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(self.tree.read(member))
            if member.endswith(HEADER_SUFFIXES):
                headers.append((member, member[len(prefix) + 1 :]))
        return sorted(headers, key=lambda h: h[1])

    def _failures(
        self,
        build: Path,
        layout: Layout,
        probed: list[tuple[str, str]],
        units: list[Path],
        env: dict[str, str],
    ) -> list[HeaderFailure]:
        commands = {
            str(Path(entry["file"]).resolve()): entry
            for entry in json.loads((build / "compile_commands.json").read_text(encoding="utf-8"))
        }
        failures: list[HeaderFailure] = []
        for (member, spelling), unit in zip(probed, units, strict=True):
            entry = commands.get(str(unit.resolve()))
            if entry is None:
                continue
            directory = Path(entry["directory"])
            output = entry.get("output")
            if output and (directory / output).exists():
                continue
            failures.append(self._failure(member, spelling, entry, layout, env))
        return failures

    def _failure(
        self,
        member: str,
        spelling: str,
        entry: dict[str, str],
        layout: Layout,
        env: dict[str, str],
    ) -> HeaderFailure:
        """The header's unit compiled again alone, for its own output."""
        directory = Path(entry["directory"])
        command = entry.get("command") or ""
        run = run_tool(shlex.split(command), directory, env, self.options.timeout)
        header = layout.path_of(member).resolve()

        def resolved(path: str) -> Path:
            return (directory / path).resolve()

        found = first_error(run.output, lambda path: resolved(path) == header)
        error = None
        if found is not None:
            error = CompileError(
                self._member_or_path(resolved(found.file), layout), found.line, found.text
            )
        cleaned = tail(run.output.replace(str(self.tmp), "<probe>"))
        reason = run.error or ""
        return HeaderFailure(
            header=member,
            spelling=spelling,
            line=found.header_line if found else None,
            error=error,
            tail=f"{reason}\n{cleaned}".strip() if reason else cleaned,
        )

    @staticmethod
    def _member_or_path(path: Path, layout: Layout) -> str:
        try:
            return PurePosixPath(path.relative_to(layout.root.resolve())).as_posix()
        except ValueError:
            return str(path)
