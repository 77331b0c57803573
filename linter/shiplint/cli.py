"""The command line: `main(argv) -> int` is the only place that prints or picks an exit code.

Exit codes: 0 clean, 1 findings at or above the failing severity, 2 a usage,
config, manifest or input error.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from shiplint import __version__, cache
from shiplint.diagnostics import FAIL_ON_CHOICES, Location, Severity, parse_fail_on
from shiplint.interrupt import Interrupted, interruptible
from shiplint.manifest.errors import InputError, Problem
from shiplint.plural import counted
from shiplint.safetext import escape_text
from shiplint.suggest import did_you_mean

if TYPE_CHECKING:
    from shiplint.artifacts.reading import Reader
    from shiplint.config import Config
    from shiplint.report.model import Report
    from shiplint.request import Progress, RunRequest

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="shiplint",
        description="Check that a wheel's C++ SDK (libraries, CMake package config, sources) "
        "agrees with its manifest.",
    )
    parser.add_argument("--version", action="version", version=f"shiplint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        help="check sources and artifacts against the manifest",
        description="Check the sources under --root and each ARTIFACT against the manifest.",
        epilog="A directory ARTIFACT is an install tree when a CMake package config "
        "(<Name>Config.cmake, <name>-config.cmake) or a shared library (.so, .dylib, .dll) "
        "lies anywhere below it. Otherwise the wheels, zip and tar archives directly in it "
        "are checked, each as its own artifact (`shiplint check dist/`). A directory "
        "holding both is a usage error.",
    )
    check.add_argument(
        "artifacts",
        nargs="*",
        metavar="ARTIFACT",
        type=Path,
        help="a wheel, zip or tar archive, an install tree, or a directory of archives "
        "(each checked on its own)",
    )
    check.add_argument(
        "--manifest",
        type=Path,
        help="the manifest (default: [tool.shiplint] manifest, else shiplint.yaml under --root)",
    )
    check.add_argument(
        "--root",
        type=Path,
        default=Path("."),
        help="the repository whose sources are checked (default: .)",
    )
    check.add_argument("--no-sources", action="store_true", help="check only the artifacts")
    check.add_argument(
        "--cmake",
        action="append",
        default=[],
        metavar="PATH",
        help="a CMake binary to evaluate configs with (repeatable; one per route); "
        "a relative path is relative to the current directory",
    )
    check.add_argument(
        "--format", default="text", help="text, json, sarif, github, markdown or mermaid"
    )
    check.add_argument(
        "--output",
        type=Path,
        metavar="FILE",
        help="write the report to FILE instead of stdout (never coloured)",
    )
    check.add_argument(
        "--statistics",
        action="store_true",
        help="end the text report with one row per rule: count, code, slug",
    )
    check.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print only the text report's summary line (with --statistics: and the table)",
    )
    check.add_argument(
        "--fail-on",
        choices=FAIL_ON_CHOICES,
        help="lowest severity that fails the run, or none: findings never do "
        "(default: [tool.shiplint] fail-on, else error)",
    )
    check.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="CODES",
        help="only these rule codes or prefixes (comma-separated, repeatable)",
    )
    check.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="CODES",
        help="never these rule codes or prefixes (comma-separated, repeatable)",
    )
    check.add_argument(
        "--link-probe",
        action="store_true",
        help="also build real consumers of the host platform's artifacts",
    )
    check.add_argument(
        "--header-probe",
        action="store_true",
        help="also compile every public header alone, for the host platform's artifacts",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help="reuse nothing kept in the user cache (config evaluations, the sources model, "
        "answers about the tools); results are still kept "
        "(also SHIPLINT_NO_CACHE=1)",
    )
    check.add_argument(
        "--verbose",
        action="store_true",
        help="say what the run reads and builds, on stderr (also when it is not a terminal)",
    )

    diff = sub.add_parser(
        "diff",
        help="what changed for consumers between two builds",
        description="Compare two builds of a package (OLD, NEW: a wheel, archive or install "
        "tree, or a directory of archives, one per platform; paired by platform). Exit 0 when "
        "nothing consumers rely on was removed, 1 when something was, 2 on bad input.",
    )
    diff.add_argument("old", metavar="OLD", type=Path, help="the earlier build")
    diff.add_argument("new", metavar="NEW", type=Path, help="the later build")
    diff.add_argument(
        "--manifest",
        type=Path,
        help="name libraries as the manifest does and find the installed config (with --cmake)",
    )
    diff.add_argument(
        "--cmake",
        action="append",
        default=[],
        metavar="PATH",
        help="a CMake binary to evaluate each side's config with (repeatable; one per route; "
        "needs --manifest)",
    )
    diff.add_argument(
        "--no-cache",
        action="store_true",
        help="reuse nothing kept in the user cache (config evaluations, the sources model, "
        "answers about the tools); results are still kept "
        "(also SHIPLINT_NO_CACHE=1)",
    )
    diff.add_argument("--format", default="text", help="text, json, markdown or mermaid")
    diff.add_argument("--output", type=Path, metavar="FILE", help="write the diff to FILE")

    init = sub.add_parser(
        "init",
        help="write a starting manifest from built artifacts",
        description="Write a starting manifest from built artifacts (one wheel, archive or "
        "install tree per platform), read as `check` reads them, with the installed config "
        "evaluated by each CMake. Where the CMake routes publish different things, the newest "
        "route's answer is written and the difference printed, so the first check reports it.",
    )
    init.add_argument("artifacts", nargs="+", type=Path, metavar="ARTIFACT")
    init.add_argument(
        "--cmake",
        action="append",
        default=[],
        metavar="PATH",
        help="a CMake binary to evaluate the config with (repeatable; one per route)",
    )
    init.add_argument(
        "--root",
        type=Path,
        help="the repository: also write its build declarations and each library's build target",
    )
    init.add_argument(
        "--output",
        type=Path,
        default=Path("shiplint.yaml"),
        metavar="FILE",
        help="where to write the manifest (default: shiplint.yaml; - for standard output)",
    )
    init.add_argument(
        "--no-cache",
        action="store_true",
        help="reuse nothing kept in the user cache (config evaluations, the sources model, "
        "answers about the tools); results are still kept "
        "(also SHIPLINT_NO_CACHE=1)",
    )
    init.add_argument("--force", action="store_true", help="overwrite FILE if it exists")

    sub.add_parser("rules", help="list every rule")
    explain = sub.add_parser("explain", help="show a rule's documentation")
    explain.add_argument("code", metavar="CODE", help="a rule code (SL102) or slug")
    validate = sub.add_parser("validate-manifest", help="check a manifest against its schema")
    validate.add_argument(
        "path",
        nargs="?",
        type=Path,
        metavar="PATH",
        help="the manifest (default: [tool.shiplint] manifest, else shiplint.yaml under --root)",
    )
    validate.add_argument(
        "--root",
        type=Path,
        default=Path("."),
        help="the project whose pyproject.toml names the manifest (default: .)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        # --no-cache: nothing kept is reused (evaluations, the sources model, answers
        # about the tools); what the run finds is still kept for the next one.
        with (
            interruptible(),
            cache.refusing_reuse(getattr(args, "no_cache", False)),
            _cycle_collection_paused(),
            _scratch_removed(),
        ):
            return _command(args)
    except Interrupted as exc:
        print(f"shiplint: interrupted ({exc})", file=sys.stderr)
        return exc.exit_code


@contextlib.contextmanager
def _scratch_removed() -> Iterator[None]:
    """Run a command, then wait until the temporary trees it left to be removed in the
    background are gone (scratch.scratch_tree): nothing outlives the command."""
    try:
        yield
    finally:
        from shiplint.scratch import removals_done

        removals_done()


@contextlib.contextmanager
def _cycle_collection_paused() -> Iterator[None]:
    """Run a command without the cyclic garbage collector, and restore it after.

    A run builds hundreds of thousands of containers that live to its end (binary
    records, relocations, models, the modules it imports) and almost no cyclic garbage
    (a few hundred objects on the 1.5.1 Linux wheel, the same peak memory over nine
    wheels): each collection walked those young objects and freed nothing, about 50 ms
    of a warm wheel run. Reference counting still frees everything else at once.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _command(args: argparse.Namespace) -> int:
    try:
        if args.command == "check":
            return _check(args)
        if args.command == "diff":
            return _diff(args)
        if args.command == "init":
            return _init(args)
        if args.command == "rules":
            return _rules()
        if args.command == "explain":
            return _explain(args.code)
        if args.command == "validate-manifest":
            return _validate(args.path, args.root)
        _parser().print_help(sys.stderr)
        return EXIT_ERROR
    except InputError as exc:
        for problem in exc.problems:
            print(f"shiplint: error: {problem.render()}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader went away (`shiplint rules | head`): stop quietly, as a pipe stage should.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        print("shiplint: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # never a bare traceback for a user
        if os.environ.get("SHIPLINT_DEBUG"):
            import traceback

            traceback.print_exc()
        detail = escape_text(f"{type(exc).__name__}: {exc}")[:500]
        print(
            f"shiplint: internal error: {detail}\n"
            "shiplint: this is a defect in shiplint, not a problem with your input; please file "
            "an issue with the command and the output of SHIPLINT_DEBUG=1",
            file=sys.stderr,
        )
        return EXIT_ERROR


def _usage_error(message: str) -> int:
    print(f"shiplint: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _split_codes(values: list[str]) -> tuple[str, ...]:
    return tuple(code.strip() for value in values for code in value.split(",") if code.strip())


def _check(args: argparse.Namespace) -> int:
    from shiplint.artifacts.kinds import ArtifactError
    from shiplint.report import FORMATS

    if args.format not in FORMATS:
        return _usage_error(f"unknown --format {args.format!r} (choose from {', '.join(FORMATS)})")
    shaping = [
        flag for flag, on in (("--statistics", args.statistics), ("--quiet", args.quiet)) if on
    ]
    if shaping and args.format != "text":
        return _usage_error(
            f"{' and '.join(shaping)} shape the text report; --format {args.format} is "
            "always complete"
        )
    root: Path = args.root
    if not root.is_dir():
        return _usage_error(f"--root {root}: not a directory")
    artifacts: tuple[Path, ...] = ()
    if args.artifacts:
        # The archive readers load only for a run given artifacts: a hook's start-up.
        from shiplint.artifacts.inputs import artifact_inputs

        try:
            artifacts = artifact_inputs(args.artifacts)
        except ArtifactError as exc:
            return _usage_error(str(exc))
    if args.no_sources and not artifacts:
        return _usage_error("nothing to check: --no-sources and no ARTIFACT given")
    return _check_in(args, root, artifacts)


def _check_in(args: argparse.Namespace, root: Path, artifacts: tuple[Path, ...]) -> int:
    from shiplint.areas import Input, plan
    from shiplint.codes import rule_codes, unknown_patterns
    from shiplint.config import load_config
    from shiplint.registry import rules_for
    from shiplint.request import Progress, RunRequest
    from shiplint.selection import Selection

    config = load_config(root)
    select = _split_codes(args.select) or config.select
    ignore = _split_codes(args.ignore) or config.ignore
    unknown = unknown_patterns((*select, *ignore), rule_codes())
    if unknown:
        return _usage_error(
            f"unknown rule code {unknown[0]!r} in --select/--ignore (see `shiplint rules`)"
        )

    manifest_path = args.manifest or _configured_manifest(root, config)
    if not manifest_path.is_file():
        return _usage_error(
            f"{manifest_path}: no manifest (give --manifest, or set manifest in [tool.shiplint])"
        )
    request = RunRequest(
        root=root,
        check_sources=not args.no_sources,
        artifacts=artifacts,
        cmake=(),
        link_probe=args.link_probe or config.link_probe,
        header_probe=args.header_probe or config.header_probe,
        cmake_timeout=config.cmake_timeout,
        selection=Selection(select, ignore),
    )
    run = plan(request, rules_for(request), request.selection)
    progress = Progress(enabled=True if args.verbose else None)
    # The binary reader is made only when a selected rule reads binaries, before the
    # CMakes are asked their versions and the manifest is read, so that whatever it
    # starts (`shiplint.artifacts.reading.session`) overlaps those.
    reading: contextlib.AbstractContextManager[Reader | None] = contextlib.nullcontext()
    if run.reads(Input.BINARIES):
        from shiplint.artifacts.reading import opened

        reading = opened(artifacts, progress.step)
    with reading as reader:
        warming: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
        if run.reads(Input.CMAKE):
            try:
                request = replace(request, cmake=_usable_cmakes(args.cmake, config))
            except _CMakeChoiceError as exc:
                return _usage_error(str(exc))
            from shiplint.cmake_eval.warm_up import warming as tools_warming
            from shiplint.cmake_eval.warm_up import wheel_systems

            # What the evaluations first ask of this machine, made while the manifest
            # is validated and the artifacts are read (kept: a no-op when warm).
            warming = tools_warming(
                request.cmake, wheel_systems(request.artifacts), request.evaluation_timeout
            )
        with warming:
            return _check_with(args, request, manifest_path, config.fail_on, progress, reader)


def _check_with(
    args: argparse.Namespace,
    request: RunRequest,
    manifest_path: Path,
    config_fail_on: Severity | None,
    progress: Progress,
    reader: Reader | None,
) -> int:
    from shiplint.artifacts.kinds import ArtifactError
    from shiplint.engine import lint
    from shiplint.manifest.load import load_manifest
    from shiplint.pipeline import collect_models
    from shiplint.registry import rules_for
    from shiplint.report import PICTURED
    from shiplint.report.model import Report

    root = request.root
    manifest = load_manifest(manifest_path, _display(manifest_path, root))
    # Only the rules this run can use are imported (with the models they read).
    rules = rules_for(request)
    try:
        models = collect_models(request, manifest, rules, progress, reader)
    except ArtifactError as exc:
        return _usage_error(str(exc))
    diagnostics = lint(rules, manifest, models, request.selection)
    fail_on = parse_fail_on(args.fail_on) if args.fail_on else config_fail_on
    picture = ""
    # The picture draws built artifacts: a run over the sources alone has none to draw,
    # and does not pay for importing what draws them.
    if args.format in PICTURED and request.artifacts:
        from shiplint.picture.pictures import check_picture
        from shiplint.snapshot import artifact_snapshots

        builds = artifact_snapshots(models, manifest.cmake.package)
        picture = check_picture(builds, manifest, diagnostics) if builds else ""
    report = Report(tuple(diagnostics), fail_on, root.resolve(), picture=picture)
    text = _rendered(args, report)
    failed = _emit(text, args.output)
    if failed is not None:
        return failed
    return EXIT_CLEAN if report.passed else EXIT_FINDINGS


def _diff(args: argparse.Namespace) -> int:
    from shiplint.artifacts.archive import ArtifactError
    from shiplint.artifacts.inputs import artifact_inputs
    from shiplint.artifacts.reading import opened
    from shiplint.config import load_config
    from shiplint.diff.compare import compare
    from shiplint.diff.read import NO_MANIFEST, read_side
    from shiplint.diff.render import FORMATS, PICTURED, render
    from shiplint.manifest.load import load_manifest
    from shiplint.request import Progress

    if args.format not in FORMATS:
        return _usage_error(f"unknown --format {args.format!r} (choose from {', '.join(FORMATS)})")
    if args.cmake and args.manifest is None:
        return _usage_error("--cmake needs --manifest: it names where the config is installed")
    try:
        old, new = artifact_inputs([args.old]), artifact_inputs([args.new])
        cmakes = _usable_cmakes(args.cmake, load_config(Path("."))) if args.cmake else ()
    except ArtifactError as exc:
        return _usage_error(str(exc))
    except _CMakeChoiceError as exc:
        return _usage_error(str(exc))
    manifest = load_manifest(args.manifest) if args.manifest else NO_MANIFEST
    progress = Progress()
    # One reader for both sides: what it starts is started once.
    with opened((*old, *new), progress.step) as reader:
        try:
            before = read_side(old, manifest, cmakes, reader, progress)
            after = read_side(new, manifest, cmakes, reader, progress)
        except ArtifactError as exc:
            return _usage_error(str(exc))
    for given, side in ((args.old, before), (args.new, after)):
        if all(s.platform == "unknown" and not s.libraries for s in side):
            return _usage_error(f"{given}: no wheel, archive or shared library to compare")
    result = compare(before, after, tuple(map(str, old)), tuple(map(str, new)))
    picture = ""
    if args.format in PICTURED:
        from shiplint.picture.pictures import diff_picture

        picture = diff_picture(before, after, manifest, result)
    text = render(result, args.format, picture)
    failed = _emit(text, args.output)
    if failed is not None:
        return failed
    return EXIT_FINDINGS if result.fails else EXIT_CLEAN


def _init(args: argparse.Namespace) -> int:
    from shiplint.artifacts.archive import ArtifactError
    from shiplint.artifacts.inputs import artifact_inputs
    from shiplint.artifacts.reading import opened
    from shiplint.config import load_config
    from shiplint.init.command import InitError, run_init
    from shiplint.request import Progress

    output: Path = args.output
    to_stdout = str(output) == "-"
    if not to_stdout and output.exists() and not args.force:
        return _usage_error(f"--output {output}: exists; pass --force to overwrite it")
    # Said before the artifacts are read, not after a minute of reading them.
    if not to_stdout and not output.parent.is_dir():
        return _usage_error(f"--output {output}: {output.parent} is not a directory")
    if args.root is not None and not args.root.is_dir():
        return _usage_error(f"--root {args.root}: not a directory")
    try:
        artifacts = artifact_inputs(args.artifacts)
        cmakes = _usable_cmakes(args.cmake, load_config(Path(".")))
    except ArtifactError as exc:
        return _usage_error(str(exc))
    except _CMakeChoiceError as exc:
        return _usage_error(str(exc))
    if not cmakes:
        return _usage_error("init evaluates the package config: give --cmake PATH (one per route)")
    progress = Progress()
    with opened(artifacts, progress.step) as reader:
        try:
            result = run_init(
                artifacts, cmakes, args.root, reader, progress, check_command=_check_command(args)
            )
        except (ArtifactError, InitError) as exc:
            return _usage_error(str(exc))
    for line in result.disagreements:
        print(f"shiplint: routes disagree: {line}", file=sys.stderr)
    for line in result.warnings:
        print(f"shiplint: warning: {line}", file=sys.stderr)
    if to_stdout:
        return EXIT_CLEAN if _write_stdout(result.text) else EXIT_ERROR
    failed = _emit(result.text, output)
    if failed is not None:
        return failed
    print(
        f"shiplint: wrote {output}: {counted(result.libraries, 'library', 'libraries')}, "
        f"{counted(result.components, 'component')}",
        file=sys.stderr,
    )
    return EXIT_CLEAN


def _check_command(args: argparse.Namespace) -> str:
    """The check that reads what this init read, spelled as the user spelled the inputs:
    the sources only when --root named them (a manifest init wrote without them names no
    sources, and a directory without a CMakeLists.txt has none to walk)."""
    import shlex

    words = ["shiplint", "check"]
    words += ["--root", str(args.root)] if args.root is not None else ["--no-sources"]
    manifest = "shiplint.yaml" if str(args.output) == "-" else str(args.output)
    words += ["--manifest", manifest]
    for cmake in args.cmake:
        words += ["--cmake", cmake]
    words += [str(a) for a in args.artifacts]
    return shlex.join(words)


def _emit(text: str, output: Path | None) -> int | None:
    """Write a report to --output or stdout; the exit code when that fails, else None."""
    if output:
        try:
            output.write_text(text, encoding="utf-8", errors="backslashreplace")
        except OSError as exc:
            return _usage_error(f"--output {output}: cannot write: {exc.strerror or exc}")
    elif not _write_stdout(text):
        return EXIT_ERROR
    return None


def _write_stdout(text: str) -> bool:
    """Write the report; a closed or full stdout is said, as the user's environment's fault."""
    if sys.stdout is None:  # started with descriptor 1 closed
        _usage_error("cannot write the report: standard output is closed (use --output FILE)")
        return False
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        # What is still buffered would fail again when Python exits: drop it.
        devnull = os.open(os.devnull, os.O_WRONLY)
        with contextlib.suppress(OSError, ValueError):
            os.dup2(devnull, sys.stdout.fileno())
        _usage_error(f"cannot write the report to standard output: {exc.strerror or exc}")
        return False
    return True


def _rendered(args: argparse.Namespace, report: Report) -> str:
    from shiplint.report import reporter

    if args.format != "text":
        return reporter(args.format)(report)
    from shiplint.report.colour import Palette, wants_colour
    from shiplint.report.text import render

    colour = args.output is None and wants_colour(sys.stdout, os.environ)
    return render(report, palette=Palette(colour), statistics=args.statistics, quiet=args.quiet)


def _configured_manifest(root: Path, config: Config) -> Path:
    """The manifest [tool.shiplint] names, else shiplint.yaml under the root."""
    return config.manifest or root / "shiplint.yaml"


def _display(path: Path, root: Path) -> str:
    """Paths in reports are relative to the checked root when they are inside it."""
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


class _CMakeChoiceError(Exception):
    """A CMake named on the command line or found on PATH that cannot be used."""


def _usable_cmakes(given: list[str], config: Config) -> tuple[str, ...]:
    """The run's CMakes as absolute paths, each checked once before any evaluation.

    `--cmake` paths are relative to the current directory, `[tool.shiplint] cmake`
    entries to their pyproject.toml (already made so by the config); bare names are
    looked up on PATH. None at all is not an error here: the evaluation says so.
    """
    import shutil

    from shiplint.artifacts.archive import printable
    from shiplint.cmake_eval.cmake_binary import CMakeUnusable, identify, located

    if given:
        named = [(located(name, Path.cwd()), f"--cmake {name}") for name in given]
    elif config.cmake:
        named = [(name, "") for name in config.cmake]
    else:
        found = shutil.which("cmake")
        named = [(found, "cmake on PATH")] if found else []
    usable: list[str] = []
    for name, origin in named:
        try:
            usable.append(identify(name).path)
        except CMakeUnusable as exc:
            if origin:
                shown = origin if exc.path in origin else f"{origin} ({exc.path})"
                # Printed to a terminal: a name or an output line cannot carry escapes.
                raise _CMakeChoiceError(printable(f"{shown}: {exc.reason}")) from None
            where = Problem(
                Location(config.source or "pyproject.toml", config.cmake_line, 1),
                "tool.shiplint.cmake",
                printable(f"CMake {exc.path}: {exc.reason}"),
            )
            raise InputError([where]) from None
    return tuple(usable)


def _rules() -> int:
    from shiplint.catalogue import catalogue
    from shiplint.registry import RULES

    docs = catalogue()
    for rule in RULES:
        doc = docs[rule.code]
        print(f"{doc.code}  {doc.slug:<40} {doc.severity.value:<8} {doc.summary}")
    return EXIT_CLEAN


def _explain(name: str) -> int:
    from shiplint.catalogue import catalogue, render_page

    docs = catalogue()
    by_slug = {doc.slug: doc for doc in docs.values()}
    doc = docs.get(name.upper()) or by_slug.get(name.lower())
    if doc is None:
        return _usage_error(
            f"unknown rule {name!r}: neither a code nor a slug{did_you_mean(name, by_slug)} "
            "(see `shiplint rules`)"
        )
    print(render_page(doc))
    return EXIT_CLEAN


def _validate(given: Path | None, root: Path) -> int:
    from shiplint.config import load_config
    from shiplint.manifest.load import load_manifest

    if given is not None:
        path = given
    elif not root.is_dir():
        return _usage_error(f"--root {root}: not a directory")
    else:
        path = _configured_manifest(root, load_config(root))
    if not path.exists():
        if given is None:
            return _usage_error(
                f"{path}: no manifest (give PATH, or set manifest in [tool.shiplint])"
            )
        return _usage_error(f"{path}: no such file")
    manifest = load_manifest(path)
    print(
        f"{path}: valid manifest for {manifest.name}: "
        f"{counted(len(manifest.libraries), 'library', 'libraries')}, "
        f"{counted(len(manifest.components), 'component')}, "
        f"{counted(len(manifest.aggregates), 'aggregate')}"
    )
    return EXIT_CLEAN
