"""`GET /repos/{owner}/{repo}`: what GitHub says of one repository, as a chat command needs it.

    found = await look_up_repository("astral-sh/uv", token=token, api_url=api_url)
    if found.outcome == "found" and found.info.is_public and not found.info.archived: ...

One request, no waiting: a chat user is answered at once, so a rate limit or an unreachable
GitHub becomes an outcome with the minutes to wait, never a retry loop. A renamed or
transferred repository answers 301; the one redirect is followed only to a repository path
on the same API host (the token never goes elsewhere) and the answer carries the new name.
A name GitHub would not allow (`..`, a third segment, non-ASCII) is "missing" without a
request (see `digest.sources.github.names`). With `etag` the request
is conditional, and an unchanged repository answers 304 (`"unchanged"`), which costs no
quota. The token is sent only in the Authorization header and never appears in an outcome.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from digest.sources.github.names import is_repository_name, repository_path
from digest.sources.github.retry import endpoints, token_from_environment

Outcome = Literal["found", "unchanged", "missing", "limited", "unreachable"]
UNREACHABLE_WAIT_MINUTES = 5


@dataclass(frozen=True, slots=True)
class RepositoryInfo:
    """The fields of GitHub's full repository that decide whether it may be followed."""

    full_name: str
    name: str
    default_branch: str
    private: bool
    visibility: str
    archived: bool

    @property
    def is_public(self) -> bool:
        """Public by both of GitHub's signs: not `private`, and `visibility` "public"."""
        return not self.private and self.visibility == "public"


@dataclass(frozen=True, slots=True)
class RepositoryLookup:
    """What one look-up found: `info` when `found`, `retry_minutes` when `limited` or
    `unreachable`, `etag` of a `found` answer (for the next conditional look-up)."""

    outcome: Outcome
    info: RepositoryInfo | None = None
    etag: str | None = None
    retry_minutes: int = 0


def _headers(token: str | None, etag: str | None) -> dict[str, str]:
    headers = {
        "User-Agent": "the-wire",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
    }
    if token:
        headers["Authorization"] = f"bearer {token}"
    if etag:
        headers["If-None-Match"] = etag
    return headers


def _minutes_until(response: httpx.Response) -> int:
    """Minutes until a rate limit lifts: `retry-after`, else `x-ratelimit-reset`."""
    if retry_after := response.headers.get("retry-after"):
        seconds = float(retry_after)
    else:
        seconds = float(response.headers.get("x-ratelimit-reset") or time.time() + 60) - time.time()
    return max(1, math.ceil(seconds / 60))


def _limited(response: httpx.Response) -> bool:
    if response.status_code == 429:
        return True
    if response.status_code != 403:
        return False
    return (
        response.headers.get("x-ratelimit-remaining") == "0"
        or "retry-after" in response.headers
        or "rate limit" in response.text.lower()
    )


_MOVED = re.compile(r"/repositories/[0-9]+|/repos/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", re.ASCII)


def _is_moved_repository(location: str, rest_url: str) -> bool:
    """True when a redirect points at a repository on the API host itself: by id, as
    GitHub's 301 for a renamed repository does, or by a valid name."""
    if not location.startswith(rest_url + "/"):
        return False
    path = location[len(rest_url) :]
    if path.startswith("/repos/"):
        return is_repository_name(path.removeprefix("/repos/"))
    return _MOVED.fullmatch(path) is not None


def _info(body: dict[str, Any]) -> RepositoryInfo:
    return RepositoryInfo(
        full_name=str(body["full_name"]),
        name=str(body["name"]),
        default_branch=str(body.get("default_branch") or "main"),
        private=bool(body.get("private", True)),
        visibility=str(body.get("visibility") or ("private" if body.get("private") else "")),
        archived=bool(body.get("archived") or body.get("disabled")),
    )


async def look_up_repository(
    repo: str,
    *,
    token: str | None = None,
    api_url: str = "https://api.github.com",
    etag: str | None = None,
    client: httpx.AsyncClient | None = None,
    timeout: float = 10.0,
) -> RepositoryLookup:
    """Ask GitHub about `repo` (OWNER/NAME) once, following one same-host redirect."""
    if not is_repository_name(repo):
        return RepositoryLookup("missing")
    rest_url, _ = endpoints(api_url)
    headers = _headers(token or token_from_environment(), etag)
    owned = client is None
    http = client or httpx.AsyncClient(timeout=httpx.Timeout(timeout))
    try:
        url = rest_url + repository_path(repo)
        for _hop in range(2):
            response = await http.get(url, headers=headers)
            location = response.headers.get("location", "")
            if response.status_code in (301, 302, 307, 308) and _is_moved_repository(
                location, rest_url
            ):
                url = location
                continue
            break
    except httpx.TransportError:
        return RepositoryLookup("unreachable", retry_minutes=UNREACHABLE_WAIT_MINUTES)
    finally:
        if owned:
            await http.aclose()
    status = response.status_code
    if status == 304:
        return RepositoryLookup("unchanged", etag=etag)
    if _limited(response):
        return RepositoryLookup("limited", retry_minutes=_minutes_until(response))
    if status >= 500:
        return RepositoryLookup("unreachable", retry_minutes=UNREACHABLE_WAIT_MINUTES)
    if status != 200:  # 404, a 403 refusal, a redirect off the API host: nothing to follow
        return RepositoryLookup("missing")
    try:
        info = _info(response.json())
    except (ValueError, KeyError, TypeError):
        return RepositoryLookup("unreachable", retry_minutes=UNREACHABLE_WAIT_MINUTES)
    return RepositoryLookup("found", info=info, etag=response.headers.get("etag"))
