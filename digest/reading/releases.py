"""Releases: the commit that publishes a version of the project (or of one of its packages).

Read from the shapes release tooling leaves, never from one repository's names:
`release: v8.0.16`, `release: create-vite@9.1.0`, `chore(release): 1.2.3`, "Release 2.3.0",
"Release version 0.140.0" (an emoji before it is decoration), "Prepare release v2.14.0",
"Prepare release version 9.1.0", "prepare Tokio v1.53.1", "Prepare 2.3.0 release" (after a
`REL:` prefix too), "Bump version to 0.12.4", "Bump 0.16.1", "<Name> 1.42.1", "axum-core
0.5.6", a bare "v1.2.3" or "4.3.3"; changesets' "Version Packages" and `[ci] release` /
`ci: release` (the versions are `## name@x.y.z` headings of its body, or release-plz's
"`name`: 1.0.0 -> 1.0.1" lines; failing those, the packages whose changelogs it writes);
"Bump <Name> version" of the project's own name and "release pyo3-polars", releases whose
title names no version. A name before a version with no word saying "release" is believed
only with a version manifest or changelog among the files, and one not the project's own
only when it names a folder of such a file (so "python 3.14" is none). A
dependency bump ("Bump foo from 1.2 to 1.3") is never a release, and a development version
("Bump version to 0.19.2.dev0 after release") is housekeeping. A source that knows releases
otherwise (tags, GitHub releases) builds a `Release` itself.

Which changes of a window each release carries is `digest.reading.shipping`'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import PurePosixPath

from digest.model import Activity

_VERSION = r"v?\d+\.\d+(?:\.\d+)?(?:[-.+]?(?:a|b|rc|alpha|beta|pre|post|dev)\.?\d*)*"
_PACKAGE = r"(?:@[\w.-]+/)?[\w.-]+"
_NUMBER = re.compile(r"\s*\(#\d+\)\s*$")
# Each shape, matched against the whole title (its PR number taken off) and its subject.
_TITLES = (
    # release: v8.0.16 · release: create-vite@9.1.0 · chore(release): v1.2.3 · build(release): …
    re.compile(
        rf"^(?:\w+\()?release\)?!?:\s*(?:(?P<package>{_PACKAGE})@)?(?P<version>{_VERSION})$", re.I
    ),
    # Release 2.3.0 · Release version 0.140.0 · Prepare release v2.14.0a1 · Prepare release
    # version 9.1.0 · Releasing create-vite 9.1.0 · Cut v3.5.0-rc.0 · Cut release 3.5.0
    re.compile(
        rf"^(?:prepare\s+(?:for\s+)?)?(?:releas(?:e|ing)|cut(?:\s+release)?)\s+(?:version\s+)?"
        rf"(?:(?P<package>{_PACKAGE})[@ ])?(?:version\s+)?(?P<version>{_VERSION})$",
        re.I,
    ),
    # Prepare 2.3.0 release · Prepare for the NumPy 2.3.0 release · Prepare v1.2 for release
    re.compile(
        rf"^prepare\s+(?:for\s+)?(?:the\s+)?(?:(?P<package>{_PACKAGE}(?:\s+[A-Z][\w-]*)?)\s+)?"
        rf"(?:version\s+)?(?P<version>{_VERSION})\s+(?:for\s+)?release$",
        re.I,
    ),
    # Bump version to 0.12.4 · Bump to 1.2.3 · Set version to 2.0.0 · Bump 0.16.1
    re.compile(
        rf"^(?:(?:bump|set|update)\s+(?:the\s+)?(?:version\s+)?to|bump(?:\s+version)?)\s+"
        rf"(?P<version>{_VERSION})$",
        re.I,
    ),
    # v1.2.3 · 1.2.3 · create-vite@9.1.0 (a tag's name)
    re.compile(rf"^(?:(?P<package>{_PACKAGE})@)?(?P<version>{_VERSION})$"),
)
# A tag's name: "tokio-1.52.4", "tokio-stream-0.1.19", "axum-v0.8.9", "cli/v2.0.0".
_TAG = re.compile(rf"^(?P<package>(?:@[\w.-]+/)?[\w.-]+?)[-/](?P<version>{_VERSION})$")
# "<Name> 1.42.1", "axum-core 0.5.6", "prepare Tokio v1.53.1", "prepare tokio-stream
# v0.1.19": a release when its files say so (`_names_a_product`).
_NAMED = (
    re.compile(rf"^(?P<package>{_PACKAGE}(?:\s+[A-Z][\w-]*){{0,2}})\s+(?P<version>{_VERSION})$"),
    re.compile(
        rf"^prepare\s+(?:version\s+)?(?P<package>{_PACKAGE}(?:\s+[A-Z][\w-]*)?)\s+"
        rf"(?:version\s+)?(?P<version>{_VERSION})$",
        re.I,
    ),
)
# "release pyo3-polars": a package's release whose title names no version.
_RELEASE_OF = re.compile(rf"^release\s+(?P<package>{_PACKAGE})$", re.I)
# "Bump Python Polars version", "Bump version": the project's own version moves, and the
# title does not say to what. A release when it touches little more than version strings.
_VERSIONLESS = re.compile(
    r"^(?:bump|update|increment)\s+(?:the\s+)?(?:(?P<package>[\w.-]+(?:\s+[\w.-]+){0,2}?)\s+)?"
    r"versions?$",
    re.I,
)
_VERSION_LINES = 4  # lines a file of such a change may add: a version string, a lockfile entry
# Changesets' and release-plz's release PRs: "Version Packages", "[ci] release", "ci: release".
_CHANGESETS = re.compile(r"^version\s+packages(?:\s*\((?:beta|next|alpha|rc)\))?$", re.I)
_PRE_MODE = re.compile(r"\((?:beta|next|alpha|rc)\)", re.I)
_BARE_RELEASE = re.compile(
    r"^(?:\[ci\]\s*|(?:ci|chore|build)(?:\([\w-]+\))?:\s*)?release"
    r"(?:\s*\((?:beta|next|alpha|rc)\))?$",
    re.I,
)
# `## svelte@5.55.7` / `## @scope/pkg@1.0.0` in a changesets body.
_BODY_VERSION = re.compile(
    rf"^#{{1,3}}\s+(?P<package>{_PACKAGE})@(?P<version>{_VERSION})\s*$", re.M
)
# release-plz: "* `axum`: 0.8.8 -> 0.8.9 (✓ API compatible changes)".
_PLZ_VERSION = re.compile(
    rf"^\s*[*-]\s+`(?P<package>{_PACKAGE})`:\s*\S+\s*->\s*(?P<version>{_VERSION})\b", re.M
)
# A heading of notes that lists breaking changes ("### Breaking changes", "### Major Changes").
_BREAKING_HEADING = re.compile(r"^#{1,6}\s+.*\b(?:breaking|major\s+changes?)\b", re.I)
_BREAKING_WORDS = re.compile(r"breaking|major", re.I)
_HEADING = re.compile(r"^#{1,6}\s")
_ITEM = re.compile(r"^[*-]\s+\S|^\d+[.)]\s+\S")
_AFTER_RELEASE = re.compile(
    rf"^(?:\w+:\s*)?(?:update|sync|forward[- ]port)\s+(?:the\s+)?(?:main|master|trunk)"
    rf"(?:\s+branch)?\s+(?:after|with|for)\s+(?:the\s+)?(?:[A-Za-z][\w.-]*\s+)?"
    rf"(?:(?P<series>\d+\.\d+)\.[x*]|(?P<version>{_VERSION}))\s+releases?(?:\s+notes)?$",
    re.I,
)
# A file of one release's notes or changelog, named by its version: "doc/release/2.4.5-notes.rst".
_NOTES_FILE = re.compile(rf"(?:^|/)(?P<version>{_VERSION})[-_.]?(?:notes|changelog)\b", re.I)
_DEV = re.compile(r"(?:\.|-)?dev\d*$|-SNAPSHOT$|\bafter\s+release\b|\bpost\b", re.I)
MANIFEST = re.compile(
    r"(^|/)(package\.json|pyproject\.toml|setup\.(py|cfg)|Cargo\.toml|version\.(py|txt|go|rb)"
    r"|__init__\.py|_version\.py|gradle\.properties|pom\.xml|CHANGELOG[^/]*|CITATION\.cff)$",
    re.I,
)
_CHANGELOG = re.compile(r"(^|/)(CHANGELOG|CHANGES|HISTORY)[^/]*$", re.I)


@dataclass(frozen=True)
class Release:
    """A published version: `versions` as (package or None for the project itself, version);
    `packages`, those it publishes whose versions nothing says ("release pyo3-polars"; None
    for the project itself);
    `breaking`, how many breaking changes its notes list;
    `elsewhere`, cut on another branch (see the field)."""

    versions: tuple[tuple[str | None, str], ...]
    # GitHub flags it a pre-release (`PRERELEASE_LABEL` on its tag), or changesets' pre mode
    # names its channel ("[ci] release (beta)")
    prerelease: bool = False
    packages: tuple[str | None, ...] = ()
    breaking: int = 0
    # Cut on a maintenance branch, its notes brought back to the default branch ("Update
    # main after 2.5.0 release"), or a candidate's promotion (`promotes_candidate`): it
    # carries none of the default branch's changes.
    elsewhere: bool = False

    @property
    def version(self) -> str | None:
        """The project's own version when it has one, else the first package's."""
        own = [v for p, v in self.versions if p is None]
        found = own or [v for _, v in self.versions]
        return found[0] if found else None

    @property
    def products(self) -> tuple[str | None, ...]:
        """What it publishes, each once: None for the project itself, else a package."""
        found = [p for p, _ in self.versions] + list(self.packages)
        return tuple(dict.fromkeys(found)) or (None,)


def _plain(version: str) -> str:
    return version[1:] if version[:1] in "vV" and version[1:2].isdigit() else version


def release_of(activity: Activity, subject: str, own_keys: frozenset[str]) -> Release | None:
    """The release `activity` is, or None. `subject` is its title without tags and type
    (for the conventional `release:` shape the whole title is read); `own_keys` are the
    project's name keys, so "svelte@5.55.7" is the project's own version."""
    # A full stop ends a sentence, not a version: "Update main after 2.5.0 release."
    title = _NUMBER.sub("", activity.title.strip()).rstrip(".")
    subject = _NUMBER.sub("", subject.strip()).rstrip(".")
    versionless = bool(_CHANGESETS.match(title) or _CHANGESETS.match(subject))
    if versionless or _BARE_RELEASE.match(title):
        return _changesets(activity, own_keys, versionless=versionless)
    if after := _AFTER_RELEASE.match(title):
        # "Update main after 2.4.5 release": a release cut on a maintenance branch, whose
        # notes come back to the default branch; "after 2.4.x release" names the series,
        # and the notes files it adds name the versions.
        if after["version"]:
            return Release(((None, _plain(after["version"])),), elsewhere=True)
        found = {
            _plain(m["version"])
            for f in activity.files
            if (m := _NOTES_FILE.search(f.path)) and m["version"].startswith(after["series"] + ".")
        }
        ordered = sorted(found, key=lambda v: tuple(int(n) for n in re.findall(r"\d+", v)))
        return Release(tuple((None, v) for v in ordered), elsewhere=True) if ordered else None
    match = next((m for p in _TITLES if (m := p.match(title) or p.match(subject))), None)
    if match is None and activity.sha.startswith(TAG_PREFIX):
        match = _TAG.match(title)
    if match is None:
        if _versionless_bump(activity, subject, own_keys):
            return Release((), breaking=stated_breaking(activity.body))
        if (named := _RELEASE_OF.match(subject)) and _names_a_product(
            named["package"], activity, own_keys
        ):
            package = _own(named["package"], own_keys)
            return Release((), packages=(package,), breaking=stated_breaking(activity.body))
        match = next((m for p in _NAMED if (m := p.match(subject))), None)
        if match is None or not _names_a_product(match["package"], activity, own_keys):
            return None
    version = match["version"]
    if _DEV.search(version) or _DEV.search(title):
        return None
    package = match.groupdict().get("package")
    prerelease = activity.sha.startswith(TAG_PREFIX) and PRERELEASE_LABEL in activity.labels
    versions = ((_own(package, own_keys), _plain(version)),)
    return Release(
        versions,
        prerelease=prerelease,
        breaking=stated_breaking(activity.body),
        elsewhere=promotes_candidate(activity),
    )


def promotes_candidate(activity: Activity) -> bool:
    """True when a release commit rewrites one line of its changelog and adds none: the
    heading of notes written when its candidate was cut ("3.12.0-rc.0 / 2026-05-15" becomes
    "3.12.0 / 2026-05-28"). Such a release publishes what its candidate froze, on its
    branch, not the default branch's changes since."""
    notes = [f for f in activity.files if _CHANGELOG.search(f.path)]
    return bool(notes) and all(
        f.additions is not None and f.additions <= 1 and (f.deletions or 0) <= 1 for f in notes
    )


