"""What a release carries: the changes of a window each release ships.

`shipped` gives each release the changes of its own product (its package's folder, or for
the project's own release whatever no other released package holds) that landed after that
product's previous release and before it, or with it. A release cut on another branch
carries none of the default branch's changes (`Release.elsewhere`), nor does one of a
series whose candidate came before it (`_frozen`); a patch release carries fixes alone
(`carries`); a release that consumes changesets carries the changes whose notes it consumes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from digest.model import Activity
from digest.reading.releases import MANIFEST, Release, product_key

if TYPE_CHECKING:
    from digest.reading.event import Event


def shipped(events: Sequence[Event]) -> dict[str, list[Event]]:
    """Each release's changes among `events` (one repository's), by the release's sha: those
    of a product it publishes that landed after that product's previous release and before
    it, or with it (a rebase lands a batch at one instant, the release among it). A
    package's changes touch its folder (that of its manifest or changelog, named like it) or
    name it as their product; the project's own release carries the rest: every change with
    a file outside the released packages' folders and no other product named."""
    folders = _package_folders([e for e in events if e.release is not None])
    since: dict[str | None, dict[int, Event]] = {}
    result: dict[str, list[Event]] = {}
    frozen: set[tuple[str | None, str]] = set()  # (product, series) a candidate has frozen
    for event in sorted(events, key=lambda e: (e.activity.landed_at, e.release is not None)):
        if event.release is not None and (event.release.elsewhere or _frozen(event, frozen)):
            # Its changes landed on its own branch; the default branch's wait for the next.
            result[event.activity.sha] = []
            frozen |= _candidates(event.release)
            continue
        if event.release is not None:
            frozen |= _candidates(event.release)
        if event.release is not None:
            carried: dict[int, Event] = {}
            patch = _patch_only(event.release)
            for product in event.release.products:
                key = None if product is None else product_key(product)
                found = since.pop(key, {})
                if patch:
                    # A patch release (1.4.2) is cut from a release branch: a breaking change
                    # or a feature on the default branch waits for the next minor or major
                    # one (semantic versioning gives a patch its fixes alone).
                    if held := {i: e for i, e in found.items() if _not_for_a_patch(e)}:
                        since[key] = held
                    found = {i: e for i, e in found.items() if not _not_for_a_patch(e)}
                carried.update(found)
            found_by_date = sorted(carried.values(), key=lambda e: e.activity.landed_at)
            result[event.activity.sha] = _by_changesets(event, found_by_date, events)
            continue
        for key in _products_of(event, folders):
            since.setdefault(key, {})[id(event)] = event
    return result


# A release candidate ("3.13.0-rc.0") and the series it freezes ("3.13").
_CANDIDATE = re.compile(r"^v?(?P<series>\d+\.\d+)(\.\d+)?-?rc\.?\d*$", re.I)
_SERIES = re.compile(r"^v?(?P<series>\d+\.\d+)\b")
_LATER_CANDIDATE = re.compile(r"-rc\.(?P<n>\d+)$", re.I)


def _candidates(release: Release) -> set[tuple[str | None, str]]:
    """The (product, series) of each release candidate `release` publishes."""
    return {
        (package, m["series"])
        for package, version in release.versions
        if (m := _CANDIDATE.match(version))
    }


def _frozen(event: Event, frozen: set[tuple[str | None, str]]) -> bool:
    """True for a release of a series whose candidate came before it ("3.13.0-rc.1",
    "3.13" after "3.13.0-rc.0"): cut from the branch the candidate froze, it carries none of
    the default branch's changes since (prometheus's 3.13 was credited with changes merged
    to main after its candidates)."""
    release = event.release
    if release is None:
        return False
    # (a second candidate, "-rc.1", had a first, whether or not it is at hand; "rc1" may be
    # the first, as Python spells it)
    later = any(
        (n := _LATER_CANDIDATE.search(version)) and int(n["n"]) >= 1
        for _, version in release.versions
    )
    return later or any(
        (package, m["series"]) in frozen
        for package, version in release.versions
        if (m := _SERIES.match(version))
    )


_PATCH_VERSION = re.compile(r"^v?(?P<major>\d+)\.\d+\.(?P<patch>\d+)$")


def carries(release: Release, change: Event) -> bool:
    """True when `release`, landed after `change` on its branch, may ship it: not one cut on
    another branch (`elsewhere`), nor a patch release when the change is a feature or
    breaking (`_not_for_a_patch`)."""
    return not release.elsewhere and not (_patch_only(release) and _not_for_a_patch(change))


