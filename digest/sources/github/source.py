"""`GitHubSource`: one window's merged pull requests and published releases, probed first,
searched only on a change.

The releases come with the first search page, so they cost no request, and follow the
probe: a window in which nothing lands reports no release, and a re-poll answered 304
returns the releases of its last search (a release is published minutes after its
commit lands, and the scheduler composes closed windows).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx

from digest.errors import SourceError
from digest.model import Activity, Window
from digest.sources.github.cache import EtagCache
from digest.sources.github.names import is_repository_name, repository_path
from digest.sources.github.pages import all_files, window_changes
from digest.sources.github.query import activity_from_pull, release_activity, search_time
from digest.sources.github.retry import DEFAULT_API_URL, GitHubApi, Sleep

log = logging.getLogger("digest.sources.github")

PROBE_LEAD = timedelta(hours=1)


class GitHubSource:
    """Merged pull requests of one repository, read through GitHub's GraphQL API."""

    scheme = "github"

    def __init__(
        self,
        repo: str,
        *,
        token: str | None = None,
        api_url: str = DEFAULT_API_URL,
        cache: EtagCache | None = None,
        client: httpx.AsyncClient | None = None,
        max_retries: int = 5,
        max_wait: float = 900.0,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        if not is_repository_name(repo):
            raise SourceError(
                f"github source needs OWNER/REPO of ASCII letters, digits, '-', '_' and '.',"
                f" got {repo!r}"
            )
        self.repo = repo
        self.owner, self.name = repo.split("/")
        self.api = GitHubApi(
            repo,
            token=token,
            api_url=api_url,
            max_retries=max_retries,
            max_wait=max_wait,
            sleep=sleep,
            rng=rng,
        )
        self.api_url = self.api.api_url
        self.rest_url, self.graphql_url = self.api.rest_url, self.api.graphql_url
        self.cache = cache if cache is not None else EtagCache()
        self._client = client

    def __repr__(self) -> str:
        token = "set" if self.api.has_token else "none"
        return f"GitHubSource(repo={self.repo!r}, api_url={self.api_url!r}, token={token})"

    @property
    def max_retries(self) -> int:
        """Retries of one request before giving up."""
        return self.api.max_retries

    @property
    def max_wait(self) -> float:
        """The longest wait, in seconds, for a rate limit to reset."""
        return self.api.max_wait

    @property
    def description(self) -> str:
        """`github:OWNER/REPO`, with the API URL when it is not github.com's."""
        if self.api_url == DEFAULT_API_URL:
            return f"github:{self.repo}"
        return f"github:{self.repo} at {self.api_url}"

    async def fetch(self, window: Window) -> AsyncIterator[Activity]:
        """Yield the pull requests merged in `window` and the releases published in it
        (as `tag_activity` builds them), oldest first."""
        async with self._http() as http:
            activities = await self._poll(http, window)
        for activity in activities:
            yield activity

    @contextlib.asynccontextmanager
    async def _http(self) -> AsyncIterator[httpx.AsyncClient]:
        if self._client is not None:
            yield self._client
            return
        async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as client:
            yield client

    async def _poll(self, http: httpx.AsyncClient, window: Window) -> list[Activity]:
        """Probe the window; on a change, search it and remember the answer under the ETag."""
        cached = self.cache.get(self.description, window)
        probe = await self.api.request(
            http,
            "GET",
            f"{self.rest_url}{repository_path(self.repo)}/commits",
            params={
                "since": search_time(window.since - PROBE_LEAD),
                "until": search_time(window.until, up=True),
                "per_page": "1",
            },
            etag=cached[0] if cached else None,
        )
        if probe.status_code == 304 and cached:
            log.debug("%s: %s unchanged (304)", self.description, window.label())
            return cached[1]
        label = self.description
        pulls, releases = (
            await window_changes(self.api, http, window, label=label)
            if self.api.json(probe)
            else ([], [])
        )
        activities = [
            activity_from_pull(self.repo, pull, await all_files(self.api, http, pull, label=label))
            for pull in pulls
        ]
        activities += filter(None, (release_activity(self.repo, r) for r in releases))
        for pull in pulls:
            if (labels := pull["labels"])["totalCount"] > len(labels["nodes"]):
                log.warning(
                    "%s: PR #%d has %d labels; kept the first %d",
                    self.description,
                    pull["number"],
                    labels["totalCount"],
                    len(labels["nodes"]),
                )
        activities.sort(key=lambda activity: (activity.landed_at, activity.number or 0))
        if etag := probe.headers.get("etag"):
            self.cache.put(self.description, window, etag, activities)
        return activities
