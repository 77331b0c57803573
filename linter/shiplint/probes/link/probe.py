"""Build tiny consumers of an artifact's package with real CMake and read what they link.

For the host platform only: a consumer for another platform cannot be linked
here, and that is said (NotProbed), never skipped. Everything is laid out and
built in a fresh temporary directory per artifact and removed afterwards, so
nothing of one run can hide a change in the next artifact.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import field, replace
from pathlib import Path

from shiplint.artifacts.model import Inventory
from shiplint.artifacts.tree import Tree
from shiplint.cmake_eval.cmake_binary import CMakeUnusable, identify
from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.manifest.model import Manifest
from shiplint.placed import placed_libraries
from shiplint.platforms import Platform
from shiplint.probes.host import Toolchain, find_toolchain, host_platform, same_platform
from shiplint.probes.layout import Layout, LayoutError, lay_out
from shiplint.probes.link import consumers as cons
from shiplint.probes.link.dynamic import read_dynamic
from shiplint.probes.link.execute import Deployment, run_consumer
from shiplint.probes.link.model import (
    Consumer,
    ConsumerBuild,
    ConsumerKind,
    ConsumerRun,
    NotProbed,
    NotProbedReason,
    ProbeContext,
    ProbeModel,
    ProbeStep,
    ProbeUnavailable,
    RunSite,
    ToolFailure,
)
from shiplint.probes.runner import ToolRun, reduced_env, run_tool, tail

# The host linker's switch that drops a library nothing references, as Debian and
# Ubuntu toolchains do by default; the probe links with it so a dropped library is dropped.
AS_NEEDED = {"linux": "-Wl,--as-needed", "macos": "-Wl,-dead_strip_dylibs"}
CONSUMER_BINARY = "shiplint_consumer"
PARALLEL_BUILDS = max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True)
class ProbeOptions:
    cmake: tuple[str, ...]
    # Seconds each configure or build may take.
    timeout: float = 60.0
    # Seconds each run of a built consumer may take (it only lists and returns).
    run_timeout: float = 30.0
    # Consumer keys to build (Consumer.key); None builds all. Tests use it to stay fast.
    only: frozenset[str] | None = None
    host: Platform | None = None
    progress: Callable[[str], None] | None = None


def probe_artifact(
    tree: Tree, inventory: Inventory, manifest: Manifest, options: ProbeOptions
) -> list[ProbeModel]:
    """The probe's models for one artifact: its inventory says its platform, where its
    config and libraries are, and each library's SONAME; `tree` is read to extract them."""
    host = options.host or host_platform()
    platform = inventory.platform
    if platform is not None and not same_platform(platform, host):
        return [_not_probed_platform(tree, platform, host)]
    toolchain = find_toolchain()
    if isinstance(toolchain, str):
        return [ProbeUnavailable(tree.label, toolchain, tree.location())]
    if host.os not in AS_NEEDED:
        reason = f"the link probe cannot read consumers linked on {host}"
        return [ProbeUnavailable(tree.label, reason, tree.location())]
    if not options.cmake:
        reason = "no CMake configured (`cmake` in [tool.shiplint] or --cmake)"
        return [ProbeUnavailable(tree.label, reason, tree.location())]
    with tempfile.TemporaryDirectory(prefix="shiplint-link-probe-") as tmp:
        return _probe_in(Path(tmp), tree, inventory, host, manifest, toolchain, options)


def _not_probed_platform(tree: Tree, platform: Platform, host: Platform) -> NotProbed:
    return NotProbed(
        artifact=tree.label,
        reason=NotProbedReason.OTHER_PLATFORM,
        detail=(
            f"the artifact is for {platform} and this host links and runs for {host}: "
            "no consumer is built or run"
        ),
        location=tree.location(),
    )


def _probe_in(
    tmp: Path,
    tree: Tree,
    inventory: Inventory,
    host: Platform,
    manifest: Manifest,
    toolchain: Toolchain,
    options: ProbeOptions,
) -> list[ProbeModel]:
    # An artifact of unknown platform (no wheel tag, no binary header) is linked as
    # the host would link it: the only platform the probe can link for.
    platform = inventory.platform
    libraries = placed_libraries(tree, inventory.listing, manifest, host)
    try:
        layout = lay_out(
            tree, inventory.listing, manifest, platform or host, libraries, tmp / "package"
        )
    except LayoutError as exc:
        return [ProbeUnavailable(tree.label, str(exc), tree.location())]
    config = tree.location(layout.config_member)
    if not _linkable(manifest, layout):
        detail = (
            "the artifact ships none of the manifest's runtime or component libraries "
            f"for {platform or host}: nothing a consumer links"
        )
        return [NotProbed(tree.label, NotProbedReason.NOTHING_TO_LINK, detail, config)]
    names = _library_names(layout, inventory)
    models: list[ProbeModel] = []
    # Index in `models` -> the consumer binary built for it.
    built: dict[int, Path] = {}
    for index, cmake in enumerate(options.cmake):
        session = _Session(
            tmp, tmp / f"cmake-{index}", tree, manifest, layout, config, toolchain, names, host
        )
        for model in session.run(cmake, options):
            if isinstance(model, ConsumerBuild) and model.consumer.key in session.binaries:
                built[len(models)] = session.binaries[model.consumer.key]
            models.append(model)
    return _deployed_runs(tmp, layout, models, built, options)


