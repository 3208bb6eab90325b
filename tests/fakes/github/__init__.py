"""A loopback GitHub: GraphQL search, releases and the REST commits list, with GitHub's limits and errors.

Every GraphQL document is validated against GitHub's published schema and then executed
against it (peers/github-graphql-schema), so a field we misspell or a connection we forget to
bound fails here as it would on github.com. Every REST path, method and query parameter is
checked against GitHub's OpenAPI description (peers/github-rest-openapi). Whatever is invalid
is answered the way GitHub answers it and listed in `problems`, which tests assert stays empty.

Quota follows GitHub's rules: each REST answer costs one `core` point except a 304, each
GraphQL query costs its computed points on `graphql`, and every answer carries the
`x-ratelimit-*` headers. Scripted failures (`script`, `secondary_rate_limit`, …) answer the
next matching requests before any real handling.

| module | owns |
|---|---|
| `server` | `FakeGitHub`: the loopback server, authentication, routing, recording |
| `graphql_api` | search and repository queries (pull requests, releases), cursor paging, query cost (the query side) |
| `rest` | the paged commits list and its ETag / 304 (the pagination and cache side) |
| `repos` | `GET /repos/{owner}/{repo}`: visibility, archived, renames (301), ETag / 304 |
| `limits` | quotas, `x-ratelimit-*` headers and scripted failures (the rate-limit side) |
| `records` | `FakePull`, `FakeRelease`, `pulls_from_activities`, the recorded requests |
| `described` | GitHub's published GraphQL schema and REST description |
"""

from tests.fakes.github.described import graphql_schema, rest_operations
from tests.fakes.github.graphql_api import GitHubGraphQLError, query_cost
from tests.fakes.github.limits import Quota
from tests.fakes.github.records import FakePull, FakeRelease, Recorded, pulls_from_activities
from tests.fakes.github.server import FakeGitHub

__all__ = [
    "FakeGitHub",
    "FakePull",
    "FakeRelease",
    "GitHubGraphQLError",
    "Quota",
    "Recorded",
    "graphql_schema",
    "pulls_from_activities",
    "query_cost",
    "rest_operations",
]
