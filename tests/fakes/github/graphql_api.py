"""The fake's GraphQL side: search and repository queries validated and run against the schema.

Every document is validated against GitHub's published schema and then executed against it,
so a field we misspell or a connection we forget to bound fails here as it would on
github.com. Connections are cursor-paged at most 100 at a time, search stops at 1,000 results,
and each query costs the points GitHub would charge (`query_cost`).
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta
from typing import Any

import graphql
from aiohttp import web

from tests.fakes.github.described import graphql_schema
from tests.fakes.github.limits import Quota
from tests.fakes.github.records import CHANGE_TYPES, DOCS, FakePull, FakeRelease, iso, parse_time

SEARCH_CAP = 1000


class GitHubGraphQLError(Exception):
    """An error GitHub reports inside a GraphQL answer, with its `type` (NOT_FOUND, …).

    `misuse` marks errors only a wrong client provokes; they are also listed in `problems`.
    """

    def __init__(self, kind: str, message: str, *, misuse: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.misuse = misuse


class GraphQLEndpoint:
    """GraphQL requests; mixed into FakeGitHub, which provides `_json`, `_repo` and `_exhausted`."""

    quota: dict[str, Quota]
    problems: list[str]
    releases: dict[str, list[FakeRelease]]

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

        return {
            "__typename": "Repository",
            "nameWithOwner": repo,
            "pullRequest": pull_request,
            "releases": self._releases(repo),
        }

    def _releases(self, repo: str):
        """`Repository.releases`: GitHub's default order is newest created first; drafts
        are listed (the token may push) with no `publishedAt`."""
        releases = list(self.releases.get(repo, []))

        def connection(info: Any, *, orderBy: dict | None = None, **page: Any) -> dict[str, Any]:
            order = orderBy or {"field": "CREATED_AT", "direction": "DESC"}
            key = (lambda r: r.tag_name) if order["field"] == "NAME" else (lambda r: r.created_at)
            ordered = sorted(releases, key=key, reverse=order["direction"] == "DESC")
            return _connection([_release_node(repo, r) for r in ordered], "releases", page)

        return connection


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
        "mergedAt": iso(pull.merged_at),
        "author": {"__typename": "User", "login": pull.author} if pull.author != "ghost" else None,
        "mergeCommit": {"__typename": "Commit", "oid": pull.merge_sha},
        "labels": _paged([{"name": label} for label in pull.labels], "labels"),
        "files": _paged(files, "files"),
    }


def _release_node(repo: str, release: FakeRelease) -> dict[str, Any]:
    # a draft's URL names no tag: GitHub serves it at /releases/tag/untagged-<hash>
    tag = f"untagged-{abs(hash(release.tag_name)):x}" if release.draft else release.tag_name
    return {
        "__typename": "Release",
        "tagName": release.tag_name,
        "name": release.name,
        "url": f"https://github.com/{repo}/releases/tag/{tag}",
        "isDraft": release.draft,
        "isPrerelease": release.prerelease,
        "isLatest": False,
        "createdAt": iso(release.created_at),
        "publishedAt": None if release.draft else iso(release.published_at or release.created_at),
        "description": release.description,
    }


def _github_error(error: graphql.GraphQLError) -> dict[str, Any]:
    formatted = dict(error.formatted)
    formatted.pop("extensions", None)
    if isinstance(error.original_error, GitHubGraphQLError):
        formatted["type"] = error.original_error.kind
    return formatted


def _search_range(value: str) -> tuple[datetime | None, datetime | None]:
    """`A..B`, `>=A`, `>A`, `<=B`, `<B` or a lone date, inclusive as GitHub search reads them."""

    def bound(text: str, *, end: bool) -> datetime | None:
        if text in ("", "*"):
            return None
        moment = parse_time(text)
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
            return result(parse_time(value.removeprefix(prefix)))
    return bound(value, end=False), bound(value, end=True)
