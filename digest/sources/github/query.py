"""What the `github:` source asks GitHub, and how an answer becomes an Activity.

The GraphQL documents, the `merged:SINCE..UNTIL` search range (GitHub search is inclusive and
second-granular), and the mapping of a merged pull request node to an `Activity`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from digest.model import Activity, FileChange, Window
from digest.reading.releases import tag_activity
from digest.sources.github.payloads import ChangedFile, PullRequest, Release

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
# Releases newest first by `createdAt` (their commit's date, never after publishing), so the
# releases published in a recent window are on the first page.
RELEASES_PAGE = 25
_RELEASES = (
    f"releases(first: {RELEASES_PAGE}, after: $releasesAfter, "
    "orderBy: {field: CREATED_AT, direction: DESC}) { pageInfo { hasNextPage endCursor } "
    "nodes { tagName url isDraft isPrerelease createdAt publishedAt description } }"
)
# The first page of a window's search also brings the repository's latest releases, so
# they cost no request of their own (`$releases` is false on every other page).
SEARCH_QUERY = f"""
query MergedPullRequests(
  $search: String!, $after: String,
  $owner: String!, $name: String!, $releases: Boolean!, $releasesAfter: String
) {{
  rateLimit {{ cost remaining resetAt }}
  repository(owner: $owner, name: $name) @include(if: $releases) {{ {_RELEASES} }}
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
RELEASES_QUERY = f"""
query Releases($owner: String!, $name: String!, $releasesAfter: String) {{
  rateLimit {{ cost remaining resetAt }}
  repository(owner: $owner, name: $name) {{ {_RELEASES} }}
}}
"""


def merged_search(repo: str, window: Window) -> str:
    """The search string for the pull requests of `repo` merged in `window` (inclusive)."""
    return f"repo:{repo} is:pr is:merged merged:{search_range(window)}"


def activity_from_pull(repo: str, pull: PullRequest, files: list[ChangedFile]) -> Activity:
    """Build an Activity from a merged PullRequest node and all its changed files."""
    return Activity(
        repo=repo,
        sha=merge["oid"] if (merge := pull["mergeCommit"]) else f"pull-{pull['number']}",
        number=pull["number"],
        title=pull["title"],
        body=pull["body"] or "",
        author=author["login"] if (author := pull["author"]) else "ghost",
        landed_at=parse_time(pull["mergedAt"] or ""),
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


def release_activity(repo: str, release: Release) -> Activity | None:
    """A published release as the activity a git tag of it would be (`tag_activity`), with
    its notes as the body and GitHub's prerelease flag; None for a draft or a tag that names
    no version."""
    if release["isDraft"] or not release["publishedAt"]:
        return None
    return tag_activity(
        repo,
        release["tagName"],
        parse_time(release["publishedAt"]),
        release["url"],
        body=release["description"] or "",
        prerelease=release["isPrerelease"],
    )


def search_time(moment: datetime, *, up: bool = False) -> str:
    """`moment` in UTC to the second (rounded up when `up`), as search and REST expect it."""
    moment = moment.astimezone(UTC)
    if up and moment.microsecond:
        moment = moment.replace(microsecond=0) + timedelta(seconds=1)
    return moment.replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def search_range(window: Window) -> str:
    """`window` as search's inclusive `SINCE..UNTIL`, widened to whole seconds."""
    return f"{search_time(window.since)}..{search_time(window.until, up=True)}"


def halves(window: Window) -> tuple[Window, Window] | None:
    """Two windows splitting `window` on a whole second, or None if it is too short."""
    middle = (window.since + (window.until - window.since) / 2).replace(microsecond=0)
    if not window.since < middle < window.until:
        return None
    return Window(since=window.since, until=middle), Window(since=middle, until=window.until)


def parse_time(text: str) -> datetime:
    """A GitHub timestamp (`…Z`) as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