def _deployed_runs(
    tmp: Path,
    layout: Layout,
    models: list[ProbeModel],
    built: dict[int, Path],
    options: ProbeOptions,
) -> list[ProbeModel]:
    """Each consumer that ran in place, run again deployed beside copies of the package's
    libraries with the package moved away."""
    runnable = [
        (i, m, binary)
        for i, binary in built.items()
        if isinstance(m := models[i], ConsumerBuild)
        and (run := m.run_at(RunSite.IN_PLACE)) is not None
        and run.ok
    ]
    if not runnable:
        return models
    library_dirs = {
        layout.path_of(member).parent for _, members in layout.shipped for member in members
    }
    deployment = Deployment(layout.root, sorted(library_dirs), tmp / "deployed")
    env = reduced_env(tmp / "deployed-env")
    result = list(models)
    try:
        for index, model, binary in runnable:
            name = f"shiplint_consumer_{index}"
            run = _clean_run(tmp, deployment.run(binary, name, env, options.run_timeout))
            result[index] = replace(model, runs=(*model.runs, run))
    finally:
        deployment.close()
    return result


def _linkable(manifest: Manifest, layout: Layout) -> bool:
    """Does the artifact ship a library a consumer links? Plugins and Python extensions
    are shipped too, but never link targets."""
    return any(
        (lib := manifest.library(name)) is not None and lib.kind.linkable
        for name in layout.shipped_names
    )


def _library_names(layout: Layout, inventory: Inventory) -> dict[str, str]:
    """NEEDED spelling -> manifest library: each shipped file's name and its SONAME (from
    the inventory's record of it)."""
    names: dict[str, str] = {}
    for library, members in layout.shipped:
        for member in members:
            names[Path(member).name] = library
            record = inventory.binary(member)
            if record is not None and record.soname:
                names[record.soname] = library
    return names


@dataclass
class _Session:
    """One CMake against one laid-out artifact."""

    tmp: Path
    work: Path
    tree: Tree
    manifest: Manifest
    layout: Layout
    config: Location
    toolchain: Toolchain
    names: dict[str, str]
    host: Platform
    # Consumer key -> the binary built for it (the consumers that linked).
    binaries: dict[str, Path] = field(default_factory=dict)

    def run(self, cmake: str, options: ProbeOptions) -> list[ProbeModel]:
        try:
            binary = identify(cmake).path
        except CMakeUnusable as exc:
            reason = f"cannot use CMake {cmake}: {exc.reason}"
            return [ProbeUnavailable(self.tree.label, reason, self.config)]
        self.work.mkdir(parents=True)
        env = reduced_env(self.work)
        discovery = self._configure(binary, Consumer(ConsumerKind.DISCOVERY), env, options)
        discovered = self.work / _directory(Consumer(ConsumerKind.DISCOVERY)) / "build"
        version_file = discovered / cons.VERSION_FILE
        if not version_file.is_file():
            failure = self._clean(_failure(discovery, ProbeStep.CONFIGURE))
            reason = f"CMake {cmake} did not run a configure: {failure.reason}\n{failure.tail}"
            return [ProbeUnavailable(self.tree.label, reason.rstrip(), self.config)]
        version = version_file.read_text(encoding="utf-8").strip()
        if options.progress:
            options.progress(f"link probe: {self.tree.label} with CMake {version}")
        route = self.manifest.cmake.route_for(_version_tuple(version))
        context = ProbeContext(
            artifact=self.tree.label,
            platform=str(self.host),
            config=self.config,
            cmake_version=version,
            route=route.name if route else None,
            shipped=tuple((lib, Path(members[0]).name) for lib, members in self.layout.shipped),
        )
        if not discovery.ok:
            failure = self._clean(_failure(discovery, ProbeStep.CONFIGURE))
            return [ConsumerBuild(context, Consumer(ConsumerKind.DISCOVERY), failure)]
        targets_file = discovered / cons.TARGETS_FILE
        targets = tuple(t for t in targets_file.read_text(encoding="utf-8").split(";") if t)
        shipped = cons.shipped_components(self.manifest, self.layout.shipped_names)
        plan = cons.plan(self.manifest, route, targets, shipped)
        chosen = [c for c in plan.consumers if options.only is None or c.key in options.only]
        # Consumers are independent projects; two at a time halve the wall time on a
        # 2-core runner. map() keeps the plan's order, so reports stay stable.
        with ThreadPoolExecutor(max_workers=PARALLEL_BUILDS) as pool:
            models: list[ProbeModel] = list(
                pool.map(lambda c: self._build(binary, context, c, env, options), chosen)
            )
        if plan.unnamed:
            models.append(_unnamed(context, plan.unnamed, self.manifest))
        if plan.unlisted:
            models.append(_unlisted(context, self.manifest))
        return models

    def _configure(
        self, cmake: str, consumer: Consumer, env: dict[str, str], options: ProbeOptions
    ) -> ToolRun:
        source = self.work / _directory(consumer) / "source"
        build = source.parent / "build"
        text = (
            cons.discovery_project(self.manifest)
            if consumer.kind is ConsumerKind.DISCOVERY
            else cons.consumer_project(self.manifest, consumer)
        )
        main = (
            cons.MAIN_CPP
            if consumer.kind is ConsumerKind.DISCOVERY
            else cons.main_source(self.manifest, consumer)
        )
        cons.write_project(source, text, main)
        command = self.toolchain.configure(
            cmake, source, build, self.manifest.cmake.package, self.layout.config_dir
        )
        if consumer.kind is not ConsumerKind.DISCOVERY:
            # The discovery project enables no language, so it gets no compiler options.
            command += [
                f"-DCMAKE_CXX_COMPILER={self.toolchain.compiler}",
                f"-DCMAKE_EXE_LINKER_FLAGS={AS_NEEDED[self.host.os]}",
                "-DCMAKE_BUILD_TYPE=Release",
            ]
        return run_tool(command, self.work, env, options.timeout)

    def _build(
        self,
        cmake: str,
        context: ProbeContext,
        consumer: Consumer,
        env: dict[str, str],
        options: ProbeOptions,
    ) -> ConsumerBuild:
        configured = self._configure(cmake, consumer, env, options)
        if not configured.ok:
            return ConsumerBuild(
                context, consumer, self._clean(_failure(configured, ProbeStep.CONFIGURE))
            )
        build = self.work / _directory(consumer) / "build"
        built = run_tool([cmake, "--build", str(build)], self.work, env, options.timeout)
        if not built.ok:
            return ConsumerBuild(context, consumer, self._clean(_failure(built, ProbeStep.BUILD)))
        binary = build / CONSUMER_BINARY
        dynamic = read_dynamic(binary)
        if isinstance(dynamic, str):
            failure = ToolFailure(ProbeStep.READ, None, dynamic, "")
            return ConsumerBuild(context, consumer, failure)
        needed = dynamic.needed
        libraries = tuple(dict.fromkeys(self.names[n] for n in needed if n in self.names))
        ran = run_consumer(binary, RunSite.IN_PLACE, env, options.run_timeout)
        if ran.run.ok:
            self.binaries[consumer.key] = binary
        registered = (
            tuple(line.strip() for line in ran.stdout.splitlines() if line.strip())
            if consumer.listing and ran.run.ok
            else None
        )
        return ConsumerBuild(
            context,
            consumer,
            None,
            needed,
            libraries,
            runpath=tuple(entry.replace(str(self.tmp), "<probe>") for entry in dynamic.runpath),
            runs=(_clean_run(self.tmp, ran.run),),
            registered=registered,
        )

    def _clean(self, failure: ToolFailure) -> ToolFailure:
        """The failure with the temp dir spelled `<probe>`, so reports compare across runs."""
        text = failure.tail.replace(str(self.tmp), "<probe>")
        return ToolFailure(failure.step, failure.returncode, failure.reason, tail(text))


