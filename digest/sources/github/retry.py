"""Requests to GitHub's API with its rate limits honoured, failures retried, refusals explained.

Rate limits are honoured as GitHub documents them: `retry-after` on a secondary limit or a
429, `x-ratelimit-reset` once `x-ratelimit-remaining` reaches 0 (waiting at most `max_wait`),
and exponential back-off with full jitter for 5xx answers and network errors, for at most
`max_retries` retries. The token is sent only in the Authorization header; it never appears in
`repr`, logs or error messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import httpx
from pydantic import SecretStr

from digest.backoff import full_jitter
from digest.errors import RemoteError
from digest.sources.github.payloads import GraphQLError, GraphQLResponse

log = logging.getLogger("digest.sources.github")

DEFAULT_API_URL = "https://api.github.com"
TOKEN_VARIABLES = ("WIRE_GITHUB__TOKEN", "GITHUB_TOKEN")
BACKOFF_BASE = 1.0
BACKOFF_CAP = 60.0
SECONDARY_LIMIT_MIN_WAIT = 60.0  # "wait at least one minute" when GitHub gives no retry-after

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


def token_from_environment() -> str | None:
    """The first GitHub token set in the environment (`TOKEN_VARIABLES`, in order), if any."""
    return next((os.environ[name] for name in TOKEN_VARIABLES if os.environ.get(name)), None)


class GitHubApi:
    """GitHub's REST and GraphQL endpoints as one repository's source uses them.

    Each request waits out a quota the last answer showed used up, retries what GitHub asks to
    retry, and turns a refusal into a RemoteError a person can act on.
    """

    def __init__(
        self,
        repo: str,
        *,
        token: str | None,
        api_url: str,
        max_retries: int,
        max_wait: float,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.repo = repo
        self.api_url = api_url.rstrip("/")
        self.rest_url, self.graphql_url = endpoints(self.api_url)
        self.max_retries = max_retries
        self.max_wait = max_wait
        self._token = SecretStr(token or token_from_environment() or "")
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._resets: dict[str, float] = {}  # resource → when its used-up quota resets (epoch s)

    @property
    def has_token(self) -> bool:
        """Whether requests carry a token."""
        return bool(self._token.get_secret_value())

    async def graphql(
        self, http: httpx.AsyncClient, query: str, variables: dict[str, Any]
    ) -> dict[str, Any]:
        """The `data` of a GraphQL query; GraphQL errors raise a RemoteError."""
        body = {"query": query, "variables": variables}
        response = await self.request(http, "POST", self.graphql_url, json=body)
        answer: GraphQLResponse = self.json(response)
        if errors := answer.get("errors"):
            raise self._graphql_error(errors)
        return answer.get("data") or {}

    async def request(
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
                        self.redact(
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

    def json(self, response: httpx.Response) -> Any:
        """The JSON body of `response`; a body that is not JSON raises a RemoteError."""
        try:
            return response.json()
        except ValueError:
            raise RemoteError(
                f"GitHub answered {response.status_code} for {self.repo} with a body that is not "
                f"JSON ({response.headers.get('content-type', 'no content type')}); check the API URL"
            ) from None

    def not_found(self, detail: str) -> str:
        """The message for a repository (or pull request) this token cannot see."""
        return (
            f"GitHub has no repository {self.repo} that this token can see ({detail}); "
            "check the name, or that the token has access to it"
        )

    def redact(self, text: str) -> str:
        """`text` with the token, should it appear, replaced by ***."""
        token = self._token.get_secret_value()
        return text.replace(token, "***") if token else text

    def _headers(self, *, rest: bool, etag: str | None) -> dict[str, str]:
        headers = {"User-Agent": "the-wire", "Accept": "application/vnd.github+json"}
        if rest:
            headers["X-GitHub-Api-Version"] = "2022-11-28"
        if token := self._token.get_secret_value():
            headers["Authorization"] = f"bearer {token}"
        if etag:
            headers["If-None-Match"] = etag
        return headers

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
        return full_jitter(attempt, base=BACKOFF_BASE, cap=BACKOFF_CAP, rng=self._rng)

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
        if status == 401 and self.has_token:
            text = (
                f"GitHub rejected the token ({detail}); "
                "set GITHUB_TOKEN or WIRE_GITHUB__TOKEN to a valid token"
            )
        elif status == 401:
            text = f"GitHub needs a token ({detail}); set GITHUB_TOKEN or WIRE_GITHUB__TOKEN"
        elif status == 404:
            text = self.not_found(detail)
        elif status == 403:
            text = (
                f"GitHub refused access to {self.repo} ({detail}); "
                "check that the token may read this repository"
            )
        else:
            text = f"GitHub answered {detail} for {self.repo}"
        raise RemoteError(self.redact(text), status=status)

    def _graphql_error(self, errors: list[GraphQLError]) -> RemoteError:
        first = errors[0].get("message", "")
        if errors[0].get("type") == "NOT_FOUND" or "cannot be searched" in first:
            return RemoteError(self.redact(self.not_found(f"NOT_FOUND: {first}")), status=404)
        messages = "; ".join(error.get("message", "") for error in errors)
        text = f"GitHub's GraphQL API refused the query for {self.repo}: {messages}"
        return RemoteError(self.redact(text))


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
