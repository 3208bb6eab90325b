"""`github:OWNER/REPO` — merged pull requests and published releases through GitHub's GraphQL API.

A poll of one window costs, in order:

1. One conditional REST probe, `GET /repos/{owner}/{repo}/commits?since=…&until=…&per_page=1`
   on the default branch. Every merge (merge commit, squash or rebase) puts a new commit on
   top of the branch, dated when it landed, and the list comes in history order, so the first
   commit of that list changes exactly when something lands in the window. We send the ETag of
   the last answer in `If-None-Match`; GitHub answers an unchanged list with 304, which costs no
   rate-limit quota, and we return the activity cached for that window without any GraphQL
   request. An empty list means nothing landed, so no GraphQL request is made either. The
   probe starts `PROBE_LEAD` before the window because a merge-queue commit is dated when its
   merge group was built, a little before the pull request counts as merged.
2. Otherwise ⌈merged/100⌉ pages of a GraphQL `search` for `is:pr is:merged merged:SINCE..UNTIL`,
   plus one request per further 100 files of a pull request that changed more than 100 files.
   Search is inclusive and second-granular, so results are filtered again to `[since, until)`;
   search never pages past 1,000 results, so a busier window is split in two and each half
   searched on its own. The window's first page also asks for the repository's latest
   `RELEASES_PAGE` releases, newest commit first, at no extra request; a release published in
   the window comes back as the activity a release tag would (`tag_activity`, its notes as
   body, GitHub's prerelease flag as the label `prerelease`), drafts never. A release is
   listed by its commit's date, so the list is paged back, one request a page, only until
   it reaches commits a week (`RELEASE_LEAD`) older than the window: a window older than
   the latest releases pays for that, or one of a repository that published more than 25
   in the window and the week before it.

Rate limits are honoured as GitHub documents them (see `retry`). The token is sent only in the
Authorization header; it never appears in `repr`, logs or error messages.

| module | owns |
|---|---|
| `source` | `GitHubSource`: the probe, the ETag short cut, the Activity list of a window |
| `query` | the GraphQL documents, search ranges, a PR or release node → `Activity` |
| `pages` | cursor pagination of search (splitting busy windows), a PR's files, releases |
| `cache` | `EtagCache`: each window's probe ETag and the activity it stood for |
| `retry` | `GitHubApi`: rate limits, retries with back-off, refusals as `RemoteError` |
| `payloads` | the TypedDict shapes of GitHub's answers |
"""

from digest.sources.github.cache import EtagCache
from digest.sources.github.pages import SEARCH_CAP
from digest.sources.github.query import FILES_QUERY, SEARCH_QUERY, activity_from_pull
from digest.sources.github.retry import DEFAULT_API_URL, TOKEN_VARIABLES, GitHubApi, endpoints
from digest.sources.github.source import PROBE_LEAD, GitHubSource

__all__ = [
    "DEFAULT_API_URL",
    "FILES_QUERY",
    "PROBE_LEAD",
    "SEARCH_CAP",
    "SEARCH_QUERY",
    "TOKEN_VARIABLES",
    "EtagCache",
    "GitHubApi",
    "GitHubSource",
    "activity_from_pull",
    "endpoints",
]
