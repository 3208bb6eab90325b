"""Releases a clone knows as tags: `git for-each-ref refs/tags` with their dates.

A tag created inside the window and named like a version ("v8.0.16", "create-vite@9.1.0",
"tokio-1.52.4") is fed in as a release (`digest.reading.releases.tag_activity`), wherever
its commit lives: on the ref being read, or on a release branch that never merges back
(a backport's "v1.4.2" tagged on `1.4.x`), or on no branch at all (a release commit kept
only by its tag). Classify drops it when a release commit of the window tells the same
version. A tag's date is its tagger's for an annotated tag, else its commit's.
"""

from __future__ import annotations

from datetime import datetime

from digest.model import Activity, Window
from digest.reading.releases import tag_activity

# One tag a line: its short name and its date, tab-separated.
TAG_FORMAT = "%(refname:strip=2)%09%(creatordate:iso-strict)"


def tag_arguments() -> list[str]:
    """The `git` arguments that list every tag of the clone, on whichever branch it is."""
    return ["for-each-ref", f"--format={TAG_FORMAT}", "refs/tags"]


def tags_in(output: str, repo: str, window: Window) -> list[Activity]:
    """The releases among `git for-each-ref` `output` (see `TAG_FORMAT`) in `window`,
    oldest first."""
    found = []
    for line in output.splitlines():
        name, _, date = line.partition("\t")
        try:
            moment = datetime.fromisoformat(date.strip())
        except ValueError:
            continue
        if moment.tzinfo is None or not window.contains(moment):
            continue
        activity = tag_activity(repo, name.strip(), moment)
        if activity is not None:
            found.append(activity)
    return sorted(found, key=lambda a: a.landed_at)
