"""The hostile-input and fault campaign: generated cases, each run as a whole process.

    python -m tests.hostile.campaign                 # the long form (by hand)
    python -m tests.hostile.campaign --short         # the short form CI runs
    python -m tests.hostile.campaign --classes configs --count 40 --seed 7 --json out.json

Every case is reproducible from its class, index and seed. Per case it records the
exit code, a traceback or "internal error" in the output, wall time, peak memory,
files created outside the run's temporary directory, temporary files left behind,
processes left behind, and forbidden text (a secret, a file from outside the checked
tree, a raw terminal escape) in the output. Prints one line per failing case and a
table per class; exits 1 when any case failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.hostile import (
    cases_archives,
    cases_binaries,
    cases_cache,
    cases_configs,
    cases_confinement,
    cases_faults,
    cases_manifests,
    cases_pyproject,
    cases_sources,
)
from tests.hostile.runner import Case, Record, become_subreaper, run_case

CLASSES: dict[str, Callable[[int, int], Iterator[Case]]] = {
    "binaries": cases_binaries.cases,
    "archives": cases_archives.cases,
    "manifests": cases_manifests.cases,
    "pyproject": cases_pyproject.cases,
    "sources": cases_sources.cases,
    "configs": cases_configs.cases,
    "confinement": cases_confinement.cases,
    "faults": cases_faults.cases,
    "cache": cases_cache.cases,
}
# Cases per class: the long form covers every generator several times; the short form
# (CI, fixed seed) one pass over the cheapest ones.
LONG = {
    "binaries": 200,
    "archives": 100,
    "manifests": 160,
    "pyproject": 70,
    "sources": 80,
    "configs": 60,
    "confinement": 18,
    "faults": 33,
    "cache": 22,
}
SHORT = {
    "binaries": 6,
    "archives": 12,
    "manifests": 8,
    "pyproject": 8,
    "sources": 8,
    "configs": 6,
    "confinement": 9,
    "faults": 4,
    "cache": 4,
}
# Past this many seconds a case is a hang (the acceptance bound is 30 s per case).
LIMIT = 60.0


def run(
    classes: list[str],
    counts: dict[str, int],
    seed: int,
    limit: float,
    only: str | None = None,
    echo: Callable[[str], None] = print,
) -> list[Record]:
    become_subreaper()
    records: list[Record] = []
    for klass in classes:
        for case in CLASSES[klass](counts[klass], seed):
            if only and only != case.name:
                continue
            record = run_case(case, limit)
            records.append(record)
            if record.failed:
                echo(_failure(record))
    return records


def _failure(r: Record) -> str:
    what = [
        k for k in ("timed_out", "traceback", "internal_error", "unexpected_exit") if getattr(r, k)
    ]
    what += [
        f"{k}={getattr(r, k)}"
        for k in ("outside", "leftover_temp", "strays", "leaked", "connections", "missing")
        if getattr(r, k)
    ]
    tail = r.stderr_tail.strip().splitlines()[-1:] if r.stderr_tail.strip() else []
    return (
        f"FAIL {r.klass}/{r.name} seed={r.seed} exit={r.exit} {r.seconds}s "
        f"{r.peak_mib}MiB {' '.join(what)} {tail!r}"
    )


def summary(records: list[Record]) -> str:
    """The figures per class, as a Markdown table."""
    lines = [
        "| class | cases | internal errors | tracebacks | hangs | wrong exit | writes outside "
        "| temp left | stray processes | leaks | connections | findings hidden | peak MiB | slowest s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    groups: dict[str, list[Record]] = {}
    for r in records:
        groups.setdefault(r.klass, []).append(r)
    groups["all"] = records
    for klass, rs in groups.items():
        if not rs:
            continue
        slowest = max(rs, key=lambda r: r.seconds)
        heaviest = max(rs, key=lambda r: r.peak_mib)
        lines.append(
            f"| {klass} | {len(rs)} | {sum(r.internal_error for r in rs)} "
            f"| {sum(r.traceback for r in rs)} | {sum(r.timed_out for r in rs)} "
            f"| {sum(r.unexpected_exit for r in rs)} | {sum(bool(r.outside) for r in rs)} "
            f"| {sum(bool(r.leftover_temp) for r in rs)} | {sum(bool(r.strays) for r in rs)} "
            f"| {sum(bool(r.leaked) for r in rs)} | {sum(r.connections for r in rs)} "
            f"| {sum(bool(r.missing) for r in rs)} "
            f"| {heaviest.peak_mib} ({heaviest.name}) "
            f"| {slowest.seconds} ({slowest.name}) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.hostile.campaign")
    parser.add_argument("--short", action="store_true", help="the bounded form CI runs")
    parser.add_argument("--classes", default=",".join(CLASSES))
    parser.add_argument("--count", type=int, help="cases per class (default: long or short form)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=float, default=LIMIT, help="seconds before a case hangs")
    parser.add_argument("--case", help="run only the case of this name (with its class and seed)")
    parser.add_argument("--json", type=Path, help="write every record here")
    args = parser.parse_args(argv)
    classes = [c for c in args.classes.split(",") if c]
    unknown = set(classes) - set(CLASSES)
    if unknown:
        parser.error(f"unknown classes {sorted(unknown)} (choose from {', '.join(CLASSES)})")
    counts = {k: args.count or (SHORT if args.short else LONG)[k] for k in CLASSES}
    records = run(
        classes, counts, args.seed, args.limit, args.case, lambda line: print(line, flush=True)
    )
    if args.json:
        args.json.write_text(json.dumps([r.as_dict() for r in records], indent=1))
    print(summary(records))
    return 1 if any(r.failed for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
