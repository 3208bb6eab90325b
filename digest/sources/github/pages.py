"""Cursor pagination of the `github:` source: merged-PR search pages, a PR's file pages and
the repository's releases.

Search pages 100 pull requests at a time and never past 1,000 results, so a busier window is
split in two and each half searched on its own. A pull request that changed more than 100 files
costs one request per further 100 files. The latest releases ride on a window's first search
page; only a window older than the latest `RELEASES_PAGE` releases pages further back.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import httpx

from digest.errors import RemoteError
from digest.model import Window
from digest.sources.github.payloads import (
    ChangedFile,
    ChangedFileConnection,
    PullRequest,
    Release,
    ReleaseConnection,
    SearchResult,
)
from digest.sources.github.query import (
    FILES_QUERY,
    RELEASES_QUERY,
    SEARCH_QUERY,
    halves,
    merged_search,
    parse_time,
)
from digest.sources.github.retry import GitHubApi

log = logging.getLogger("digest.sources.github")

SEARCH_CAP = 1000  # GitHub search never pages past this many results
# A release's `createdAt` is its commit's date, which can precede its publishing: releases
# are paged back until their commits are older than the window by this much.
RELEASE_LEAD = timedelta(days=7)


async def window_changes(
    api: GitHubApi, http: httpx.AsyncClient, window: Window, *, label: str
) -> tuple[list[PullRequest], list[Release]]:
    """The PRs of `api.repo` merged in `window` and its releases published in it (drafts
    too: the caller drops them). The releases come with the first search page."""
    search = merged_search(api.repo, window)
    data = await _search(api, http, search, after=None, releases=True)
    releases = await _releases_back_to(api, http, (data.get("repository") or {}), window)
    pulls = await merged_pulls(api, http, window, label=label, first=data["search"])
    return pulls, releases


async def merged_pulls(
    api: GitHubApi,
    http: httpx.AsyncClient,
    window: Window,
    *,
    label: str,
    first: SearchResult | None = None,
) -> list[PullRequest]:
    """The PRs of `api.repo` merged in `window`; a window with more than search can page is split.

    Search is inclusive and second-granular, so results are filtered again to `[since, until)`.
    `label` names the source in log lines; `first` is the window's first page, if read.
    """
    search = merged_search(api.repo, window)
    page = first or (await _search(api, http, search, after=None))["search"]
    if page["issueCount"] > SEARCH_CAP:
        if split := halves(window):
            return [
                pull for half in split for pull in await merged_pulls(api, http, half, label=label)
            ]
        log.warning(
            "%s: search lists only %d of the %d PRs merged in %s",
            label,
            SEARCH_CAP,
            page["issueCount"],
            window.label(),
        )
    found = {node["number"]: node for node in page["nodes"] if node}
    while page["pageInfo"]["hasNextPage"]:
        after = page["pageInfo"]["endCursor"]
        page = (await _search(api, http, search, after=after))["search"]
        found.update((node["number"], node) for node in page["nodes"] if node)
    return [
        pull
        for pull in found.values()
        if pull["mergedAt"] and window.contains(parse_time(pull["mergedAt"]))
    ]


async def all_files(
    api: GitHubApi, http: httpx.AsyncClient, pull: PullRequest, *, label: str
) -> list[ChangedFile]:
    """All files of `pull`, fetching pages past the first 100; a shortfall is logged."""
    connection: ChangedFileConnection | None = pull["files"]
    if connection is None:
        return []
    owner, name = api.repo.split("/")
    files = list(connection["nodes"])
    while connection["pageInfo"]["hasNextPage"]:
        variables = {
            "owner": owner,
            "name": name,
            "number": pull["number"],
            "after": connection["pageInfo"]["endCursor"],
        }
        data = await api.graphql(http, FILES_QUERY, variables)
        if not data.get("repository") or not data["repository"].get("pullRequest"):
            raise RemoteError(api.not_found(f"PR #{pull['number']} vanished"), status=404)
        connection = data["repository"]["pullRequest"]["files"]
        files.extend(connection["nodes"])
    if len(files) < connection["totalCount"]:
        log.warning(
            "%s: GitHub lists only %d of the %d files of PR #%d",
            label,
            len(files),
            connection["totalCount"],
            pull["number"],
        )
    return files


async def _releases_back_to(
    api: GitHubApi, http: httpx.AsyncClient, repository: dict[str, Any], window: Window
) -> list[Release]:
    """The releases published in `window`, from the first page `repository` holds and, while
    the newest-first list has not yet reached commits `RELEASE_LEAD` before the window,
    further pages."""
    connection: ReleaseConnection | None = repository.get("releases")
    found: list[Release] = []
    owner, name = api.repo.split("/")
    while connection is not None:
        found += connection["nodes"]
        oldest = min((parse_time(r["createdAt"]) for r in connection["nodes"]), default=None)
        if not connection["pageInfo"]["hasNextPage"] or (
            oldest is not None and oldest < window.since - RELEASE_LEAD
        ):
            break
        variables = {
            "owner": owner,
            "name": name,
            "releasesAfter": connection["pageInfo"]["endCursor"],
        }
        data = await api.graphql(http, RELEASES_QUERY, variables)
        connection = (data.get("repository") or {}).get("releases")
    return [r for r in found if r["publishedAt"] and window.contains(parse_time(r["publishedAt"]))]


async def _search(
    api: GitHubApi,
    http: httpx.AsyncClient,
    search: str,
    *,
    after: str | None,
    releases: bool = False,
) -> dict[str, Any]:
    """One search page; with `releases`, the repository's latest releases too."""
    owner, name = api.repo.split("/")
    variables = {
        "search": search,
        "after": after,
        "owner": owner,
        "name": name,
        "releases": releases,
        "releasesAfter": None,
    }
    return await api.graphql(http, SEARCH_QUERY, variables)