def _not_for_a_patch(event: Event) -> bool:
    """True for a change a patch release does not carry: a breaking one, or a feature."""
    return event.breaking or (event.kind == "feature" and not event.security)


def _patch_only(release: Release) -> bool:
    """True when every version a release publishes is a patch release of a stable line
    (1.4.2, not 1.5.0, 0.4.2 or 2.0.0-rc.1): one that semantic versioning keeps compatible."""
    found = [_PATCH_VERSION.match(version) for _, version in release.versions]
    return bool(found) and all(
        m is not None and int(m["major"]) >= 1 and int(m["patch"]) > 0 for m in found
    )


_CHANGESET_FOLDER = ".changeset/"


def changeset_files(activity: Activity, status: str) -> set[str]:
    """The release-note entries (`.changeset/*.md`) `activity` adds ("A") or deletes ("D")."""
    return {
        f.path
        for f in activity.files
        if f.status == status and f.path.startswith(_CHANGESET_FOLDER) and f.path.endswith(".md")
    }


def _by_changesets(release: Event, found: list[Event], events: Sequence[Event]) -> list[Event]:
    """What a release that consumes changesets (deletes the `.changeset/*.md` its changes
    added) carries: the changes whose changesets it consumes, and of those `shipped` found
    by product and date, the ones that wrote no changeset. A change whose changeset it
    leaves is some later release's news, whatever the dates say."""
    consumed = changeset_files(release.activity, "D")
    if not consumed:
        return found
    at = release.activity.landed_at
    noted = {
        id(e): e
        for e in events
        if e.release is None
        and e.activity.landed_at <= at
        and changeset_files(e.activity, "A") & consumed
    }
    unnoted = {id(e): e for e in found if not changeset_files(e.activity, "A")}
    return sorted({**unnoted, **noted}.values(), key=lambda e: e.activity.landed_at)


def product_of(change: Event, releases: Sequence[Event]) -> str | None:
    """The package among those `releases` publish whose change `change` is, by their keys
    (`shipped`'s reading); None for the project's own."""
    folders = _package_folders(releases)
    names = {product_key(p): p for r in releases if r.release for p in r.release.products if p}
    keys = sorted(k for k in _products_of(change, folders) if k is not None)
    return names.get(keys[0]) if keys and None not in _products_of(change, folders) else None


def is_own_change(change: Event, releases: Sequence[Event]) -> bool:
    """True when `change` is of the project itself and of none of the packages `releases`
    publish: "a fix to astro" of a change to the cloudflare and svelte integrations read
    as astro's."""
    return _products_of(change, _package_folders(releases)) == {None}


def _package_folders(releases: Sequence[Event]) -> dict[str, tuple[str, ...]]:
    """Each released package's folders, by its key, each ending in "/"."""
    folders: dict[str, set[str]] = {}
    for event in releases:
        for product in event.release.products if event.release else ():
            if product is not None:
                folders.setdefault(product_key(product), set()).update(
                    _folders(event.activity, product)
                )
    return {key: tuple(sorted(f + "/" for f in found)) for key, found in folders.items()}


def _products_of(change: Event, folders: dict[str, tuple[str, ...]]) -> set[str | None]:
    """The keys of the products whose change `change` is: each package whose folder it
    touches or which it names, and the project itself (None) unless every file of it lies
    in packages' folders or it names another product."""
    named = product_key(change.product) if change.product else None
    if not folders:
        return {None} if named is None else set()
    paths = [f.path for f in change.activity.files if "/" in f.path]
    found: set[str | None] = {
        key
        for key, inside in folders.items()
        if named == key or (inside and any(p.startswith(inside) for p in paths))
    }
    claimed = tuple(f for inside in folders.values() for f in inside)
    if named is None and not (paths and claimed and all(p.startswith(claimed) for p in paths)):
        found.add(None)
    return found


def _folders(activity: Activity, package: str) -> set[str]:
    """The folders of `activity`'s version manifests and changelogs named like `package`
    ("packages/integrations/node" for "@astrojs/node")."""
    key = product_key(package)
    found = set()
    for change in activity.files:
        folder, _, _ = change.path.rpartition("/")
        if folder and MANIFEST.search(change.path) and product_key(folder) == key:
            found.add(folder)
    return found
