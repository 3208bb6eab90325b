"""Releases: the commit that publishes a version of the project (or of one of its packages).

Read from the shapes release tooling leaves, never from one repository's names:
`release: v8.0.16`, `release: create-vite@9.1.0`, `chore(release): 1.2.3`, changesets'
"Version Packages" (the versions are `## name@x.y.z` headings of its body), "Release 2.3.0",
"Prepare release v2.14.0", "Bump version to 0.12.4", "<Name> 1.42.1", a bare "v1.2.3";
and "Bump <Name> version" of the project's own name, a release whose title names no version.
A development version ("Bump version to 0.19.2.dev0 after release") is housekeeping,
not a release. A source that knows releases otherwise (tags, GitHub releases) builds a
`Release` itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from digest.model import Activity

_VERSION = r"v?\d+\.\d+(?:\.\d+)?(?:[-.+]?(?:a|b|rc|alpha|beta|pre|post|dev)\.?\d*)*"
_PACKAGE = r"(?:@[\w.-]+/)?[\w.-]+"
_NUMBER = re.compile(r"\s*\(#\d+\)\s*$")
# Each shape, matched against the whole title (its PR number taken off).
_TITLES = (
    # release: v8.0.16 · release: create-vite@9.1.0 · chore(release): v1.2.3 · build(release): …
    re.compile(
        rf"^(?:\w+\()?release\)?!?:\s*(?:(?P<package>{_PACKAGE})@)?(?P<version>{_VERSION})$", re.I
    ),
    # Release 2.3.0 · Release v2.3.0 · Prepare release v2.14.0a1 · Releasing create-vite 9.1.0
    re.compile(
        rf"^(?:prepare\s+(?:for\s+)?)?releas(?:e|ing)\s+(?:(?P<package>{_PACKAGE})[@ ])?"
        rf"(?P<version>{_VERSION})$",
        re.I,
    ),
    # Bump version to 0.12.4 · Bump to 1.2.3 · Set version to 2.0.0
    re.compile(
        rf"^(?:bump|set|update)\s+(?:the\s+)?(?:version\s+)?to\s+(?P<version>{_VERSION})$", re.I
    ),
    # v1.2.3 · 1.2.3 · create-vite@9.1.0 (a tag's name)
    re.compile(rf"^(?:(?P<package>{_PACKAGE})@)?(?P<version>{_VERSION})$"),
)
# "<Name> 1.42.1": a release when its files include a version manifest.
_NAMED = re.compile(
    rf"^(?P<package>[A-Z][\w-]*(?:\s+[A-Z][\w-]*){{0,2}})\s+(?P<version>{_VERSION})$"
)
# "Bump Python Polars version", "Bump version": the project's own version moves, and the
# title does not say to what. A release when it touches little more than version strings.
_VERSIONLESS = re.compile(
    r"^(?:bump|update|increment)\s+(?:the\s+)?(?:(?P<package>[\w.-]+(?:\s+[\w.-]+){0,2}?)\s+)?"
    r"versions?$",
    re.I,
)
_VERSION_LINES = 4  # lines a file of such a change may add: a version string, a lockfile entry
_CHANGESETS = re.compile(r"^version\s+packages(?:\s*\((?:beta|next|alpha|rc)\))?$", re.I)
# `## svelte@5.55.7` / `## @scope/pkg@1.0.0` in a changesets body.
_BODY_VERSION = re.compile(
    rf"^#{{1,3}}\s+(?P<package>{_PACKAGE})@(?P<version>{_VERSION})\s*$", re.M
)
_DEV = re.compile(r"(?:\.|-)?dev\d*$|-SNAPSHOT$|\bafter\s+release\b|\bpost\b", re.I)
_MANIFEST = re.compile(
    r"(^|/)(package\.json|pyproject\.toml|setup\.(py|cfg)|Cargo\.toml|version\.(py|txt|go|rb)"
    r"|__init__\.py|_version\.py|gradle\.properties|pom\.xml|CHANGELOG[^/]*|CITATION\.cff)$",
    re.I,
)


@dataclass(frozen=True)
class Release:
    """A published version: `versions` as (package or None for the project itself, version)."""

    versions: tuple[tuple[str | None, str], ...]
    prerelease: bool = False  # GitHub flags it a pre-release (`PRERELEASE_LABEL` on its tag)

    @property
    def version(self) -> str | None:
        """The project's own version when it has one, else the first package's."""
        own = [v for p, v in self.versions if p is None]
        found = own or [v for _, v in self.versions]
        return found[0] if found else None


def _plain(version: str) -> str:
    return version[1:] if version[:1] in "vV" and version[1:2].isdigit() else version


def release_of(activity: Activity, subject: str, own_keys: frozenset[str]) -> Release | None:
    """The release `activity` is, or None. `subject` is its title without tags and type
    (for the conventional `release:` shape the whole title is read); `own_keys` are the
    project's name keys, so "svelte@5.55.7" is the project's own version."""
    title = _NUMBER.sub("", activity.title.strip())
    if _CHANGESETS.match(title) or _CHANGESETS.match(subject):
        found = tuple(
            (_own(m["package"], own_keys), _plain(m["version"]))
            for m in _BODY_VERSION.finditer(activity.body)
        )
        return Release(found)
    for pattern in _TITLES:
        match = pattern.match(title) or pattern.match(_NUMBER.sub("", subject))
        if match:
            break
    else:
        if _versionless_bump(activity, _NUMBER.sub("", subject), own_keys):
            return Release(())
        match = _NAMED.match(title)
        if match is None or not any(_MANIFEST.search(f.path) for f in activity.files):
            return None
    version = match["version"]
    if _DEV.search(version) or _DEV.search(title):
        return None
    package = match.groupdict().get("package")
    prerelease = activity.sha.startswith(TAG_PREFIX) and PRERELEASE_LABEL in activity.labels
    return Release(((_own(package, own_keys), _plain(version)),), prerelease=prerelease)


def _versionless_bump(activity: Activity, subject: str, own_keys: frozenset[str]) -> bool:
    """True for the project's own version bump whose title names no version ("Bump Python
    Polars version"): a version manifest among its files, and no file changed by more than
    a version string would change it."""
    match = _VERSIONLESS.match(subject.strip())
    if match is None or _DEV.search(activity.title) or not activity.files:
        return False
    if match["package"] is not None and _own(match["package"], own_keys) is not None:
        return False  # "Bump numpy version": a dependency
    small = all((f.additions or 0) <= _VERSION_LINES for f in activity.files)
    return small and any(_MANIFEST.search(f.path) for f in activity.files)


def _own(package: str | None, own_keys: frozenset[str]) -> str | None:
    """None when `package` names the project itself ("svelte", "Python Polars")."""
    if package is None:
        return None
    # "svelte", or "Python Polars" (the project's name after a word naming a language).
    words = [re.sub(r"[^a-z0-9]+", "", w) for w in package.lower().split()]
    if "".join(words) in own_keys or (len(words) > 1 and words[-1] in own_keys):
        return None
    return package


TAG_PREFIX = "tag:"
PRERELEASE_LABEL = "prerelease"


def tag_activity(
    repo: str,
    name: str,
    landed_at: datetime,
    url: str | None = None,
    *,
    body: str = "",
    prerelease: bool = False,
) -> Activity | None:
    """A release a source knows as a tag or a GitHub release ("v8.0.16",
    "create-vite@9.1.0"), as an activity `release_of` reads; None for a tag that names
    no version ("nightly"). Its sha is `TAG_PREFIX` + the name, so it never takes a
    commit's place; `drop_told_tags` drops it when a release commit of the window tells
    the same version. `body`: the release's notes; `prerelease`: GitHub flags it one."""
    activity = Activity(
        repo=repo,
        sha=TAG_PREFIX + name,
        title=name,
        body=body,
        landed_at=landed_at,
        url=url or f"https://github.com/{repo}/releases/tag/{name}",
        labels=(PRERELEASE_LABEL,) if prerelease else (),
    )
    return activity if release_of(activity, name, frozenset()) is not None else None


def is_own_version_bump(activity: Activity, subject: str) -> bool:
    """True for the project's move to a development version after a release ("Bump version
    to 0.19.2.dev0 after release", "Set version post v2.13 release"): housekeeping."""
    return bool(
        re.search(r"\bversion\b", subject, re.I)
        and (_DEV.search(_NUMBER.sub("", subject)) or re.search(r"\bpost\b.*\brelease\b", subject))
        and activity.files
        and all(_MANIFEST.search(f.path) or f.path.endswith(".md") for f in activity.files)
    )