def _changesets(
    activity: Activity, own_keys: frozenset[str], *, versionless: bool
) -> Release | None:
    """A release PR of changesets or release-plz: the versions its body lists, else the
    packages whose changelogs it writes (their versions unknown). `versionless`: a "Version
    Packages" title, a release whatever its files; a bare "release" needs a changelog or
    version manifest among them."""
    breaking = stated_breaking(activity.body)
    # "[ci] release (beta)", "Version Packages (next)": changesets' pre mode
    prerelease = _PRE_MODE.search(activity.title) is not None
    found = tuple(
        dict.fromkeys(
            (_own(m["package"], own_keys), _plain(m["version"]))
            for pattern in (_BODY_VERSION, _PLZ_VERSION)
            for m in pattern.finditer(activity.body)
        )
    )
    if found:
        return Release(found, prerelease=prerelease, breaking=breaking)
    folders = [PurePosixPath(f.path).parent for f in activity.files if _CHANGELOG.search(f.path)]
    names = [None if str(d) == "." else _own(d.name, own_keys) for d in folders]
    if not (names or versionless or any(MANIFEST.search(f.path) for f in activity.files)):
        return None
    packages = tuple(dict.fromkeys(names)) if names != [None] else ()
    return Release((), packages=packages, prerelease=prerelease, breaking=breaking)


