"""What the window says about a change that the change alone does not.

- A security fix merged from a private fork ("Merge commit from fork") takes the words of
  the changelog line that cites it in a release of the window, else its body's first bullet.
- A back-out relanded later in the window was only briefly out: it is folded with its
  reland, cited together, and nothing is left to watch.
- A back-out of a change the window landed, with no release between, is withdrawn: no
  user got the change, so it ranks with internal work and nothing is left to watch. So is a
  back-out of a change that landed before the window, when the history at hand holds the
  change and no release between the two that could have shipped it (`withdraw_unshipped`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from digest.english.shapes import split_verb
from digest.model import Activity
from digest.reading.audience import fork_subject, is_fork_merge
from digest.reading.event import Event
from digest.reading.releases import TAG_PREFIX, Release
from digest.reading.shipping import carries
from digest.reading.titles import split_title


def _title_key(title: str) -> str:
    return re.sub(r"\W+", " ", split_title(title).subject.lower()).strip()


def link_reverts(events: list[Event]) -> list[Event]:
    """Link each revert or reland to the change it undoes when that change is in the window (N8).

    A linked original is folded into its revert's event (`linked`) and dropped from the list,
    so one story cites both. A back-out of a change that landed in the window with no
    release between the two is `withdrawn`: the branch is as it was, and no user got it.
    """
    by_title = {(e.repo, _title_key(e.activity.title)): e for e in events}
    by_number = {(e.repo, e.activity.number): e for e in events if e.activity.number}
    absorbed: set[str] = set()
    linked: dict[str, tuple[Activity, ...]] = {}
    internal: set[str] = set()
    for event in events:
        if event.reverts_title is None:
            continue
        original = by_title.get((event.repo, _title_key(event.reverts_title)))
        original = original or _referenced(event, by_number, events)
        if original is not None and original is not event and original.kind not in ("revert",):
            absorbed.add(original.activity.sha)
            linked[event.activity.sha] = (original.activity,)
            if original.internal:
                # Undoing CI or tooling work is such work too, whatever files the back-out
                # touches on the way (a root manifest's scripts).
                internal.add(event.activity.sha)
    releases = [e.activity for e in events if e.release is not None]
    result = []
    for event in events:
        if event.activity.sha in absorbed:
            continue
        if event.activity.sha in linked:
            undone = linked[event.activity.sha][0]
            shipped = any(_between(r, undone, event.activity) for r in releases)
            withdrawn = event.withdrawn or (event.kind == "revert" and not shipped)
            event = replace(
                _named_after(event, undone),
                linked=linked[event.activity.sha],
                withdrawn=withdrawn,
                internal=event.internal or event.activity.sha in internal,
            )
        result.append(event)
    return result


# What a back-out's description says it undoes: "Reverts pytorch/executorch#19719",
# "Reverts #812", "This reverts commit 576ed77ecb0e".
_REVERTS_PR = re.compile(r"\breverts\s+(?:([\w.-]+/[\w.-]+))?#(\d+)", re.I)
_REVERTS_SHA = re.compile(r"\bthis reverts commit\s+([0-9a-f]{7,40})\b", re.I)


def _referenced(
    revert: Event, by_number: dict[tuple[str, int], Event], events: list[Event]
) -> Event | None:
    """The change of `events` that `revert`'s description names as the one it undoes, by
    pull request (`by_number`) or commit, when its title does not quote that change's own."""
    body = revert.activity.body
    if (number := _title_reference(revert)) is not None:
        found = by_number.get((revert.repo, number))
        if found is not None and found is not revert:
            return found
    for repo, number in _REVERTS_PR.findall(body):
        found = by_number.get((revert.repo, int(number)))
        if found is not None and found is not revert and (not repo or repo == revert.repo):
            return found
    for sha in (s.lower() for s in _REVERTS_SHA.findall(body)):
        for other in events:
            if (
                other is not revert
                and other.repo == revert.repo
                and other.activity.sha.startswith(sha)
            ):
                return other
    return None


