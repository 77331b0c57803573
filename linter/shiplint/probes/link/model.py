"""What the link probe observed: the models the SL5xx rules read.

Produced by `shiplint.probes.link.probe`. Every fact is about one artifact, one
CMake and one consumer; library names are already resolved to manifest
libraries, so a rule only compares these facts with the manifest.
"""

from __future__ import annotations

import enum

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.probes.model import NotRun, Unavailable


class ConsumerKind(enum.Enum):
    # find_package(<pkg> CONFIG) and nothing else: which targets this CMake publishes.
    DISCOVERY = "discovery"
    # find_package(<pkg> CONFIG REQUIRED COMPONENTS x) and link <ns>x.
    TARGET = "target"
    # find_package(<pkg> CONFIG REQUIRED) and link ${VAR}, a variable naming one component.
    VARIABLE = "variable"
    # find_package(<pkg> CONFIG REQUIRED) and link ${VAR}, an aggregate variable.
    AGGREGATE = "aggregate"


@dataclass(frozen=True)
class Consumer:
    """One tiny application: what it asks the package for. It references no symbol."""

    kind: ConsumerKind
    # The component asked for by name (TARGET, VARIABLE).
    component: str | None = None
    # The variable linked (VARIABLE, AGGREGATE).
    variable: str | None = None
    # The imported target linked (TARGET).
    target: str | None = None
    # The imported targets the manifest's registry listings compile and link with, when
    # the consumer runs them (only on a route with imported targets); empty otherwise.
    listing: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """A stable short name: `target:kernels_quantized`, `aggregate:EXECUTORCH_LIBRARIES`."""
        what = {
            ConsumerKind.DISCOVERY: "find_package",
            ConsumerKind.TARGET: self.component,
            ConsumerKind.VARIABLE: self.variable,
            ConsumerKind.AGGREGATE: self.variable,
        }[self.kind]
        return f"{self.kind.value}:{what}"

    def describe(self) -> str:
        if self.kind is ConsumerKind.TARGET:
            return f"the consumer asking for component {self.component} (linking {self.target})"
        if self.kind is ConsumerKind.VARIABLE:
            return (
                f"the consumer asking for component {self.component} (linking ${{{self.variable}}})"
            )
        if self.kind is ConsumerKind.AGGREGATE:
            return f"the consumer linking only ${{{self.variable}}}"
        return "the find_package probe"


@dataclass(frozen=True)
class ProbeContext:
    """One artifact laid out once and probed with one CMake."""

    artifact: str
    platform: str
    # The config the consumers found: `<artifact>!/<member>`.
    config: Location
    cmake_version: str
    # The manifest route this CMake version falls in (None when no route covers it).
    route: str | None
    # Manifest libraries the artifact ships for this platform, with the file name of
    # each (laid out for the link): (library, file name).
    shipped: tuple[tuple[str, str], ...]

    @property
    def libraries(self) -> tuple[str, ...]:
        return tuple(library for library, _ in self.shipped)

    def file_of(self, library: str) -> str:
        return next((f for lib, f in self.shipped if lib == library), library)


class RunSite(enum.Enum):
    # Where it was built, its RUNPATH as the build left it.
    IN_PLACE = "in place"
    # Copied beside copies of the package's libraries, the package moved away: only
    # a RUNPATH relative to the binary finds them.
    DEPLOYED = "deployed"


@dataclass(frozen=True)
class ConsumerRun:
    """A built consumer started on the host, with a reduced environment (no loader overrides)."""

    site: RunSite
    # The exit status; None when it was stopped (time limit) or could not start.
    returncode: int | None
    # Why it did not exit 0 (status, signal, time limit); None when it did.
    reason: str | None
    # The last lines it printed on stderr (the loader's error, a crash message).
    tail: str = ""

    @property
    def ok(self) -> bool:
        return self.reason is None


class ProbeStep(enum.Enum):
    CONFIGURE = "configure"
    BUILD = "build"
    # The built consumer could not be read.
    READ = "read"


@dataclass(frozen=True)
class ToolFailure:
    """A step that did not complete, with the tail of what the tool printed."""

    step: ProbeStep
    # The exit status; None when the tool was stopped (timeout) or could not start.
    returncode: int | None
    reason: str
    tail: str


@dataclass(frozen=True)
class ConsumerBuild:
    """A consumer configured, linked and read: its NEEDED, or the step that failed."""

    context: ProbeContext
    consumer: Consumer
    failure: ToolFailure | None
    # The built binary's NEEDED entries, in order.
    needed: tuple[str, ...] = ()
    # The manifest libraries those entries resolve to (by file name or SONAME).
    libraries: tuple[str, ...] = ()
    # The built binary's RUNPATH (or RPATH) entries, as the build wrote them.
    runpath: tuple[str, ...] = ()
    # Its runs, in place first, then deployed; empty when it was not built.
    runs: tuple[ConsumerRun, ...] = ()
    # The registered names the in-place run printed (the manifest's registry listings);
    # None when the consumer did not list them.
    registered: tuple[str, ...] | None = None

    def run_at(self, site: RunSite) -> ConsumerRun | None:
        return next((r for r in self.runs if r.site is site), None)


class NotProbedReason(enum.Enum):
    # The artifact is for another platform than the host that would link it.
    OTHER_PLATFORM = "other-platform"
    # Nothing of the manifest's is linkable in the artifact for its platform.
    NOTHING_TO_LINK = "nothing-to-link"
    # A CMake route offers no target and no variable by which to ask for these components.
    NO_NAME_ON_ROUTE = "no-name-on-route"
    # A route without imported targets gives the registry listing no headers to compile with.
    NO_LISTING_ON_ROUTE = "no-listing-on-route"


@dataclass(frozen=True)
class NotProbed(NotRun[NotProbedReason]):
    """Part of the link probe did not apply, stated rather than skipped."""

    # The components no consumer asked for by name (NO_NAME_ON_ROUTE).
    components: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProbeUnavailable(Unavailable):
    """The link probe could not run: no compiler, no CMake, no config to find, a layout failure."""


# What the link probe builds: the models the SL5xx rules read.
ProbeModel = ConsumerBuild | NotProbed | ProbeUnavailable