def _names_a_product(package: str, activity: Activity, own_keys: frozenset[str]) -> bool:
    """True when a release's title names `package` and its files bear it out: a version
    manifest or changelog among them, and for a name that is not the project's own, such a
    file in a folder of that name ("axum-core/Cargo.toml" for "axum-core 0.5.6"), so that
    "python 3.14" or "Python 3.14" beside a pyproject.toml is no release."""
    manifests = [f.path for f in activity.files if MANIFEST.search(f.path)]
    if not manifests:
        return False
    if _own(package, own_keys) is None:
        return True
    key = product_key(package)
    return any(product_key(part) == key for path in manifests for part in path.split("/")[:-1])


@lru_cache(maxsize=1024)
def product_key(name: str) -> str:
    """A package's name without its scope, as letters and digits ("@astrojs/node" → "node")."""
    return re.sub(r"[^a-z0-9]+", "", name.rsplit("/", 1)[-1].lower())


def stated_breaking(body: str) -> int:
    """How many breaking changes release notes list: the items under their "Breaking
    changes" (or changesets' "Major Changes") headings."""
    if not _BREAKING_WORDS.search(body):
        return 0
    count, inside = 0, False
    for line in body.splitlines():
        text = line.strip()
        if _HEADING.match(text):
            inside = _BREAKING_HEADING.match(text) is not None
        elif inside and _ITEM.match(text) and not line[:1].isspace():
            count += 1
    return count


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
    return small and any(MANIFEST.search(f.path) for f in activity.files)


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
# A candidate's version: "3.13.0-rc.1", "8.1.0-beta.0", "2.0.0a1".
CANDIDATE_VERSION = re.compile(r"\d[-.]?(rc|alpha|beta|a|b|pre|dev)\.?\d*\b", re.I)


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
    paths = [f.path for f in activity.files]
    if _BARE_VERSION_BUMP.match(subject) and any(_VERSION_FILE.search(p) for p in paths):
        # "bump UI version": the VERSION file and the manifests beside it, no dependency's
        return all(
            MANIFEST.search(p) or _VERSION_FILE.search(p) or _LOCKFILE.search(p) for p in paths
        )
    return bool(
        re.search(r"\bversion\b", subject, re.I)
        and (_DEV.search(_NUMBER.sub("", subject)) or re.search(r"\bpost\b.*\brelease\b", subject))
        and activity.files
        and all(MANIFEST.search(f.path) or f.path.endswith(".md") for f in activity.files)
    )