def _failure(run: ToolRun, step: ProbeStep) -> ToolFailure:
    return ToolFailure(step, run.returncode, run.why, tail(run.output))


def _clean_run(tmp: Path, run: ConsumerRun) -> ConsumerRun:
    """The run with the temp dir spelled `<probe>`, so reports compare across runs."""
    return replace(run, tail=run.tail.replace(str(tmp), "<probe>"))


def _directory(consumer: Consumer) -> str:
    return consumer.key.replace(":", "-")


def _version_tuple(text: str) -> tuple[int, ...]:
    """`3.24.3` -> (3, 24, 3); a suffix (`4.0.0-rc1`) is not part of the number."""
    match = re.match(r"\d+(?:\.\d+)*", text)
    return tuple(int(p) for p in match.group(0).split(".")) if match else ()


def _unlisted(context: ProbeContext, manifest: Manifest) -> NotProbed:
    route = f"route {context.route}" if context.route else "no route"
    components = sorted({r.listing.component for r in manifest.registries if r.listing is not None})
    detail = (
        f"with CMake {context.cmake_version} ({route}) no consumer lists the registered "
        f"operators: the registry listing compiles against the imported target of "
        f"{', '.join(components)}, which this CMake does not define or the artifact does not ship"
    )
    return NotProbed(
        artifact=context.artifact,
        reason=NotProbedReason.NO_LISTING_ON_ROUTE,
        detail=detail,
        location=context.config,
        cmake_version=context.cmake_version,
    )


def _unnamed(context: ProbeContext, components: Sequence[str], manifest: Manifest) -> NotProbed:
    route = f"route {context.route}" if context.route else "no route"
    detail = (
        f"with CMake {context.cmake_version} ({route}) no consumer can ask for "
        f"{', '.join(components)} by name: the route has no imported targets and the "
        "manifest names no component variable there; they are probed only through the aggregates"
    )
    return NotProbed(
        artifact=context.artifact,
        reason=NotProbedReason.NO_NAME_ON_ROUTE,
        detail=detail,
        location=context.config,
        cmake_version=context.cmake_version,
        components=tuple(components),
    )
