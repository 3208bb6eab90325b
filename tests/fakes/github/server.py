"""FakeGitHub: the loopback server that routes each request to the REST or GraphQL side."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from typing import Any

from aiohttp import web

from tests.fakes.github.graphql_api import GraphQLEndpoint
from tests.fakes.github.limits import Quota, RateLimits, Scripted
from tests.fakes.github.records import DOCS, FakePull, FakeRelease, Recorded
from tests.fakes.github.repos import RepoFacts, RepositoryEndpoint
from tests.fakes.github.rest import CommitsEndpoint


class FakeGitHub(RateLimits, RepositoryEndpoint, CommitsEndpoint, GraphQLEndpoint):
    """Serves github.com (or, with `enterprise`, a GHES host under /api) on 127.0.0.1."""

    def __init__(
        self,
        *,
        tokens: Iterable[str] = ("ghp_wire_test",),
        enterprise: bool = False,
        scopes: dict[str, str] | None = None,
    ):
        self.tokens = set(tokens)
        # token → its X-OAuth-Scopes header, as GitHub sends for classic tokens ("repo,
        # read:org"); a token without an entry is fine-grained: no such header
        self.scopes = dict(scopes or {})
        self.rest_prefix = "/api/v3" if enterprise else ""
        self.graphql_path = "/api/graphql" if enterprise else "/graphql"
        self.repos: dict[str, list[FakePull]] = {}
        self.releases: dict[str, list[FakeRelease]] = {}  # repo as added → its releases
        self.facts: dict[str, RepoFacts] = {}  # lower-case repo → visibility, archived, …
        self.moved: dict[str, str] = {}  # lower-case old name → the new one (301)
        self.requests: list[Recorded] = []
        self.problems: list[str] = []
        self.quota = {"core": Quota(), "graphql": Quota()}
        self._script: deque[Scripted] = deque()
        self._runner: web.AppRunner | None = None
        self.url = ""

    # ---- data ------------------------------------------------------------------------------
    def add_pulls(self, repo: str, pulls: Iterable[FakePull]) -> None:
        """Add merged PRs to `repo` (creating it); the commits list and its ETag change."""
        self.repos.setdefault(repo, []).extend(pulls)

    def add_releases(self, repo: str, releases: Iterable[FakeRelease]) -> None:
        """Add releases (drafts too) to `repo` (creating it); the commits list is unchanged,
        as on GitHub, where publishing a release adds no commit."""
        self.repos.setdefault(repo, [])
        self.releases.setdefault(repo, []).extend(releases)

    def _repo(self, owner: str, name: str) -> tuple[str, list[FakePull]] | None:
        wanted = f"{owner}/{name}".lower()
        return next(((r, p) for r, p in self.repos.items() if r.lower() == wanted), None)

    # ---- counters --------------------------------------------------------------------------
    @property
    def graphql_requests(self) -> int:
        return sum(1 for r in self.requests if r.path == self.graphql_path)

    @property
    def rest_requests(self) -> int:
        return sum(1 for r in self.requests if r.path != self.graphql_path)

    def counters(self) -> dict[str, int]:
        """Requests so far and quota points spent, to diff around an operation."""
        return {
            "graphql_requests": self.graphql_requests,
            "rest_requests": self.rest_requests,
            "core_quota": self.quota["core"].spent,
            "graphql_quota": self.quota["graphql"].spent,
        }

    # ---- lifecycle -------------------------------------------------------------------------
    async def start(self) -> str:
        """Listen on a random loopback port; return the base URL."""
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        return self.url

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def __aenter__(self) -> FakeGitHub:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # ---- HTTP ------------------------------------------------------------------------------
    async def _handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        body: Any = raw.decode("utf-8", "replace")
        if raw and request.content_type == "application/json":
            body = json.loads(raw)
        record = Recorded(
            request.method,
            request.path,
            dict(request.query),
            {k.lower(): v for k, v in request.headers.items()},
            body,
        )
        self.requests.append(record)
        try:
            response = self._answer(request, record)
        except Exception as error:  # a bug in this fake must fail the test, not only log
            self.problems.append(
                f"fake GitHub crashed on {request.method} {request.path}: {error!r}"
            )
            raise
        token = _bearer(request.headers.get("Authorization", ""))
        if token in self.scopes and response.status != 401:
            response.headers["X-OAuth-Scopes"] = self.scopes[token]
        record.status, record.response_headers = response.status, dict(response.headers)
        record.response_text = getattr(response, "text", None) or ""
        return response

    def _answer(self, request: web.Request, record: Recorded) -> web.StreamResponse:
        is_graphql = request.path == self.graphql_path and request.method == "POST"
        kind, resource = ("graphql", "graphql") if is_graphql else ("rest", "core")
        if not is_graphql and not request.path.startswith(self.rest_prefix + "/"):
            self.problems.append(f"{request.method} {request.path}: not a GitHub API path")
            return self._json(404, {"message": "Not Found", "documentation_url": DOCS}, "core")
        if not request.headers.get("User-Agent"):
            self.problems.append(f"{request.method} {request.path}: no User-Agent")
            message = (
                "Request forbidden by administrative rules. "
                "Please make sure your request has a User-Agent header"
            )
            return self._json(403, {"message": message, "documentation_url": DOCS}, resource)
        token = _bearer(request.headers.get("Authorization", ""))
        if token is not None and token not in self.tokens:
            return self._json(
                401,
                {
                    "message": "Bad credentials",
                    "documentation_url": f"{DOCS}/{kind}",
                    "status": "401",
                },
                resource,
            )
        if token is None and is_graphql:
            message = "This endpoint requires you to be authenticated."
            doc = f"{DOCS}/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"
            return self._json(401, {"message": message, "documentation_url": doc}, resource)
        if scripted := self._next_scripted(kind):
            return self._json(scripted.status, scripted.body, resource, scripted.headers)
        if is_graphql:
            return self._graphql(record.body)
        return self._rest(request)

    def _json(
        self, status: int, body: Any, resource: str, headers: dict[str, str] | None = None
    ) -> web.Response:
        all_headers = {
            **self._rate_headers(resource),
            "x-github-request-id": f"C0DE:{len(self.requests):04X}",
            **(headers or {}),
        }
        if isinstance(body, str):  # a scripted non-JSON page, as a proxy or the web UI serves
            return web.Response(
                text=body, status=status, headers=all_headers, content_type="text/html"
            )
        return web.json_response(body, status=status, headers=all_headers)


def _bearer(header: str) -> str | None:
    scheme, _, credentials = header.partition(" ")
    if scheme.lower() in ("bearer", "token") and credentials.strip():
        return credentials.strip()
    return None
