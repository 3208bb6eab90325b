"""Normalizing a commit or PR title (N1–N3): what it is about, and what is only decoration.

`split_title` takes off what a title carries besides its subject: `[tag]` groups,
conventional-commit prefixes (`feat(parser)!:`), scope prefixes ("Arm backend:",
"Qualcomm AI Engine Direct - "), stack markers ("[1/N]", "2/x:"), trailing PR numbers
"(#123)", and emoji or gitmoji shortcodes (`:sparkles:`). Scopes and tags become topic
hints; a `!` is kept as `breaking_marker`.

`is_dependency_bump` recognises the automated and hand-written dependency updates
("Bump X from A to B", "Update dependency X to v2", `chore(deps): …`, dependabot or
renovate as author) so they can be counted instead of told one by one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from digest.english.shapes import split_verb
from digest.english.words import CHANGE_VERBS
from digest.reading.title_tags import AREA_TYPES, TYPE_WORDS, first_product, type_prefix

# Title tags that say nothing about the subject (N2).
_NOISE_TAGS = re.compile(
    r"^(\d+\s*/\s*(\d+|n|x)|ez|be|wip|rfc|draft|ready|easy|nfc|ghstack-poisoned|"
    r"deps|deps-dev|dev-deps|dependencies|skip ci|ci skip|no ci|readme)$",
    re.I,
)
_TAGS = re.compile(r"^\s*((?:\[[^\]]{1,40}\]\s*)+)")
_TRAILING_TAG = re.compile(r"\s*\[([^\]]{1,40})\]\s*$")
# "Arm: …", "AdaMSS, PSOFT: …" (areas listed with commas), "Name (scope): …".
_COLON_PREFIX = re.compile(
    r"^([A-Za-z][\w .+/-]{0,38}?(?:,\s*[A-Za-z][\w.+/-]{0,20}){0,3})"
    r"(?:\s*\(([\w .+/-]{1,30})\))?\s*:\s+(?=\S)"
)
_CONVENTIONAL = re.compile(
    r"^(?P<kind>feat|feature|fix|bugfix|hotfix|chore|docs?|tests?|ci|refactor|perf|build|"
    r"style|revert|deps|security|release|depr|deprecat(?:e|ed|ion)|typing|bench)"
    r"(?:\((?P<scope>[^)]{1,40})\))?(?P<bang>!)?\s*:\s+",
    re.I,
)
# A branch's name for a title: "Fix/16633 noimagemetadata for svg". Its type says the kind;
# the rest of its name is no area ("feat/ui: X", with a colon, is a type and its scope).
_BRANCH_NAME = re.compile(
    r"^(?P<kind>feat|feature|fix|bugfix|hotfix|chore|docs?|refactor|perf)/[\w.-]+\s+(?!\W)",
    re.I,
)
# Conventional types spelled more than one way, under one name.
_CONVENTIONAL_KINDS = {
    "depr": "deprecation",
    "deprecate": "deprecation",
    "deprecated": "deprecation",
}
# "Qualcomm AI Engine Direct - X", "NXP backend — X": a name of capitalised words and a dash.
_DASH_PREFIX = re.compile(
    r"^(?P<name>[A-Z][\w.+/]*(?:\s+[A-Z0-9][\w.+/]*){0,4}?)(?:\s+backends?)?\s+[-–—]\s+(?=\S+\s+\S)",
)
_MARKER = re.compile(
    r"^(?:\[\s*\d+\s*/\s*(?:\d+|n|x)\s*\]|\(\s*\d+\s*/\s*(?:\d+|n|x)\s*\)|\d+\s*/\s*(?:\d+|n|x))"
    r"\s*:?\s+",
    re.I,
)
_TRAILING_MARKER = re.compile(r"\s*[\[(]\s*\d+\s*/\s*(?:\d+|n|x)\s*[\])]\s*$", re.I)
_PR_NUMBER = re.compile(r"\s*\(#(\d+)\)\s*$")
# "(fix #22274)", "(closes #12, #13)": the issue a change closes, no words of a sentence.
_ISSUE_REFERENCE = re.compile(
    r"\s*[(\[](?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|refs?|see)\s+#\d+(?:\s*,\s*#\d+){0,5}[)\]]\s*$",
    re.I,
)
_GITMOJI = re.compile(r"^:[a-z0-9_+-]{2,40}:\s*|\s*:[a-z0-9_+-]{2,40}:$")
_REVERT = re.compile(r"^(?:revert|back\s*out|backout|roll\s*back)\b", re.I)


@dataclass(frozen=True)
class TitleParts:
    """A title with its tags and prefixes taken off (N2, N3).

    `kind` and `scope` come from a conventional-commit prefix (`fix(parser):` gives "fix"
    and "parser"), or from upper-case type words ("TST FIX …" gives "test", `kinds` holds
    every one: ("test", "fix")); `breaking_marker` is its `!`; `number` is a trailing
    "(#123)". `product` is the first tag shaped like a product or crate that lives in the
    repository ("ty" of "[ty] Respect …", "uv-resolver" of "uv-resolver: …"), as written:
    a composer may make it the sentence's subject (`digest.reading.title_tags`).
    """

    subject: str
    tags: tuple[str, ...]
    kind: str | None = None
    scope: str | None = None
    breaking_marker: bool = False
    number: int | None = None
    kinds: tuple[str, ...] = ()
    product: str | None = None


def _is_decoration(char: str) -> bool:
    """Emoji and the joiners and selectors that build them."""
    if char in "\u200d\ufe0f\ufe0e\u20e3":
        return True
    return ord(char) > 0x7F and unicodedata.category(char) in ("So", "Sk", "Cs")


def strip_decoration(text: str) -> str:
    """`text` without leading or trailing emoji and gitmoji shortcodes (":sparkles: Add X")."""
    previous = None
    while previous != text:
        previous = text
        if text.startswith(":") or text.endswith(":"):
            text = _GITMOJI.sub("", text).strip()
        start, end = 0, len(text)
        while start < end and (_is_decoration(text[start]) or text[start].isspace()):
            start += 1
        while end > start and (_is_decoration(text[end - 1]) or text[end - 1].isspace()):
            end -= 1
        text = text[start:end]
    return text


def _dash_prefix(text: str) -> re.Match[str] | None:
    """A leading "Name - " whose name is not a verb phrase ("Fix Foo - bar" keeps its dash)."""
    if not (" - " in text or " – " in text or " — " in text):
        return None
    match = _DASH_PREFIX.match(text)
    if match is None or split_verb(match.group("name"))[0] is not None:
        return None
    return match


@lru_cache(maxsize=8192)
def _opens_with_a_verb(prefix: str) -> bool:
    """True for a "prefix" that is the title's own clause ("Use redirect: manual in X"): a
    verb of change and more words, where an area ("Arm backend", "AWS SD") has names."""
    first, _, rest = prefix.partition(" ")
    return bool(rest) and first[1:].islower() and first.lower() in CHANGE_VERBS


@lru_cache(maxsize=16384)
def split_title(title: str) -> TitleParts:
    """Strip decoration, tags, markers, scope and conventional-commit prefixes off a title."""
    tags: list[str] = []
    kind: str | None = None
    scope: str | None = None
    breaking = False
    text = strip_decoration(title.strip())
    number = None
    while text.endswith(")") and (match := _PR_NUMBER.search(text[-32:])):
        # One "(#N)" at a time, looked for in the tail only: a repeated group searched for
        # over the whole title is quadratic in its length.
        number = int(match.group(1))
        text = strip_decoration(text[: max(0, len(text) - 32) + match.start()])
    while text.endswith("]") and (match := _TRAILING_TAG.search(text)):
        tags.append(match.group(1).strip())
        text = text[: match.start()]
    if text.endswith((")", "]")):
        text = _TRAILING_MARKER.sub("", _ISSUE_REFERENCE.sub("", text))
    kinds: list[str] = []
    scoped: set[str] = set()
    for _ in range(6):
        typed, areas, rest = type_prefix(text)
        if typed:
            kinds += [k for k in typed if k not in kinds]
            tags += areas
            text = rest
        elif match := _TAGS.match(text):
            for tag in (t.strip() for t in re.findall(r"\[([^\]]+)\]", match.group(1))):
                if tag in TYPE_WORDS:
                    kinds += [TYPE_WORDS[tag]] if TYPE_WORDS[tag] not in kinds else []
                    tags += [tag] if tag in AREA_TYPES else []
                else:
                    tags.append(tag)
            text = text[match.end() :]
        elif match := _MARKER.match(text):
            text = text[match.end() :]
        elif match := _BRANCH_NAME.match(text):
            kind = kind or match.group("kind").lower()
            text = text[match.end() :]
        elif match := _CONVENTIONAL.match(text):
            kind = kind or _CONVENTIONAL_KINDS.get(
                match.group("kind").lower(), match.group("kind").lower()
            )
            breaking = breaking or bool(match.group("bang"))
            if match.group("scope"):
                scopes = [s.strip() for s in match.group("scope").split(",") if s.strip()]
                scope = scope or (scopes[0] if scopes else None)
                tags += scopes
                scoped.update(scopes)
            text = text[match.end() :]
            if kind == "revert" and not _REVERT.match(text):
                text = f"Revert {text}"
        elif match := _dash_prefix(text):
            tags.append(match.group("name"))
            text = text[match.end() :]
        elif (
            (match := _COLON_PREFIX.match(text))
            and not _REVERT.match(text)
            and not _opens_with_a_verb(match.group(1))
        ):
            listed = [
                re.sub(r"\s+backends?$", "", a.strip(), flags=re.I)
                for a in match.group(1).split(",")
            ]
            tags += [*listed, *([match.group(2).strip()] if match.group(2) else [])]
            text = text[match.end() :]
        else:
            break
        text = strip_decoration(text)
    tags = [t for t in tags if t and not _NOISE_TAGS.match(t)]
    if kind is not None and kind not in kinds:
        kinds.append(kind)
    return TitleParts(
        subject=text.strip() or title.strip(),
        tags=tuple(tags),
        kind=kinds[0] if kinds else None,
        kinds=tuple(kinds),
        product=first_product((t, t not in scoped) for t in tags),
        scope=scope,
        breaking_marker=breaking,
        number=number,
    )


# ---------------------------------------------------------------- dependency bumps


@dataclass(frozen=True)
class BumpInfo:
    """A dependency update: what moved, between which versions, and whether it matters.

    `major` is a major version jump (for 0.x versions a minor one, as semver reads them);
    `security` says the change's own title names a CVE or GHSA advisory or carries a
    `[security]` tag, or a label marks it (never the word inside a name, never a body,
    which a bot fills with the dependency's own notes);
    `count` is how many updates the change carries ("Bump the rust group with 6 updates").
    """

    package: str | None
    from_version: str | None = None
    to_version: str | None = None
    major: bool = False
    security: bool = False
    count: int = 1


_BOT_AUTHORS = re.compile(
    r"^(dependabot|renovate|pre-commit-ci|depfu|snyk-bot|greenkeeper|pyup-bot)(\[bot\])?$", re.I
)
# A bump is a security update only by the project's own word: an advisory id, a
# `[security]` tag or "security fix" in its title; a word "security" inside a name is a
# name (`open-security-tools/ost-simple-sts`). Labels: see `_security_label`.
_ADVISORY_ID = re.compile(r"\b(cve-\d{4}-\d+|ghsa(-[0-9a-z]{4}){3})\b", re.I)
_SECURITY_TAG = re.compile(
    r"\[security\]|\bsecurity\s+(fix|update|patch|release|advisory)\b"
    r"|\bfix(es)?\s+(a\s+)?(security|vulnerabilit(y|ies))\b",
    re.I,
)


def _security_label(label: str) -> bool:
    """A label that marks a security update: "security" itself, or an advisory id."""
    return label.strip().lower() in ("security", "type: security", "kind/security") or bool(
        _ADVISORY_ID.search(label)
    )


_VERSION = r"v?[\w.+-]*\d[\w.+-]*"
_PAIR = re.compile(rf"(?P<pkg>[@\w./-]+) from (?P<from>{_VERSION}) to (?P<to>{_VERSION})", re.I)
_GROUP = re.compile(r"^bump (?:the )?(?P<pkg>\S+) group\b.*?\bwith (?P<n>\d+) updates?\b", re.I)
# "Update to PyO3 0.29": the package after "to", its version last.
_UPDATE_TO_PACKAGE = re.compile(
    rf"^(?:update|upgrade|bump|move) to (?P<pkg>[@\w./`-]+) v?(?P<to>{_VERSION})$", re.I
)
_UPDATE_TO = re.compile(
    rf"^(?:update|upgrade|bump) (?:dependency |module |package |the )?(?P<pkg>[@\w./`-]+)"
    rf"(?: from (?P<from>{_VERSION}))? to (?P<to>{_VERSION})(?: \(major\))?(?: in \S+)?$",
    re.I,
)
_BUMP_ANY = re.compile(r"^bump (?!(?:the )?version\b)(?:the )?(?P<pkg>[@\w./`-]+)", re.I)
_DEPS_SCOPES = frozenset({"deps", "deps-dev", "dev-deps", "dependencies"})


def _components(version: str) -> list[int] | None:
    numbers = re.findall(r"\d+", version.removeprefix("v").split("-")[0])
    if not numbers or re.fullmatch(r"[0-9a-f]{7,40}", version):
        return None
    return [int(n) for n in numbers[:3]]


def _is_major(old: str | None, new: str | None, title: str) -> bool:
    if "(major)" in title.lower():
        return True
    after = _components(new) if new else None
    if after is None:
        return False
    if old is None:
        # Renovate names a major update by its major alone: "Update dependency X to v2".
        return bool(re.fullmatch(r"v?\d+", new or ""))
    before = _components(old)
    if before is None:
        return False
    if before[0] != after[0]:
        return True
    return before[0] == 0 and len(before) > 1 and len(after) > 1 and before[1] != after[1]


def is_dependency_bump(title: str, author: str = "", labels: Iterable[str] = ()) -> BumpInfo | None:
    """The dependency update a change is, or None when it is none.

    Recognises dependabot/renovate authors, "Bump X from A to B", "Update dependency X to vA",
    "Update X to 1.2.3" and a `deps` conventional-commit scope. A revert of a bump is not one.
    """
    return _dependency_bump(title, author, tuple(labels))


@lru_cache(maxsize=8192)
def _dependency_bump(title: str, author: str, labels: tuple[str, ...]) -> BumpInfo | None:
    parts = split_title(title)
    subject = re.sub(r"\s+", " ", parts.subject).strip()
    if _REVERT.match(subject):
        return None
    by_bot = bool(_BOT_AUTHORS.match(author.strip()))
    deps_scope = (parts.scope or "").lower() in _DEPS_SCOPES
    security = bool(_ADVISORY_ID.search(title) or _SECURITY_TAG.search(title)) or any(
        _security_label(label) for label in labels
    )
    pairs = list(_PAIR.finditer(subject))
    if pairs and (
        subject.lower().startswith(("bump", "update", "upgrade")) or by_bot or deps_scope
    ):
        return BumpInfo(
            package=pairs[0].group("pkg").strip("`"),
            from_version=pairs[0].group("from"),
            to_version=pairs[0].group("to"),
            major=any(_is_major(p.group("from"), p.group("to"), title) for p in pairs),
            security=security,
            count=len(pairs),
        )
    if group := _GROUP.match(subject):
        return BumpInfo(
            package=f"{group.group('pkg')} group", security=security, count=int(group.group("n"))
        )
    if (update := _UPDATE_TO.match(subject)) and update.group("pkg").lower() != "version":
        return BumpInfo(
            package=update.group("pkg").strip("`"),
            from_version=update.group("from"),
            to_version=update.group("to"),
            major=_is_major(update.group("from"), update.group("to"), subject),
            security=security,
        )
    if update := _UPDATE_TO_PACKAGE.match(subject):
        return BumpInfo(
            package=update.group("pkg").strip("`"), to_version=update.group("to"), security=security
        )
    if bump := _BUMP_ANY.match(subject):
        return BumpInfo(package=bump.group("pkg").strip("`"), security=security)
    if by_bot or deps_scope:
        return BumpInfo(package=None, security=security)
    return None
