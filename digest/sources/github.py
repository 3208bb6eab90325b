"""`github:OWNER/REPO` — merged pull requests through GitHub's GraphQL API.

A poll of one window costs, in order:

1. One conditional REST probe, `GET /repos/{owner}/{repo}/commits?since=…&until=…&per_page=1`
   on the default branch. Every merge (merge commit, squash or rebase) puts a new commit on
   top of the branch, dated when it landed, and the list comes in history order, so the first
   commit of that list changes exactly when something lands in the window. We send the ETag of
   the last answer in `If-None-Match`; GitHub answers an unchanged list with 304, which costs no
   rate-limit quota, and we return the activity cached for that window without any GraphQL
   request. An empty list means nothing landed, so no GraphQL request is made either. The
   probe starts `PROBE_LEAD` before the window because a merge-queue commit is dated when its
   merge group was built, a little before the pull request counts as merged.
2. Otherwise ⌈merged/100⌉ pages of a GraphQL `search` for `is:pr is:merged merged:SINCE..UNTIL`,
   plus one request per further 100 files of a pull request that changed more than 100 files.
   Search is inclusive and second-granular, so results are filtered again to `[since, until)`;
   search never pages past 1,000 results, so a busier window is split in two and each half
   searched on its own.

Rate limits are honoured as GitHub documents them: `retry-after` on a secondary limit or a
429, `x-ratelimit-reset` once `x-ratelimit-remaining` reaches 0 (waiting at most `max_wait`),
and exponential back-off with full jitter for 5xx answers and network errors, for at most
`max_retries` retries. The token is sent only in the Authorization header; it never appears in
`repr`, logs or error messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr, TypeAdapter, ValidationError

from digest.errors import RemoteError, SourceError
from digest.model import Activity, FileChange, Window
from digest.sources.github_types import (
    ChangedFile,
    ChangedFileConnection,
    GraphQLError,
    GraphQLResponse,
    PullRequest,
    SearchResult,
)

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://api.github.com"
TOKEN_VARIABLES = ("WIRE_GITHUB__TOKEN", "GITHUB_TOKEN")
PROBE_LEAD = timedelta(hours=1)
SEARCH_CAP = 1000  # GitHub search never pages past this many results
BACKOFF_BASE = 1.0
BACKOFF_CAP = 60.0
SECONDARY_LIMIT_MIN_WAIT = 60.0  # "wait at least one minute" when GitHub gives no retry-after
STATUS_LETTERS = {
    "ADDED": "A",
    "DELETED": "D",
    "MODIFIED": "M",
    "RENAMED": "R",
    "COPIED": "C",
    "CHANGED": "T",
}

_FILES = (
    "totalCount pageInfo { hasNextPage endCursor } nodes { path additions deletions changeType }"
)
SEARCH_QUERY = f"""
query MergedPullRequests($search: String!, $after: String) {{
  rateLimit {{ cost remaining resetAt }}
  search(query: $search, type: ISSUE, first: 100, after: $after) {{
    issueCount
    pageInfo {{ hasNextPage endCursor }}
    nodes {{
      ... on PullRequest {{
        number title body url mergedAt
        author {{ login }}
        mergeCommit {{ oid }}
        labels(first: 100) {{ totalCount nodes {{ name }} }}
        files(first: 100) {{ {_FILES} }}
      }}
    }}
  }}
}}
"""
FILES_QUERY = f"""
query PullRequestFiles($owner: String!, $name: String!, $number: Int!, $after: String) {{
  rateLimit {{ cost remaining resetAt }}
  repository(owner: $owner, name: $name) {{
    pullRequest(number: $number) {{ files(first: 100, after: $after) {{ {_FILES} }} }}
  }}
}}
"""

Sleep = Callable[[float], Awaitable[Any]]


def endpoints(api_url: str) -> tuple[str, str]:
    """The REST base URL and the GraphQL URL behind `api_url`.

    github.com answers at https://api.github.com and …/graphql. GitHub Enterprise Server serves
    REST under https://HOST/api/v3 and GraphQL at https://HOST/api/graphql; `api_url` may name
    either https://HOST/api or https://HOST/api/v3.
    """
    base = api_url.rstrip("/")
    if base.endswith("/api/v3"):
        return base, base.removesuffix("/v3") + "/graphql"
    if base.endswith("/api"):
        return base + "/v3", base + "/graphql"
    return base, base + "/graphql"


class EtagCache:
    """The ETag of each window's probe and the activity it stood for, optionally kept in a file.

    A missing or unreadable file only costs a fresh fetch, so it is reported and ignored.
    """

    def __init__(self, path: str | Path | None = None, *, max_entries: int = 1024) -> None:
        self.path = Path(path) if path else None
        self.max_entries = max_entries
        self._entries: dict[str, dict[str, Any]] = {}
        if self.path and self.path.exists():
            self._entries = self._load(self.path)

    def __len__(self) -> int:
        return len(self._entries)

    @staticmethod
    def key(scope: str, window: Window) -> str:
        since, until = (
            moment.astimezone(UTC).isoformat() for moment in (window.since, window.until)
        )
        return f"{scope}|{since}|{until}"

    def get(self, scope: str, window: Window) -> tuple[str, list[Activity]] | None:
        """The (etag, activities) stored for this source scope and window, if any."""
        entry = self._entries.get(self.key(scope, window))
        if entry is None:
            return None
        return entry["etag"], _ACTIVITIES.validate_python(entry["activities"])

    def put(self, scope: str, window: Window, etag: str, activities: list[Activity]) -> None:
        """Remember `activities` under `etag`, dropping the oldest entry beyond `max_entries`."""
        key = self.key(scope, window)
        self._entries.pop(key, None)
        self._entries[key] = {
            "etag": etag,
            "activities": [activity.model_dump(mode="json") for activity in activities],
        }
        while len(self._entries) > self.max_entries:
            del self._entries[next(iter(self._entries))]
        if self.path:
            self._save(self.path)

    def _save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(path.suffix + ".partial")
        partial.write_text(json.dumps({"version": 1, "entries": self._entries}), encoding="utf-8")
        partial.replace(path)

    @staticmethod
    def _load(path: Path) -> dict[str, dict[str, Any]]:
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))["entries"]
            for entry in entries.values():
                _ACTIVITIES.validate_python(entry["activities"])
                str(entry["etag"])
            return dict(entries)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, ValidationError) as exc:
            log.warning("ignoring the GitHub ETag cache %s: %s", path, exc)
            return {}


_ACTIVITIES = TypeAdapter(list[Activity])


class GitHubSource:
    """Merged pull requests of one repository, read through GitHub's GraphQL API."""

    scheme = "github"

    def __init__(
        self,
        repo: str,
        *,
        token: str | None = None,
        api_url: str = DEFAULT_API_URL,
        cache: EtagCache | None = None,
        client: httpx.AsyncClient | None = None,
        max_retries: int = 5,
        max_wait: float = 900.0,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo):
            raise SourceError(f"github source needs OWNER/REPO, got {repo!r}")
        self.repo = repo
        self.owner, self.name = repo.split("/")
        self.api_url = api_url.rstrip("/")
        self.rest_url, self.graphql_url = endpoints(self.api_url)
        self.cache = cache if cache is not None else EtagCache()
        self.max_retries = max_retries
        self.max_wait = max_wait
        self._token = SecretStr(token or _token_from_environment() or "")
        self._client = client
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._resets: dict[str, float] = {}  # resource → when its used-up quota resets (epoch s)

    def __repr__(self) -> str:
        token = "set" if self._token.get_secret_value() else "none"
        return f"GitHubSource(repo={self.repo!r}, api_url={self.api_url!r}, token={token})"

    @property
    def description(self) -> str:
        if self.api_url == DEFAULT_API_URL:
            return f"github:{self.repo}"
        return f"github:{self.repo} at {self.api_url}"

    async def fetch(self, window: Window) -> AsyncIterator[Activity]:
        """Yield the pull requests merged in `window`, oldest first."""
        async with self._http() as http:
            activities = await self._poll(http, window)
        for activity in activities:
            yield activity

    @contextlib.asynccontextmanager
    async def _http(self) -> AsyncIterator[httpx.AsyncClient]:
        if self._client is not None:
            yield self._client
            return
        async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as client:
            yield client

    async def _poll(self, http: httpx.AsyncClient, window: Window) -> list[Activity]:
        """Probe the window; on a change, search it and remember the answer under the ETag."""
        cached = self.cache.get(self.description, window)
        probe = await self._request(
            http,
            "GET",
            f"{self.rest_url}/repos/{self.owner}/{self.name}/commits",
            params={
                "since": _search_time(window.since - PROBE_LEAD),
                "until": _search_time(window.until, up=True),
                "per_page": "1",
            },
            etag=cached[0] if cached else None,
        )
        if probe.status_code == 304 and cached:
            log.debug("%s: %s unchanged (304)", self.description, window.label())
            return cached[1]
        pulls = await self._search(http, window) if self._json(probe) else []
        activities = [
            activity_from_pull(self.repo, pull, await self._files(http, pull)) for pull in pulls
        ]
        for pull in pulls:
            if (labels := pull["labels"])["totalCount"] > len(labels["nodes"]):
                log.warning(
                    "%s: PR #%d has %d labels; kept the first %d",
                    self.description,
                    pull["number"],
                    labels["totalCount"],
                    len(labels["nodes"]),
                )
        activities.sort(key=lambda activity: (activity.landed_at, activity.number or 0))
        if etag := probe.headers.get("etag"):
            self.cache.put(self.description, window, etag, activities)
        return activities

    async def _search(self, http: httpx.AsyncClient, window: Window) -> list[PullRequest]:
        """The PRs merged in `window`; a window with more than search can page is split."""
        search = f"repo:{self.repo} is:pr is:merged merged:{_search_range(window)}"
        page = await self._search_page(http, search, after=None)
        if page["issueCount"] > SEARCH_CAP:
            if halves := _halves(window):
                return [pull for half in halves for pull in await self._search(http, half)]
            log.warning(
                "%s: search lists only %d of the %d PRs merged in %s",
                self.description,
                SEARCH_CAP,
                page["issueCount"],
                window.label(),
            )
        found = {node["number"]: node for node in page["nodes"] if node}
        while page["pageInfo"]["hasNextPage"]:
            page = await self._search_page(http, search, after=page["pageInfo"]["endCursor"])
            found.update((node["number"], node) for node in page["nodes"] if node)
        return [
            pull
            for pull in found.values()
            if pull["mergedAt"] and window.contains(_parse_time(pull["mergedAt"]))
        ]

    async def _search_page(
        self, http: httpx.AsyncClient, search: str, *, after: str | None
    ) -> SearchResult:
        data = await self._graphql(http, SEARCH_QUERY, {"search": search, "after": after})
        return data["search"]

    async def _files(self, http: httpx.AsyncClient, pull: PullRequest) -> list[ChangedFile]:
        """All files of `pull`, fetching pages past the first 100; a shortfall is logged."""
        connection: ChangedFileConnection | None = pull["files"]
        if connection is None:
            return []
        files = list(connection["nodes"])
        while connection["pageInfo"]["hasNextPage"]:
            variables = {
                "owner": self.owner,
                "name": self.name,
                "number": pull["number"],
                "after": connection["pageInfo"]["endCursor"],
            }
            data = await self._graphql(http, FILES_QUERY, variables)
            if not data.get("repository") or not data["repository"].get("pullRequest"):
                raise RemoteError(self._not_found(f"PR #{pull['number']} vanished"), status=404)
            connection = data["repository"]["pullRequest"]["files"]
            files.extend(connection["nodes"])
        if len(files) < connection["totalCount"]:
            log.warning(
                "%s: GitHub lists only %d of the %d files of PR #%d",
                self.description,
                len(files),
                connection["totalCount"],
                pull["number"],
            )
        return files

    async def _graphql(self, http: httpx.AsyncClient, query: str, variables: dict) -> dict:
        body = {"query": query, "variables": variables}
        response = await self._request(http, "POST", self.graphql_url, json=body)
        answer: GraphQLResponse = self._json(response)
        if errors := answer.get("errors"):
            raise self._graphql_error(errors)
        return answer.get("data") or {}

    async def _request(
        self,
        http: httpx.AsyncClient,
        method: str,
        url: str,
        *,
        etag: str | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        """Send a request, waiting out rate limits and retrying failures; raise on refusals."""
        resource = "graphql" if url == self.graphql_url else "core"
        headers = self._headers(rest=resource == "core", etag=etag)
        for attempt in range(1, self.max_retries + 2):
            await self._wait_for_reset(resource)
            try:
                response = await http.request(method, url, headers=headers, **kwargs)
            except httpx.TransportError as exc:
                if attempt > self.max_retries:
                    raise RemoteError(
                        self._redact(
                            f"GitHub could not be reached at {self.api_url} ({type(exc).__name__}) "
                            f"after {attempt} attempts; check the network and the API URL"
                        )
                    ) from None
                await self._pause(self._backoff(attempt), type(exc).__name__, attempt)
                continue
            self._note_quota(response, resource)
            wait, reason = self._retry_wait(response, resource, attempt)
            if wait is None:
                return self._checked(response)
            if attempt > self.max_retries:
                raise RemoteError(
                    f"GitHub kept answering {reason} for {self.repo} after {attempt} attempts; "
                    "try again later",
                    status=response.status_code,
                )
            await self._pause(wait, reason, attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def _headers(self, *, rest: bool, etag: str | None) -> dict[str, str]:
        headers = {"User-Agent": "the-wire", "Accept": "application/vnd.github+json"}
        if rest:
            headers["X-GitHub-Api-Version"] = "2022-11-28"
        if token := self._token.get_secret_value():
            headers["Authorization"] = f"bearer {token}"
        if etag:
            headers["If-None-Match"] = etag
        return headers

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            raise RemoteError(
                f"GitHub answered {response.status_code} for {self.repo} with a body that is not "
                f"JSON ({response.headers.get('content-type', 'no content type')}); check the API URL"
            ) from None

    def _retry_wait(
        self, response: httpx.Response, resource: str, attempt: int
    ) -> tuple[float | None, str]:
        """How long to wait before retrying `response` (None: do not retry), and why."""
        status = response.status_code
        limited = status in (403, 429) or (resource == "graphql" and _rate_limited(response))
        if limited and response.headers.get("x-ratelimit-remaining") == "0":
            reset = float(response.headers.get("x-ratelimit-reset") or time.time() + 60)
            wait = self._capped(reset - time.time() + 1, reset, resource, status)
            return wait, f"{status} (the {resource} rate limit is used up)"
        if limited and (retry_after := response.headers.get("retry-after")):
            seconds = float(retry_after)
            wait = self._capped(seconds, time.time() + seconds, resource, status)
            return wait, f"{status} (rate limited; retry-after {retry_after} s)"
        if status == 429:
            return self._backoff(attempt), "429 (too many requests)"
        if limited and "secondary rate limit" in _message(response).lower():
            return SECONDARY_LIMIT_MIN_WAIT + self._backoff(attempt), "403 (secondary rate limit)"
        if status >= 500:
            return self._backoff(attempt), f"{status} {response.reason_phrase}"
        return None, ""

    def _capped(self, seconds: float, moment: float, resource: str, status: int) -> float:
        """`seconds`, the wait until `moment`, unless it exceeds `max_wait`: then a RemoteError."""
        if seconds > self.max_wait:
            when = datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
            raise RemoteError(
                f"GitHub's {resource} rate limit for this token is used up until {when}, "
                f"later than the {self.max_wait:.0f} s we wait; try again after then",
                status=status,
            )
        return max(seconds, 0.0)

    def _backoff(self, attempt: int) -> float:
        """Exponential back-off with full jitter: uniform in [0, min(cap, base·2^(attempt-1))]."""
        return self._rng.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1)))

    async def _pause(self, seconds: float, reason: str, attempt: int) -> None:
        log.info(
            "GitHub answered %s for %s; waiting %.1f s before retry %d of %d",
            reason,
            self.repo,
            seconds,
            attempt,
            self.max_retries,
        )
        await self._sleep(seconds)

    def _note_quota(self, response: httpx.Response, resource: str) -> None:
        resource = response.headers.get("x-ratelimit-resource", resource)
        reset = response.headers.get("x-ratelimit-reset")
        if response.headers.get("x-ratelimit-remaining") == "0" and reset:
            self._resets[resource] = float(reset)
        else:
            self._resets.pop(resource, None)

    async def _wait_for_reset(self, resource: str) -> None:
        """Before a request, wait for the reset of a quota the last answer showed used up."""
        reset = self._resets.get(resource)
        if reset is not None and reset + 1 > time.time():
            seconds = self._capped(reset - time.time() + 1, reset, resource, 403)
            log.info(
                "GitHub's %s rate limit is used up; waiting %.1f s for it to reset",
                resource,
                seconds,
            )
            await self._sleep(seconds)

    def _checked(self, response: httpx.Response) -> httpx.Response:
        """`response` itself if it is not an error, else the RemoteError a person can act on."""
        status = response.status_code
        if status < 400:
            return response
        detail = f"{status} {_message(response)}"
        if status == 401 and self._token.get_secret_value():
            text = (
                f"GitHub rejected the token ({detail}); "
                "set GITHUB_TOKEN or WIRE_GITHUB__TOKEN to a valid token"
            )
        elif status == 401:
            text = f"GitHub needs a token ({detail}); set GITHUB_TOKEN or WIRE_GITHUB__TOKEN"
        elif status == 404:
            text = self._not_found(detail)
        elif status == 403:
            text = (
                f"GitHub refused access to {self.repo} ({detail}); "
                "check that the token may read this repository"
            )
        else:
            text = f"GitHub answered {detail} for {self.repo}"
        raise RemoteError(self._redact(text), status=status)

    def _graphql_error(self, errors: list[GraphQLError]) -> RemoteError:
        first = errors[0].get("message", "")
        if errors[0].get("type") == "NOT_FOUND" or "cannot be searched" in first:
            return RemoteError(self._redact(self._not_found(f"NOT_FOUND: {first}")), status=404)
        messages = "; ".join(error.get("message", "") for error in errors)
        text = f"GitHub's GraphQL API refused the query for {self.repo}: {messages}"
        return RemoteError(self._redact(text))

    def _not_found(self, detail: str) -> str:
        return (
            f"GitHub has no repository {self.repo} that this token can see ({detail}); "
            "check the name, or that the token has access to it"
        )

    def _redact(self, text: str) -> str:
        token = self._token.get_secret_value()
        return text.replace(token, "***") if token else text


