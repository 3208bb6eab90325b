"""Repository names as GitHub allows them, and the REST paths built from them.

    is_repository_name("astral-sh/uv")    # True
    is_repository_name("../user")         # False: a dot segment would leave /repos/
    repository_path("astral-sh/uv")      # "/repos/astral-sh/uv"

A name typed in chat reaches GitHub with the Wire's token, so it must name a repository and
nothing else: two segments of ASCII letters, digits, `-`, `_` and `.`, neither of them `.` or
`..` (which an HTTP client resolves as a step up the path), an owner of at most 39 characters
and a repository of at most 100, as GitHub allows. Each segment is percent-encoded all the
same when it is put into a URL.
"""

from __future__ import annotations

import re
from urllib.parse import quote

MAX_OWNER = 39  # GitHub's limit for user and organization names
MAX_NAME = 100  # GitHub's limit for repository names
_SEGMENT = re.compile(r"[A-Za-z0-9_.-]+", re.ASCII)


def is_repository_name(text: str) -> bool:
    """True when `text` is OWNER/NAME as GitHub allows it (see the module docstring)."""
    owner, slash, name = text.partition("/")
    return bool(slash) and _is_segment(owner, MAX_OWNER) and _is_segment(name, MAX_NAME)


def _is_segment(segment: str, longest: int) -> bool:
    return (
        len(segment) <= longest
        and segment not in (".", "..")
        and _SEGMENT.fullmatch(segment) is not None
    )


def repository_path(repo: str) -> str:
    """`/repos/{owner}/{name}` for a valid `repo`, each segment percent-encoded; ValueError
    for anything else, so no other path of the API is ever reached with the token."""
    if not is_repository_name(repo):
        raise ValueError(f"not a repository name: {repo!r}")
    owner, name = repo.split("/")
    return f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"
