"""Cursor pagination of the `github:` source: merged-PR search pages and a PR's file pages.

Search pages 100 pull requests at a time and never past 1,000 results, so a busier window is
split in two and each half searched on its own. A pull request that changed more than 100 files
costs one request per further 100 files.
"""

from __future__ import annotations

import logging

import httpx

from digest.errors import RemoteError
from digest.model import Window
from digest.sources.github.payloads import (
    ChangedFile,
    ChangedFileConnection,
    PullRequest,
    SearchResult,
)
from digest.sources.github.query import (
    FILES_QUERY,
    SEARCH_QUERY,
    halves,
    merged_search,
    parse_time,
)
from digest.sources.github.retry import GitHubApi

log = logging.getLogger("digest.sources.github")

SEARCH_CAP = 1000  # GitHub search never pages past this many results


async def merged_pulls(
    api: GitHubApi, http: httpx.AsyncClient, window: Window, *, label: str
) -> list[PullRequest]:
    """The PRs of `api.repo` merged in `window`; a window with more than search can page is split.

    Search is inclusive and second-granular, so results are filtered again to `[since, until)`.
    `label` names the source in log lines.
    """
    search = merged_search(api.repo, window)
    page = await _search_page(api, http, search, after=None)
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
        page = await _search_page(api, http, search, after=page["pageInfo"]["endCursor"])
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


async def _search_page(
    api: GitHubApi, http: httpx.AsyncClient, search: str, *, after: str | None
) -> SearchResult:
    data = await api.graphql(http, SEARCH_QUERY, {"search": search, "after": after})
    return data["search"]