def activity_from_pull(repo: str, pull: PullRequest, files: list[ChangedFile]) -> Activity:
    """Build an Activity from a merged PullRequest node and all its changed files."""
    return Activity(
        repo=repo,
        sha=(pull["mergeCommit"] or {}).get("oid") or f"pull-{pull['number']}",
        number=pull["number"],
        title=pull["title"],
        body=pull["body"] or "",
        author=(pull["author"] or {}).get("login") or "ghost",
        landed_at=_parse_time(pull["mergedAt"] or ""),
        url=pull["url"],
        labels=tuple(label["name"] for label in pull["labels"]["nodes"]),
        files=tuple(
            FileChange(
                path=file["path"],
                status=STATUS_LETTERS.get(file["changeType"], "M"),
                additions=file["additions"],
                deletions=file["deletions"],
            )
            for file in files
        ),
    )


def _token_from_environment() -> str | None:
    return next((os.environ[name] for name in TOKEN_VARIABLES if os.environ.get(name)), None)


def _search_time(moment: datetime, *, up: bool = False) -> str:
    """`moment` in UTC to the second (rounded up when `up`), as search and REST expect it."""
    moment = moment.astimezone(UTC)
    if up and moment.microsecond:
        moment = moment.replace(microsecond=0) + timedelta(seconds=1)
    return moment.replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def _search_range(window: Window) -> str:
    return f"{_search_time(window.since)}..{_search_time(window.until, up=True)}"


def _halves(window: Window) -> tuple[Window, Window] | None:
    """Two windows splitting `window` on a whole second, or None if it is too short."""
    middle = (window.since + (window.until - window.since) / 2).replace(microsecond=0)
    if not window.since < middle < window.until:
        return None
    return Window(since=window.since, until=middle), Window(since=middle, until=window.until)


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _rate_limited(response: httpx.Response) -> bool:
    return response.status_code == 200 and b'"RATE_LIMITED"' in response.content


def _message(response: httpx.Response) -> str:
    """GitHub's `message` (REST) or first error message (GraphQL), else the reason phrase."""
    with contextlib.suppress(ValueError, AttributeError, IndexError, KeyError, TypeError):
        body = response.json()
        if isinstance(body, dict) and body.get("message"):
            return str(body["message"])
        return str(body["errors"][0]["message"])
    return response.reason_phrase or "no message"
