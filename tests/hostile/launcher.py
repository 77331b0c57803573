"""Run one command and write its pid and its peak memory: `launcher.py REPORT COMMAND...`.

The campaign runs every case through this small process instead of starting it
directly: on Linux a process started by exec keeps the high-water mark of the
memory it was started from (with vfork, the whole campaign's), so a case's
ru_maxrss would report the campaign's peak. Forked from this small process, the
case's own peak is what wait4 returns. The exit status is passed on, a death by
signal as the same signal.
"""

from __future__ import annotations

import os
import signal
import sys


def main() -> None:
    report, argv = sys.argv[1], sys.argv[2:]
    pid = os.fork()
    if pid == 0:
        try:
            # A campaign started in the background inherits SIGINT ignored; the case must
            # get it as a user's terminal would deliver it.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    with open(report + ".pid", "w") as out:
        out.write(str(pid))
    # Signals aimed at the group (a timeout) end this process too; the case gets them itself.
    _, status, usage = os.wait4(pid, 0)
    with open(report, "w") as out:
        out.write(str(usage.ru_maxrss))
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
