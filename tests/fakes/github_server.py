"""A loopback GitHub: GraphQL search and the REST commits list, with GitHub's limits and errors.

Every GraphQL document is validated against GitHub's published schema and then executed
against it (peers/github-graphql-schema), so a field we misspell or a connection we forget to
bound fails here as it would on github.com. Every REST path, method and query parameter is
checked against GitHub's OpenAPI description (peers/github-rest-openapi). Whatever is invalid
is answered the way GitHub answers it and listed in `problems`, which tests assert stays empty.

Quota follows GitHub's rules: each REST answer costs one `core` point except a 304, each
GraphQL query costs its computed points on `graphql`, and every answer carries the
`x-ratelimit-*` headers. Scripted failures (`script`, `secondary_rate_limit`, …) answer the
next matching requests before any real handling.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import graphql
from aiohttp import web

from digest.model import Activity, FileChange

SHARED = Path(__file__).resolve().parents[3] / "shared"  # beside the repository, as in CI
GRAPHQL_SCHEMA = SHARED / "peers/github-graphql-schema/schema.graphql"
REST_OPENAPI = SHARED / "peers/github-rest-openapi/api.github.com.json"
DOCS = "https://docs.github.com"
CHANGE_TYPES = {"A": "ADDED", "M": "MODIFIED", "D": "DELETED", "R": "RENAMED", "C": "COPIED"}
SEARCH_CAP = 1000


@functools.cache
def graphql_schema() -> graphql.GraphQLSchema:
    """GitHub's schema, loaded once per session (its SDL repeats two fields, hence assume_valid)."""
    schema = graphql.build_schema(GRAPHQL_SCHEMA.read_text(encoding="utf-8"), assume_valid_sdl=True)
    schema._validation_errors = []  # graphql-core 3.3 flags deprecation mismatches in GitHub's SDL
    return schema


@functools.cache
def rest_operations() -> list[tuple[re.Pattern[str], str, dict[str, set[str]]]]:
    """(path regex, path template, method → query parameter names) for every documented path."""
    spec = json.loads(REST_OPENAPI.read_text(encoding="utf-8"))
    shared = spec["components"]["parameters"]

    def query_names(parameters: list[dict]) -> set[str]:
        resolved = (shared[p["$ref"].rsplit("/", 1)[1]] if "$ref" in p else p for p in parameters)
        return {p["name"] for p in resolved if p["in"] == "query"}

    operations = []
    for template, item in spec["paths"].items():
        common = query_names(item.get("parameters", []))
        methods = {
            method.upper(): common | query_names(op.get("parameters", []))
            for method, op in item.items()
            if method in {"get", "post", "put", "patch", "delete"}
        }
        pattern = re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$")
        operations.append((pattern, template, methods))
    return operations


@dataclass
class FakePull:
    """A merged pull request as the fake serves it (and the commit it landed as)."""

    number: int
    title: str
    merged_at: datetime
    merge_sha: str
    author: str = "octocat"
    body: str = ""
    labels: tuple[str, ...] = ()
    files: tuple[FileChange, ...] = ()


def pulls_from_activities(
    activities: Iterable[Activity], *, first_spare_number: int = 900_000
) -> dict[str, list[FakePull]]:
    """Every activity as a merged PR, per repo; those without a PR number get a spare one."""
    repos: dict[str, list[FakePull]] = {}
    spare = first_spare_number
    for activity in activities:
        if activity.number is None:
            spare += 1
        repos.setdefault(activity.repo, []).append(
            FakePull(
                number=activity.number or spare,
                title=activity.title,
                body=activity.body,
                author=re.sub(r"[^A-Za-z0-9-]", "", activity.author) or "ghost",
                merged_at=activity.landed_at,
                merge_sha=activity.sha,
                labels=activity.labels,
                files=activity.files,
            )
        )
    return repos


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
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    response_text: str = ""


@dataclass
class Scripted:
    kind: str  # "rest", "graphql" or "any"
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


