"""How git is run for `git:PATH`: offline, on that repository only, and what its errors say."""

from __future__ import annotations

import os
import re
from pathlib import Path

# Variables that would make git read some other repository than the one at PATH.
REPO_LOCATING_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)


def complaint(stderr: bytes) -> str:
    """The line of git's stderr that says what went wrong: its last fatal error, if any."""
    lines = [line.strip() for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (errors or lines or ["no error message"])[-1]


def without_credentials(url: str) -> str:
    """`url` without any user or token before its host, fit for an error message."""
    return re.sub(r"//[^@/]+@", "//", url)


def offline_environment(root: Path) -> dict[str, str]:
    """The environment for git: this repository only, no prompts, no fetching, no transports."""
    env = {k: v for k, v in os.environ.items() if k not in REPO_LOCATING_VARIABLES}
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_NO_LAZY_FETCH="1",  # never fetch missing objects (git 2.39.4, 2.45.1 and later)
        GIT_ALLOW_PROTOCOL="",  # and for older git: every transport is disallowed
        GIT_OPTIONAL_LOCKS="0",
        GIT_CEILING_DIRECTORIES=str(root.parent),
        LC_ALL="C",
    )
    return env
