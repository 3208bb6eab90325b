"""The shapes of GitHub's wire payloads that the `github:` source reads.

Only the fields we ask for are listed. They are kept apart from `digest.model`, which holds
source-independent records (see DESIGN.md, "Raw payloads typed apart from the domain").
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

PatchStatus = Literal["ADDED", "CHANGED", "COPIED", "DELETED", "MODIFIED", "RENAMED"]


class PageInfo(TypedDict):
    hasNextPage: bool
    endCursor: str | None


class Actor(TypedDict):
    login: str


class Label(TypedDict):
    name: str


class LabelConnection(TypedDict):
    totalCount: int
    nodes: list[Label]


class ChangedFile(TypedDict):
    """A `PullRequestChangedFile`."""

    path: str
    additions: int
    deletions: int
    changeType: PatchStatus


class ChangedFileConnection(TypedDict):
    totalCount: int
    pageInfo: PageInfo
    nodes: list[ChangedFile]


class Commit(TypedDict):
    oid: str


class PullRequest(TypedDict):
    """A `PullRequest` node as the search query selects it."""

    number: int
    title: str
    body: str
    url: str
    mergedAt: str | None
    author: Actor | None  # None when the account was deleted ("ghost")
    labels: LabelConnection
    mergeCommit: Commit | None
    files: ChangedFileConnection | None


class SearchResult(TypedDict):
    issueCount: int
    pageInfo: PageInfo
    nodes: list[PullRequest]


class Release(TypedDict):
    """A `Release` node: a draft has no `publishedAt`; `createdAt` is its commit's date."""

    tagName: str
    url: str
    isDraft: bool
    isPrerelease: bool
    createdAt: str
    publishedAt: str | None
    description: str | None


class ReleaseConnection(TypedDict):
    pageInfo: PageInfo
    nodes: list[Release]


class RateLimit(TypedDict):
    cost: int
    remaining: int
    resetAt: str


class SearchData(TypedDict):
    rateLimit: RateLimit
    search: SearchResult
    # `repository { releases }`, asked on the first page of a window only
    repository: NotRequired[dict[Literal["releases"], ReleaseConnection] | None]


class PullRequestFilesData(TypedDict):
    """`repository { pullRequest { files } }`, the query for files beyond the first 100."""

    repository: dict[Literal["pullRequest"], dict[Literal["files"], ChangedFileConnection]] | None


class GraphQLError(TypedDict):
    """One entry of a GraphQL response's `errors`; GitHub adds a `type` such as NOT_FOUND."""

    message: str
    type: NotRequired[str]
    path: NotRequired[list[str | int]]


class GraphQLResponse(TypedDict):
    data: NotRequired[dict[str, Any] | None]
    errors: NotRequired[list[GraphQLError]]


class RestError(TypedDict):
    """The body of a REST error: `{"message": "Bad credentials", "documentation_url": …}`."""

    message: str
    documentation_url: NotRequired[str]
    status: NotRequired[str]


class GitActor(TypedDict):
    name: str
    email: str
    date: str


class GitCommit(TypedDict):
    message: str
    author: GitActor
    committer: GitActor


class CommitItem(TypedDict):
    """One element of `GET /repos/{owner}/{repo}/commits` (the fields we read)."""

    sha: str
    html_url: str
    commit: GitCommit
