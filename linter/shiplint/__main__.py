from __future__ import annotations

import signal
import sys
from types import FrameType


def _stop_early(signum: int, frame: FrameType | None) -> None:
    # Before the CLI's own handlers are in place (its imports take a moment): end as an
    # interrupted run does, not with a KeyboardInterrupt traceback from inside an import.
    raise SystemExit(128 + signum)


for _sig in (signal.SIGINT, signal.SIGTERM):
    if signal.getsignal(_sig) is not signal.SIG_IGN:
        signal.signal(_sig, _stop_early)

from shiplint.cli import main  # noqa: E402 - after the handlers, on purpose

sys.exit(main())
