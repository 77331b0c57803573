"""Answer every component request of the probe, also when one stops CMake with a fatal error.

A config may refuse a request loudly: a nested `find_package(<dep> REQUIRED)` (the
config passes its own REQUIRED on, as Boost-style configs do for each component) or
anything else that raises a fatal error ends the whole configure run, in CMake 3.x
and 4.x alike: no later subdirectory is processed. That refusal is the request's
answer (a consumer's configure fails with that message), not a broken config, and it
must not cost the answers of the requests after it.

The batched run stays the common case: one CMake process answers everything. Each
request writes a record when it begins and one when it ends, so after a run that a
fatal error stopped, the request begun and never ended is the one that raised it; its
answer is that error. The requests still unanswered (and, when the stopped one asked
for several components at once, each of those alone) are asked in a further run
without the plain evaluation, and so on until every request has an answer: one more
run per fatal refusal, none when nothing is fatal.

Errors that do not stop the run (a `set_target_properties` on a target the config
never defined) are attributed to the request on whose call stack they arose: that
request fails for a consumer too; the plain evaluation is not blamed for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from shiplint.cmake_eval.probe import ProbeFiles, request_dir
from shiplint.cmake_eval.results import PathMapper, Raw, cmake_errors, read_results
from shiplint.cmake_eval.run import Confinement, RunOutcome
from shiplint.fastclass import dataclass


@dataclass(frozen=True)
class ProbeRun:
    """One configure run of a probe, and how to read its paths back."""

    probe: ProbeFiles
    outcome: RunOutcome
    mapper: PathMapper


@dataclass(frozen=True)
class Answers:
    """The first run (the one with the plain evaluation), every request's answer by its
    directory name (from whichever run gave it), and the runs' combined outcome."""

    first: ProbeRun
    results: dict[str, Raw]
    outcome: RunOutcome
    runs: int
    # Every run's probe, the first one first.
    probes: tuple[ProbeFiles, ...] = ()


# Runs one probe: all of it (None), or only the named request directories (a resume).
Runner = Callable[[frozenset[str] | None, int], ProbeRun]


def answer_all(
    run: Runner, requests: Sequence[tuple[str, ...]], package: str, deadline: float
) -> Answers:
    """Run the probe, then resume it after every fatal refusal until each request (and
    each component of a stopped batched request, alone) has an answer, or time is up."""
    first = run(None, 0)
    results: dict[str, Raw] = {}
    outcomes = [first.outcome]
    probes = [first.probe]
    current, asked = first, _all_dirs(requests)
    limit = len(asked) + 1
    while True:
        stopped = _read_run(current, asked, results)
        if current is first and stopped is None:
            break  # the batched run answered what it could (its retries included)
        if current.outcome.timed_out or current.outcome.halted:
            break  # the time limit or a stop from outside: no more runs
        pending = _pending(requests, package, results)
        if not pending or pending == asked or len(outcomes) >= limit:
            break  # all answered, or a run that answered nothing (it failed elsewhere)
        if time.monotonic() >= deadline:
            break
        current = run(pending, len(outcomes))
        asked = pending
        outcomes.append(current.outcome)
        probes.append(current.probe)
    return Answers(first, results, _combined(outcomes), len(outcomes), tuple(probes))


def _all_dirs(requests: Sequence[tuple[str, ...]]) -> frozenset[str]:
    names = set()
    for index, components in enumerate(requests):
        names.add(request_dir(index))
        if len(components) > 1:
            names.update(request_dir(index, position) for position in range(len(components)))
    return frozenset(names)


def _failed(outcome: RunOutcome) -> bool:
    return outcome.returncode not in (0, None) and not outcome.halted


def _read_run(run: ProbeRun, asked: frozenset[str], results: dict[str, Raw]) -> str | None:
    """Record the answers `run` gave for the directories it was asked; the name of the
    request it stopped in (begun, never ended), if any."""
    errors: dict[str, str] = {}
    for error in cmake_errors(run.outcome.stderr):
        if error.request is not None:
            errors.setdefault(error.request, run.mapper.text(error.message))
    stopped = None
    for name in sorted(asked):
        raw = read_results(run.probe.source_dir / "results" / f"{name}.jsonl", run.mapper)
        if not raw.present:
            continue
        if raw.begun and not raw.ended:
            if not _failed(run.outcome):
                continue  # stopped from outside (its time limit): no answer

            stopped = name
            # Nothing it published is known: the error is its whole answer.
            raw = Raw(present=True, begun=True)
        said = errors.get(name)
        if said is not None and not raw.variables.get("_shiplint_fatal", (False, ""))[1]:
            raw.variables["_shiplint_fatal"] = (True, said)
        results[name] = raw
    return stopped


def _pending(
    requests: Sequence[tuple[str, ...]], package: str, results: dict[str, Raw]
) -> frozenset[str]:
    """The request directories still without an answer that a consumer's run would reach."""
    pending = set()
    for index, components in enumerate(requests):
        name = request_dir(index)
        raw = results.get(name)
        if raw is None:
            pending.add(name)
            continue
        if len(components) < 2:
            continue
        stopped = not raw.ended
        for position, component in enumerate(components):
            # Asked alone when the batched answer says nothing of it: the run stopped in
            # the batch, or the config left <pkg>_<c>_FOUND unset (probe.py).
            unanswered = not raw.variables.get(f"{package}_{component}_FOUND", (False, ""))[0]
            single = request_dir(index, position)
            if (stopped or unanswered) and single not in results:
                pending.add(single)
    return frozenset(pending)


def _combined(outcomes: Sequence[RunOutcome]) -> RunOutcome:
    """The first run's outcome with the time of all, replayed only when every run was, and
    unconfined when any run was."""
    first = outcomes[0]
    unconfined = any(o.confinement is Confinement.NONE for o in outcomes)
    return replace(
        first,
        seconds=sum(o.seconds for o in outcomes),
        reused=all(o.reused for o in outcomes),
        confinement=Confinement.NONE if unconfined else first.confinement,
    )
