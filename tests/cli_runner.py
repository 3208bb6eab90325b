"""`wire` in-process through typer's runner, leaving the process's logging as it was.

`wire run` configures logging (`logging.basicConfig`) on the runner's captured stderr;
that handler would outlive the run and write to a closed stream, so it is removed again.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from typer.testing import CliRunner, Result

from bot.app.cli import app


def invoke(args: Sequence[str], *, env: Mapping[str, str | None]) -> Result:
    """Run `wire ARGS` with `env` laid over the environment; stdout and stderr apart."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        return CliRunner().invoke(app, list(args), env=env)
    finally:
        for handler in root.handlers:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
