"""The fake's rate limits and scripted failures: quotas, secondary limits, 429s, 5xx answers.

Quota follows GitHub's rules: each REST answer costs one `core` point except a 304, each
GraphQL query costs its computed points on `graphql`, and every answer carries the
`x-ratelimit-*` headers. Scripted failures answer the next matching requests before any real
handling.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.github.records import DOCS


@dataclass
class Quota:
    """One rate-limit resource: `limit` points an hour, reset at `reset_at` (epoch seconds)."""

    limit: int = 5000
    used: int = 0
    spent: int = 0  # all points ever charged, across resets
    reset_at: float = field(default_factory=lambda: time.time() + 3600)

    @property
    def remaining(self) -> int:
        self._roll()
        return max(self.limit - self.used, 0)

    def charge(self, points: int) -> None:
        self._roll()
        self.used += points
        self.spent += points

    def _roll(self) -> None:
        if time.time() >= self.reset_at:
            self.used, self.reset_at = 0, time.time() + 3600


@dataclass
class Scripted:
    kind: str  # "rest", "graphql" or "any"
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


class RateLimits:
    """Scripted failures and quota answers; mixed into FakeGitHub, which provides `_json`."""

    quota: dict[str, Quota]
    _script: deque[Scripted]

    def script(self, kind: str, status: int, body: Any, headers: dict | None = None, times=1):
        """Answer the next `times` requests of `kind` with this response (a str body as HTML)."""
        for _ in range(times):
            self._script.append(Scripted(kind, status, body, dict(headers or {})))

    def secondary_rate_limit(self, kind: str = "graphql", *, retry_after: int = 7) -> None:
        message = (
            "You have exceeded a secondary rate limit. Please wait a few minutes before you try "
            "again. If you reach out to GitHub Support for help, please include the request ID "
            "C0DE:1234:5678:9ABC:DEF0."
        )
        doc = f"{DOCS}/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
        body = {"message": message, "documentation_url": doc}
        self.script(kind, 403, body, {"retry-after": str(retry_after)})

    def too_many_requests(self, kind: str = "graphql", *, retry_after: int = 3) -> None:
        body = {"message": "Too many requests", "documentation_url": f"{DOCS}/rest"}
        self.script(kind, 429, body, {"retry-after": str(retry_after)})

    def server_error(self, kind: str = "graphql", *, status: int = 502, times: int = 1) -> None:
        message = (
            "Something went wrong while executing your query. This may be the result of a "
            "timeout, or it could be a GitHub bug."
        )
        body = {"data": None, "errors": [{"message": message}]} if kind == "graphql" else None
        self.script(kind, status, body or {"message": "Server Error"}, times=times)

    def graphql_not_found(self, repo: str) -> None:
        """Answer the next GraphQL query as GitHub does when `repository(…)` resolves nothing."""
        error = {
            "type": "NOT_FOUND",
            "path": ["repository"],
            "locations": [{"line": 4, "column": 3}],
            "message": f"Could not resolve to a Repository with the name '{repo}'.",
        }
        self.script("graphql", 200, {"data": {"repository": None}, "errors": [error]})

    def exhaust(self, resource: str, *, reset_in: float) -> None:
        """Use up `resource`'s quota until `reset_in` seconds from now."""
        quota = self.quota[resource]
        quota.used, quota.reset_at = quota.limit, time.time() + reset_in

    def _next_scripted(self, kind: str) -> Scripted | None:
        for scripted in self._script:
            if scripted.kind in (kind, "any"):
                self._script.remove(scripted)
                return scripted
        return None

    def _rate_headers(self, resource: str) -> dict[str, str]:
        quota = self.quota[resource]
        return {
            "x-ratelimit-limit": str(quota.limit),
            "x-ratelimit-remaining": str(quota.remaining),
            "x-ratelimit-used": str(quota.used),
            "x-ratelimit-reset": str(int(quota.reset_at)),
            "x-ratelimit-resource": resource,
        }

    def _exhausted(self, resource: str, status: int = 403) -> web.Response:
        message = "API rate limit exceeded for user ID 1."
        if resource == "graphql":
            return self._json(
                200, {"errors": [{"type": "RATE_LIMITED", "message": message}]}, resource
            )
        doc = f"{DOCS}/rest/overview/rate-limits-for-the-rest-api#about-the-rate-limit"
        return self._json(status, {"message": message, "documentation_url": doc}, resource)