def withdraw_unshipped(
    events: list[Event],
    earlier: Sequence[Activity],
    *,
    reading: Callable[[Activity], Event],
    release: Callable[[Activity], Release | None],
) -> list[Event]:
    """`events` with each back-out `withdrawn` when the change it undoes landed in the window
    or in `earlier` (the history before it), the history shows the project's releases, and
    none between the two carries the change: "Revert “Promote
    duration expressions as stable”" undoes what no user got, and leaves nothing to watch.
    A patch release (1.4.2) carries the change only if it is a fix (`shipping.carries`).
    Where the history shows no release at all, its users take what lands on the default
    branch, and where it lacks the change nothing tells: the back-out keeps its item.
    `reading` classifies one earlier change alone (`classify.read_change`); `release` reads
    one as a release (`classify.release_in`)."""
    by_repo: dict[str, list[tuple[Activity, Release]]] = {}

    def releases_of(repo: str) -> list[tuple[Activity, Release]]:
        """The repository's releases of the history, read once, and of the window, as
        classified already."""
        if repo not in by_repo:
            by_repo[repo] = [
                *((a, found) for a in earlier if a.repo == repo and (found := release(a))),
                *((e.activity, e.release) for e in events if e.repo == repo and e.release),
            ]
        return by_repo[repo]

    out = []
    for event in events:
        original = None
        if event.kind == "revert" and not event.withdrawn:
            # (the change it undoes, in the window itself or in the history before it)
            original = event.linked[0] if event.linked else _earlier_original(event, earlier)
        if original is None:
            out.append(event)
            continue
        released = releases_of(event.repo)
        undone = reading(original)
        shipped = any(
            carries(found, undone) for a, found in released if _between(a, original, event.activity)
        )
        named = _named_after(event, original)
        out.append(replace(named, withdrawn=bool(released) and not shipped))
    return out


# What a back-out's title names when it names no change: a pull request ('revert: PR
# 16708', 'Revert "#812"', its number in `n` or `m`) or a commit.
REFERENCE_ONLY = re.compile(
    r"[\"'“]?(?:(?:pr|pull\s+request|change)\s*#?\s*(?P<n>\d+)|#(?P<m>\d+)"
    r"|(?:commit\s+)?[0-9a-f]{7,40})[\"'”]?",
    re.I,
)


def _title_reference(revert: Event) -> int | None:
    """The pull request a back-out's title names instead of a change, or None."""
    found = REFERENCE_ONLY.fullmatch((revert.reverts_title or "").strip())
    number = found and (found["n"] or found["m"])
    return int(number) if number else None


def _named_after(revert: Event, original: Activity) -> Event:
    """`revert`, named by the change it undoes when its title names only a pull request:
    'revert: PR 16708' backs out “cloudflare ssr deps optimization”, not "an earlier
    change (#16708)"."""
    if _title_reference(revert) is None:
        return revert
    return replace(revert, obj=split_title(original.title).subject, reverts_title=original.title)


def _earlier_original(revert: Event, earlier: Sequence[Activity]) -> Activity | None:
    """The change of `earlier` that `revert` undoes, by its title or by the pull request or
    commit its description names; the latest one when several match."""
    key = _title_key(revert.reverts_title or "")
    body = revert.activity.body
    numbers = {int(n) for repo, n in _REVERTS_PR.findall(body) if repo in ("", revert.repo)}
    if (number := _title_reference(revert)) is not None:
        numbers.add(number)
    shas = [s.lower() for s in _REVERTS_SHA.findall(body)]
    found = [
        a
        for a in earlier
        if a.repo == revert.repo
        and a.landed_at <= revert.activity.landed_at
        and (
            (key and _title_key(a.title) == key)
            or (a.number is not None and a.number in numbers)
            or any(a.sha.startswith(sha) for sha in shas)
        )
    ]
    return max(found, key=lambda a: a.landed_at) if found else None


def _between(release: Activity, original: Activity, revert: Activity) -> bool:
    """True when `release`, of the same repository, landed after `original` and before
    `revert`: it shipped the change the revert undoes."""
    return (
        release.repo == original.repo
        and original.landed_at <= release.landed_at <= revert.landed_at
    )


def drop_told_tags(events: list[Event]) -> list[Event]:
    """Releases a source fed in as tags (`releases.tag_activity`) whose versions a release
    commit of the window already tells: the commit is the story, with its files and body."""
    told = {
        (e.repo, version)
        for e in events
        if e.release is not None and not e.activity.sha.startswith(TAG_PREFIX)
        for _, version in e.release.versions
    }
    return [
        e
        for e in events
        if not (
            e.activity.sha.startswith(TAG_PREFIX)
            and e.release is not None
            and all((e.repo, v) in told for _, v in e.release.versions)
        )
    ]


def retitle_fork_merges(events: list[Event]) -> list[Event]:
    """Fork merges with what they fix as their subject, when the window says it."""
    releases = [e.activity for e in events if e.release is not None]
    out = []
    for event in events:
        if event.security and is_fork_merge(event.activity.title):
            text = fork_subject(event.activity, releases)
            if text:
                parts = split_title(re.sub(r"`?\[([^\]]*)\]\([^)]*\)`?", r"\1", text))
                verb, obj = split_verb(parts.subject)
                if verb is not None and obj.strip():
                    event = replace(event, subject=parts.subject, verb=verb, obj=obj.strip())
        out.append(event)
    return out


# A title that says it lands again at its end: "Add X (re-land)", "Add X [reland]".
_RELAND_MARK = re.compile(r"[\(\[]\s*(re-?land(ed)?|re-?appl(y|ied)|again)\s*[\)\]]\s*$", re.I)