# A title that bumps a version and names no number or dependency: "bump UI version".
_BARE_VERSION_BUMP = re.compile(r"^bump\s+(?:\S+\s+)?versions?$", re.I)
# The project's own version file, which no dependency update touches.
_VERSION_FILE = re.compile(r"(^|/)VERSION$")
_LOCKFILE = re.compile(r"(^|/)(package-lock\.json|pnpm-lock\.yaml|yarn\.lock|Cargo\.lock)$")


def version_order(version: str) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """A version's place in its run: by its numbers, a pre-release ("8.1.0-beta.0",
    "2.0.0rc1") before its release ("8.1.0"), which "8.1.0 to 8.1.0-beta.0" read backwards."""
    match = _PRE_RELEASE.search(version)
    base, pre = (version[: match.start()], version[match.start() :]) if match else (version, "")
    numbers = tuple(int(n) for n in re.findall(r"\d+", base))
    return numbers, 0 if pre else 1, tuple(int(n) for n in re.findall(r"\d+", pre))


# Where a pre-release's tag starts: "-beta.0", "rc1", ".dev3", "a2".
_PRE_RELEASE = re.compile(
    r"(?<=\d)(?:[-.]?)(?:alpha|beta|rc|pre|dev|next|canary|a|b|c)\.?\d*", re.I
)
