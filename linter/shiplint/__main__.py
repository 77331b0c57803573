from __future__ import annotations

import sys

from shiplint.cli import main

sys.exit(main())