class GitHubGraphQLError(Exception):
    """An error GitHub reports inside a GraphQL answer, with its `type` (NOT_FOUND, …).

    `misuse` marks errors only a wrong client provokes; they are also listed in `problems`.
    """

    def __init__(self, kind: str, message: str, *, misuse: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.misuse = misuse


class FakeGitHub:
    """Serves github.com (or, with `enterprise`, a GHES host under /api) on 127.0.0.1."""

    def __init__(self, *, tokens: Iterable[str] = ("ghp_wire_test",), enterprise: bool = False):
        self.tokens = set(tokens)
        self.rest_prefix = "/api/v3" if enterprise else ""
        self.graphql_path = "/api/graphql" if enterprise else "/graphql"
        self.repos: dict[str, list[FakePull]] = {}
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

    def _repo(self, owner: str, name: str) -> tuple[str, list[FakePull]] | None:
        wanted = f"{owner}/{name}".lower()
        return next(((r, p) for r, p in self.repos.items() if r.lower() == wanted), None)

    # ---- scripted failures -----------------------------------------------------------------
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

    def _exhausted(self, resource: str, status: int = 403) -> web.Response:
        message = "API rate limit exceeded for user ID 1."
        if resource == "graphql":
            return self._json(
                200, {"errors": [{"type": "RATE_LIMITED", "message": message}]}, resource
            )
        doc = f"{DOCS}/rest/overview/rate-limits-for-the-rest-api#about-the-rate-limit"
        return self._json(status, {"message": message, "documentation_url": doc}, resource)

    # ---- REST ------------------------------------------------------------------------------
    def _rest(self, request: web.Request) -> web.StreamResponse:
        path = request.path.removeprefix(self.rest_prefix)
        declared = self._documented(request.method, path, set(request.query))
        if declared is None:
            return self._json(404, {"message": "Not Found", "documentation_url": DOCS}, "core")
        if self.quota["core"].remaining <= 0:
            return self._exhausted("core")
        match = re.fullmatch(r"/repos/([^/]+)/([^/]+)/commits", path)
        if match and request.method == "GET":
            return self._commits(request, *match.groups())
        self.problems.append(
            f"{request.method} {path}: documented, but this fake does not serve it"
        )
        return self._json(404, {"message": "Not Found", "documentation_url": DOCS}, "core")

    def _documented(self, method: str, path: str, params: set[str]) -> str | None:
        for pattern, template, methods in rest_operations():
            if pattern.match(path) and method in methods:
                if unknown := params - methods[method]:
                    self.problems.append(
                        f"{method} {template}: undocumented query {sorted(unknown)}"
                    )
                return template
        self.problems.append(f"{method} {path}: no such operation in GitHub's REST description")
        return None

    def _commits(self, request: web.Request, owner: str, name: str) -> web.StreamResponse:
        found = self._repo(owner, name)
        if found is None:
            doc = f"{DOCS}/rest/commits/commits#list-commits"
            self.quota["core"].charge(1)
            return self._json(
                404, {"message": "Not Found", "documentation_url": doc, "status": "404"}, "core"
            )
        repo, pulls = found
        query = request.query
        if query.get("sha") not in (None, "main"):
            self.quota["core"].charge(1)
            return self._json(422, {"message": f"No commit found for SHA: {query['sha']}"}, "core")
        since = _parse_time(query["since"]) if "since" in query else None
        until = _parse_time(query["until"]) if "until" in query else None
        per_page, page = min(int(query.get("per_page", 30)), 100), int(query.get("page", 1))
        history = sorted(pulls, key=lambda p: (p.merged_at, p.number), reverse=True)
        listed = [
            p
            for p in history
            if (since is None or p.merged_at >= since) and (until is None or p.merged_at <= until)
        ]
        shown = listed[(page - 1) * per_page : page * per_page]
        payload = json.dumps([_commit_item(repo, pull) for pull in shown]).encode()
        etag = f'W/"{hashlib.sha256(payload).hexdigest()[:40]}"'
        headers = {"ETag": etag, "Cache-Control": "private, max-age=60, s-maxage=60"}
        if len(listed) > page * per_page:
            last, url = -(-len(listed) // per_page), request.url
            headers["Link"] = ", ".join(
                f'<{url.update_query(page=n)}>; rel="{rel}"'
                for rel, n in (("next", page + 1), ("last", last))
            )
        if etag in (tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")):
            all_headers = {**self._rate_headers("core"), **headers}
            return web.Response(status=304, headers=all_headers)
        self.quota["core"].charge(1)
        all_headers = {**self._rate_headers("core"), **headers}
        return web.Response(
            body=payload,
            status=200,
            headers=all_headers,
            content_type="application/json",
            charset="utf-8",
        )

    # ---- GraphQL ---------------------------------------------------------------------------
    def _graphql(self, payload: Any) -> web.Response:
        if not isinstance(payload, dict) or not isinstance(payload.get("query"), str):
            self.problems.append(f"GraphQL body is not {{query, variables}}: {payload!r}")
            return self._json(
                400, {"message": "Problems parsing JSON", "documentation_url": DOCS}, "graphql"
            )
        try:
            document = graphql.parse(payload["query"])
        except graphql.GraphQLError as error:
            self.problems.append(f"GraphQL syntax: {error.message}")
            return self._json(200, {"errors": [error.formatted]}, "graphql")
        if errors := graphql.validate(graphql_schema(), document):
            self.problems.extend(f"GraphQL invalid: {e.message}" for e in errors)
            return self._json(200, {"errors": [e.formatted for e in errors]}, "graphql")
        variables = payload.get("variables") or {}
        cost = query_cost(document, variables)
        quota = self.quota["graphql"]
        if quota.remaining < cost:
            return self._exhausted("graphql")
        quota.charge(cost)
        result = graphql.execute_sync(
            graphql_schema(),
            document,
            root_value=self._root(cost),
            variable_values=variables,
            operation_name=payload.get("operationName"),
        )
        body: dict[str, Any] = {"data": result.data}
        if result.errors:
            body["errors"] = [_github_error(error) for error in result.errors]
            for error in result.errors:
                original = error.original_error
                if not isinstance(original, GitHubGraphQLError) or original.misuse:
                    self.problems.append(f"GraphQL execution: {error.message}")
        return self._json(200, body, "graphql")

    def _root(self, cost: int) -> dict[str, Any]:
        quota = self.quota["graphql"]

        def rate_limit(info: Any, **_: Any) -> dict[str, Any]:
            reset_at = datetime.fromtimestamp(quota.reset_at, UTC)
            return {
                "cost": cost,
                "limit": quota.limit,
                "remaining": quota.remaining,
                "used": quota.used,
                "nodeCount": 0,
                "resetAt": reset_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            }

        return {"rateLimit": rate_limit, "search": self._search, "repository": self._repository}

    def _search(self, info: Any, *, query: str, type: str, **page: Any) -> dict[str, Any]:
        if type != "ISSUE":
            raise GitHubGraphQLError(
                "INVALID", f"this fake searches only ISSUE, not {type}", misuse=True
            )
        repo, test = self._search_filter(query)
        if "/" not in repo:
            raise GitHubGraphQLError(
                "INVALID", "this fake searches one repo:OWNER/NAME", misuse=True
            )
        found = self._repo(*repo.split("/", 1))
        if found is None:
            message = (
                "The listed users and repositories cannot be searched either because the "
                "resources do not exist or you do not have permission to view them."
            )
            raise GitHubGraphQLError("INVALID", message)
        name, pulls = found
        matches = sorted((p for p in pulls if test(p)), key=lambda p: p.number, reverse=True)
        connection = _connection(
            [_pull_node(name, p) for p in matches[:SEARCH_CAP]], "search", page
        )
        connection["issueCount"] = len(matches)
        return connection

    def _search_filter(self, query: str) -> tuple[str, Any]:
        """The repo a search names and a test of a PR against its qualifiers."""
        repo, low, high = "", None, None
        for term in query.split():
            key, _, value = term.partition(":")
            if key == "repo":
                repo = value
            elif key == "merged":
                low, high = _search_range(value)
            elif term not in ("is:pr", "is:merged", "type:pr"):
                self.problems.append(f"search qualifier this fake does not know: {term}")
        return (
            repo,
            lambda p: (low is None or p.merged_at >= low) and (high is None or p.merged_at <= high),
        )

    def _repository(self, info: Any, *, owner: str, name: str, **_: Any) -> dict[str, Any]:
        found = self._repo(owner, name)
        if found is None:
            message = f"Could not resolve to a Repository with the name '{owner}/{name}'."
            raise GitHubGraphQLError("NOT_FOUND", message)
        repo, pulls = found
        by_number = {p.number: p for p in pulls}

        def pull_request(info: Any, *, number: int) -> dict[str, Any]:
            if number not in by_number:
                message = f"Could not resolve to a PullRequest with the number of {number}."
                raise GitHubGraphQLError("NOT_FOUND", message)
            return _pull_node(repo, by_number[number])

        return {"__typename": "Repository", "nameWithOwner": repo, "pullRequest": pull_request}


def query_cost(document: graphql.DocumentNode, variables: dict[str, Any]) -> int:
    """GitHub's point cost: connection requests needed, divided by 100, at least 1."""

    def value(node: graphql.ValueNode) -> int:
        if isinstance(node, graphql.VariableNode):
            return int(variables.get(node.name.value) or 0)
        return int(getattr(node, "value", 0) or 0)

    def requests(selection_set: graphql.SelectionSetNode | None, parents: int) -> int:
        total = 0
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, graphql.FieldNode):
                bounds = [
                    value(a.value)
                    for a in selection.arguments or ()
                    if a.name.value in ("first", "last")
                ]
                if bounds and selection.name.value != "rateLimit":
                    total += parents + requests(selection.selection_set, parents * max(bounds))
                else:
                    total += requests(selection.selection_set, parents)
            elif isinstance(selection, graphql.InlineFragmentNode):
                total += requests(selection.selection_set, parents)
        return total

    operations = [d for d in document.definitions if isinstance(d, graphql.OperationDefinitionNode)]
    return max(1, round(sum(requests(op.selection_set, 1) for op in operations) / 100))


def _connection(items: list[Any], field_name: str, page: dict[str, Any]) -> dict[str, Any]:
    first, after = page.get("first"), page.get("after")
    if first is None:
        message = (
            "You must provide a `first` or `last` value to properly paginate "
            f"the `{field_name}` connection."
        )
        raise GitHubGraphQLError("MISSING_PAGINATION_BOUNDARIES", message, misuse=True)
    if not 0 <= first <= 100:
        message = (
            f"Requesting {first} records on the `{field_name}` connection exceeds "
            "the `first` limit of 100 records."
        )
        raise GitHubGraphQLError("EXCESSIVE_PAGINATION", message, misuse=True)
    start = int(base64.b64decode(after).decode().split(":")[1]) if after else 0
    chosen = items[start : start + first]
    cursors = [
        base64.b64encode(f"cursor:{start + i + 1}".encode()).decode() for i in range(len(chosen))
    ]
    return {
        "totalCount": len(items),
        "nodes": chosen,
        "edges": [{"cursor": c, "node": n} for c, n in zip(cursors, chosen, strict=True)],
        "pageInfo": {
            "hasNextPage": start + len(chosen) < len(items),
            "hasPreviousPage": start > 0,
            "startCursor": cursors[0] if cursors else None,
            "endCursor": cursors[-1] if cursors else None,
        },
    }


def _paged(items: list[Any], field_name: str):
    return lambda info, **page: _connection(items, field_name, page)


def _pull_node(repo: str, pull: FakePull) -> dict[str, Any]:
    files = [
        {
            "path": f.path,
            "additions": f.additions or 0,
            "deletions": f.deletions or 0,
            "changeType": CHANGE_TYPES.get(f.status, "CHANGED"),
        }
        for f in pull.files
    ]
    return {
        "__typename": "PullRequest",
        "number": pull.number,
        "title": pull.title,
        "body": pull.body,
        "url": f"https://github.com/{repo}/pull/{pull.number}",
        "mergedAt": _iso(pull.merged_at),
        "author": {"__typename": "User", "login": pull.author} if pull.author != "ghost" else None,
        "mergeCommit": {"__typename": "Commit", "oid": pull.merge_sha},
        "labels": _paged([{"name": label} for label in pull.labels], "labels"),
        "files": _paged(files, "files"),
    }


def _commit_item(repo: str, pull: FakePull) -> dict[str, Any]:
    api = f"https://api.github.com/repos/{repo}"
    message = f"{pull.title} (#{pull.number})" + (f"\n\n{pull.body}" if pull.body else "")
    when = _iso(pull.merged_at)
    return {
        "sha": pull.merge_sha,
        "node_id": "C_" + base64.b64encode(pull.merge_sha.encode()).decode()[:20],
        "commit": {
            "author": {
                "name": pull.author,
                "email": f"{pull.author}@users.noreply.github.com",
                "date": when,
            },
            "committer": {"name": "GitHub", "email": "noreply@github.com", "date": when},
            "message": message,
            "tree": {"sha": pull.merge_sha, "url": f"{api}/git/trees/{pull.merge_sha}"},
            "url": f"{api}/git/commits/{pull.merge_sha}",
            "comment_count": 0,
        },
        "url": f"{api}/commits/{pull.merge_sha}",
        "html_url": f"https://github.com/{repo}/commit/{pull.merge_sha}",
        "comments_url": f"{api}/commits/{pull.merge_sha}/comments",
        "author": {"login": pull.author},
        "committer": {"login": "web-flow"},
        "parents": [],
    }


def _github_error(error: graphql.GraphQLError) -> dict[str, Any]:
    formatted = dict(error.formatted)
    formatted.pop("extensions", None)
    if isinstance(error.original_error, GitHubGraphQLError):
        formatted["type"] = error.original_error.kind
    return formatted


def _bearer(header: str) -> str | None:
    scheme, _, credentials = header.partition(" ")
    if scheme.lower() in ("bearer", "token") and credentials.strip():
        return credentials.strip()
    return None


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _search_range(value: str) -> tuple[datetime | None, datetime | None]:
    """`A..B`, `>=A`, `>A`, `<=B`, `<B` or a lone date, inclusive as GitHub search reads them."""

    def bound(text: str, *, end: bool) -> datetime | None:
        if text in ("", "*"):
            return None
        moment = _parse_time(text)
        if end and "T" not in text:
            moment += timedelta(days=1, microseconds=-1)
        return moment

    if ".." in value:
        low, high = value.split("..", 1)
        return bound(low, end=False), bound(high, end=True)
    one_second = timedelta(seconds=1)
    for prefix, result in (
        (">=", lambda m: (m, None)),
        ("<=", lambda m: (None, m)),
        (">", lambda m: (m + one_second, None)),
        ("<", lambda m: (None, m - one_second)),
    ):
        if value.startswith(prefix):
            return result(_parse_time(value.removeprefix(prefix)))
    return bound(value, end=False), bound(value, end=True)