_LANDS_UNDER_ITS_TITLE = ("feature", "fix", "refactor", "chore")


def _key(title: str) -> str:
    return re.sub(r"\W+", " ", _RELAND_MARK.sub("", title).lower()).strip()


def _lands_again(other: Event, undone: str) -> bool:
    """True when `other` lands the backed-out change (its title key `undone`) again: under
    the same title, or as a reland of it, whose title may be cut ("Revert "Revert "X…")
    or say more ("Reapply X pin with CI fixes" of "X pin bump")."""
    if other.kind in _LANDS_UNDER_ITS_TITLE:
        return _key(other.subject) == undone
    if other.kind != "reland":
        return False
    again = _key(other.obj)
    if again == undone or (other.obj.rstrip().endswith("…") and undone.startswith(again)):
        return bool(again)
    words, its = set(undone.split()), set(again.split())
    return len(words) >= 3 and len(words & its) >= 0.75 * len(words)


def fold_relands(events: list[Event]) -> list[Event]:
    """A back-out whose change lands again later in the window ("Reland X", or X under its
    own title) becomes one event, `relanded`, citing the original, the back-out and the
    reland; the reland leaves the list."""
    absorbed: set[str] = set()
    out: list[Event] = []
    # A year has thousands of events and a hundred back-outs: the changes that can land one
    # again are indexed by title key once, not keyed again for every back-out.
    position = {id(e): n for n, e in enumerate(events)}
    by_key: dict[str, list[Event]] = {}
    relands = [e for e in events if e.kind == "reland"]
    for e in events:
        if e.kind in _LANDS_UNDER_ITS_TITLE:
            by_key.setdefault(_key(e.subject), []).append(e)
    for event in events:
        if event.kind != "revert" or event.reverts_title is None:
            out.append(event)
            continue
        undone = _key(split_title(event.reverts_title).subject)
        original = {a.sha for a in event.linked}

        def after(other: Event, event: Event = event, original: set[str] = original) -> bool:
            return (
                other is not event
                and other.activity.sha not in original
                and other.activity.landed_at > event.activity.landed_at
                and other.repo == event.repo
            )

        same = next((o for o in by_key.get(undone, ()) if after(o)), None)
        reland = next((o for o in relands if after(o) and _lands_again(o, undone)), None)
        found = [o for o in (same, reland) if o is not None]
        again = min(found, key=lambda o: position[id(o)], default=None)
        if again is None:
            out.append(event)
            continue
        absorbed.add(again.activity.sha)
        out.append(
            replace(event, relanded=True, withdrawn=False, linked=(*event.linked, again.activity))
        )
    return [e for e in out if e.activity.sha not in absorbed]


# "Rename greatest, least, to max_of, min_of", "rename `server.hmr` options to `server.ws`"
_RENAME = re.compile(r"^rename\s+(?P<old>.+?)\s+(?:to|->|→)\s+(?P<new>.+)$", re.I)
_NAME_LIST = re.compile(r"\s*(?:,|\band\b|/)\s*")


def _names(text: str) -> list[str]:
    """The names a rename lists ("greatest, least," → greatest, least), bare of code marks."""
    names = [n.strip(" `'\"").removesuffix("()") for n in _NAME_LIST.split(text.strip(" .,"))]
    return [n for n in names if n]


def fold_renames(events: list[Event]) -> list[Event]:
    """A change the window adds and a later one renames is told by the names it has at the
    window's end, both cited: "adds max_of() and min_of() scalar functions [12][14]", where
    the old names would be a fact the window no longer holds. The rename is folded into it."""
    renamed: dict[str, Event] = {}
    absorbed: set[str] = set()
    for rename in events:
        match = _RENAME.match(split_title(rename.activity.title).subject)
        if match is None:
            continue
        old, new = _names(match["old"]), _names(match["new"])
        if len(old) != len(new) or not old:
            continue
        words = [re.compile(rf"(?<![\w.]){re.escape(o)}(?![\w])") for o in old]
        for added in events:
            earlier = added.activity.landed_at < rename.activity.landed_at
            if not earlier or added.kind != "feature" or added.repo != rename.repo:
                continue
            if added.activity.sha in renamed or not any(w.search(added.obj) for w in words):
                continue
            subject, obj = added.subject, added.obj
            for word, name in zip(words, new, strict=True):
                subject, obj = word.sub(name, subject), word.sub(name, obj)
            linked = (*added.linked, rename.activity)
            renamed[added.activity.sha] = replace(added, subject=subject, obj=obj, linked=linked)
            absorbed.add(rename.activity.sha)
            break
    return [renamed.get(e.activity.sha, e) for e in events if e.activity.sha not in absorbed]
