"""The trace reader never outlives its run, whether or not CMake wrote to its FIFO.

Its thread waits in open() until a writer comes; finish() must end it even when it is
called before the thread got there (a run that raised before CMake started, a CMake
that failed first), or a thread is left waiting on the FIFO for the process's life.
"""

from __future__ import annotations

import threading
from pathlib import Path

from shiplint.cmake_eval.trace import TraceReader


def test_a_reader_no_cmake_wrote_to_ends_with_an_incomplete_trace(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    # finish() at once, many times: some before the thread reached open(), some after.
    for index in range(40):
        reached = TraceReader(tmp_path / f"trace{index}.fifo").finish()
        assert not reached.complete and not reached.paths and not reached.programs
    assert set(threading.enumerate()) <= before


def test_a_reader_keeps_what_the_trace_reached(tmp_path: Path) -> None:
    fifo = tmp_path / "trace.fifo"
    reader = TraceReader(fifo)
    # As CMake's json-v1 trace writes a line: compact JSON.
    line = (
        '{"args":["COMMAND","python3","-c","pass"],"cmd":"execute_process",'
        '"file":"/x/pkg-config.cmake","line":1}\n'
    )
    with open(fifo, "w", encoding="utf-8") as stream:
        stream.write(line)
    reached = reader.finish()
    assert reached.complete and "python3" in reached.programs
