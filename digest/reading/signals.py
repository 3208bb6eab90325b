"""What a change asks of its readers: is it breaking, a deprecation, a change to what blocks
merges, new support, or a dependency bump?

An `[immediate]` item interrupts a person, so `breaking` and `ci_gate` fire only when the
change says so: a breaking label, a `BREAKING CHANGE:` footer, a conventional-commit `!`,
a removed public API named as such; a stated change to required checks, merge rules,
branch protection or gating jobs. Words like "breaking" or "gate" in passing do not count,
and no longer using a deprecated API is clean-up, not news.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from digest.config import topic_key
from digest.english.sentences import split_sentences
from digest.model import Activity
from digest.reading.titles import is_dependency_bump
from digest.reading.topics import is_ci_path, is_doc_path, is_test_path

# ---------------------------------------------------------------- breaking

_FOOTER = re.compile(r"^BREAKING[ -]CHANGE:\s*\S", re.M)
# A squash merge lists its commits ("* feat(api)!: drop v1"): one marked `!` breaks.
_SQUASHED_BANG = re.compile(r"^\s*[*-]\s+[a-z]+(\([^)\n]*\))?!:\s", re.M)
_BREAKING_TAG = {"breaking", "breakingchange", "bcbreaking", "semvermajor"}
_STATED_BREAKING = re.compile(
    r"\b(this|the)\s+(pr|change|commit|diff)\s+is\s+(a\s+)?"
    r"(bc[- ]breaking|breaking|backwards?[- ]incompatible)\b"
    r"|^\s*(#+\s*)?(bc[- ]breaking|breaking changes?)(\s+notes?)?\s*(:|$)(?!\s*(none|no|n/?a)\b)"
    r"|\b(removes?|removed|removing)\s+(the\s+)?public\s+(\S+\s+){0,3}"
    r"(api|function|method|class|argument|parameter|option|flag|module)s?\b"
    # "This is a breaking change", "this PR adds a breaking change"; a release's "new
    # default rules" change what users get without asking.
    # "It's possible that this will be a breaking change for some people": a warning
    # the project gives its users in its own words, hedged or not.
    r"|\bthis\s+((pr|change|commit|diff)\s+)?(is|adds|introduces|makes"
    r"|(will|may|might|could)\s+be)\s+a\s+"
    r"(bc[- ])?breaking\s+change\b|\bnew\s+default\s+rules\b",
    re.I | re.M,
)
# "Drop support for Python 3.9", "Remove Python 3.8 support", "Remove deprecated `parse_obj`":
# a removal stated as such.
_REMOVED_API = re.compile(
    r"^(remove|drop|delete)s?\s+(support\s+for|(the\s+)?(deprecated|public)\b)"
    r"|^(remove|drop)s?\s+([\w.+-]+\s+){1,3}support(\s+(for|on|in)\b.*)?$"
    r"|^drop\s+(python|node(\.?js)?|ruby|php|java|jdk|go|rust|msrv)\s+v?\d"
    # … and as the second half of a title: "Add CUDA 13.2 support and drop unsupported 12.8".
    r"|^.+?(\s+and|,)\s+drops?\s+(support\s+for\b|unsupported\s+([\w.+-]+\s+)?v?\d)",
    re.I,
)
# What a caller names, after "remove deprecated": code, a call, or a word for an API.
_API_OBJECT = re.compile(
    r"[`(.]|\b(functions?|methods?|arguments?|args?|parameters?|params?|options?|flags?"
    r"|settings?|class(es)?|modules?|attributes?|aliases?|apis?|endpoints?|keywords?"
    r"|kwargs?|propert(y|ies)|fields?|types?|commands?|config\w*|modes?|exports?|hooks?)\b",
    re.I,
)
# "Remove usage of deprecated X", "remove deprecated X from <place>": the project stops using it.
_USAGE = re.compile(r"\b(usages?|uses?|calls?)\s+(of|to)\b|\bdeprecated\b.*\bfrom\b", re.I)
# What every branch of _STATED_BREAKING spells, under the same flags: a body without it
# cannot match, and a literal scans a long body twice as fast as the whole pattern.
_BREAKING_HINT = re.compile(r"breaking|incompatible|public|default rules", re.I)
_NEGATED = re.compile(
    r"\b(non|not|no)[- ](bc[- ])?breaking\b|\bis\s+not\s+(a\s+)?breaking\b"
    # "a breaking change (albeit not semver-violating, because `experimental`)": the
    # project's own word that no contract breaks
    r"|\bnot\s+(semver|semantic[- ]version\w*)[- ](violating|major|breaking)\b",
    re.I,
)

# ---------------------------------------------------------------- deprecation

_CLEANUP = re.compile(
    r"^(stop|avoid|cease)\s+(using|calling)\b|^(migrate|move|switch)\s+(away\s+)?(off|from)\b"
    r"|^(remove|drop|replace|clean\s+up)\s+(\S+\s+){0,2}(usages?|uses?|calls?)\s+(of|to)\b"
    r"|^replace\s+(the\s+)?deprecated\b"
    r"|^(fix|silence|suppress|address|resolve)\s+(\S+\s+){0,4}(deprecation|warnings?)\b"
    # "refer to `rolldownOptions` instead of deprecated `rollupOptions`": moving off one
    r"|\binstead\s+of\s+(the\s+)?deprecated\b",
    re.I,
)
# A deprecation taken back or made smaller: "Undo deprecation for X", "Un-deprecate X",
# "narrow dtype deprecation …": users have less to move off, not more.
_UNDEPRECATE = re.compile(
    r"^un-?deprecat|^(undo|revert|narrow|relax|loosen|limit|soften|remove|drop)\w*\s+"
    r"(\S+\s+){0,3}deprecation\b",
    re.I,
)
_DEPRECATE_TITLE = re.compile(
    r"^(soft[- ])?deprecate\b|\bmark\w*\b.{0,60}\bas\s+deprecated\b|\bfor\s+removal\s+in\b"
    r"|^add\w*\s+(a\s+)?deprecation\s+(warning|notice)s?\b"
    # "warn on deprecated envFile": users of it now see a deprecation warning
    r"|^(warn|emit\s+a\s+warning)\s+(on|about|when|for)\s+(using\s+)?(the\s+)?deprecated\b",
    re.I,
)
# "suggest to deprecate and remove …", "we could deprecate X later": a wish, not a deprecation.
_DEPRECATE_BODY = re.compile(
    r"(?<![\w-])(?<!\bto\s)(?<!\bcould\s)(?<!\bshould\s)(?<!\bmight\s)(?<!\bwould\s)"
    r"(deprecate|deprecates|deprecating)\s+(?!(and|or)\b)(the\s+)?[`'\"\w-]"
    r"|\b(as|now)\s+deprecated\b|\bdeprecated\s+in\s+favou?r\s+of\b",
    re.I,
)
# Words before a deprecation in its sentence that make it a plan, a condition or history,
# not what this change does: "will eventually get deprecated", "once X is deprecated",
# "we plan to deprecate", "X was deprecated in 1.2, so …".
_NOT_NOW = re.compile(
    r"\b(will|would|could|should|might|may|to|plan\w*|want\w*|going|eventually|later|future"
    r"|follow[- ]?up|once|if|when|after|before|until|since|was|were|been|already|previously)\b",
    re.I,
)
# Every branch of _DEPRECATE_BODY spells "deprecat": searched first, ten times faster.
_DEPRECATE_HINT = re.compile(r"deprecat", re.I)

# ---------------------------------------------------------------- CI gates

# What blocks merges, said outright (title or body) …
_GATE = re.compile(
    r"\brequired\s+(status\s+)?(checks?|workflows?|jobs?)\b|\brequired\s+merge[- ]queue\b"
    r"|\bmerge[- ](rules?|gates?)\b|\bmerge[- ]queue\s+(gate|check)s?\b"
    r"|\bbranch\s+protection\b|\brequires\s+list\b|\bsole\s+required\b"
    r"|\b(pr|merge)[- ]blocking\b|\bblock(s|ing)?\s+(the\s+)?(pr\s+)?merg(es?|ing)\b"
    r"|\bgat(e|es|ed|ing)\s+(pr\s+)?merg(es?|ing)\b",
    re.I,
)
# Every branch of _GATE spells one of these: a body without any cannot state a gate.
_GATE_HINT = re.compile(r"require|merg|branch|blocking", re.I)
# … or a title that changes the gates of the pre-merge suite or merge queue ("Split pre-merge
# CI into fast and slow gates"; not "Fix a flaky pre-merge test").
_GATE_SUITE = re.compile(r"\bpre-?merge\b|\bmerge[- ]queue\b", re.I)
_GATE_WORD = re.compile(r"\b(gates?|gating|required|requires?|block\w*|checks?)\b", re.I)
_GATE_NEGATED = re.compile(
    r"\bno\s+gate\s+change|\bnot\s+(a\s+)?(required|blocking)\b|\bnon-?blocking\b"
    r"|\b(does\s+not|doesn't|do\s+not|don't|won't|will\s+not)\s+block\b",
    re.I,
)
# Files that are the merge rules themselves.
_MERGE_RULES_PATH = re.compile(
    r"(^|/)(merge_rules\.ya?ml|\.?mergify\.ya?ml|bors\.toml|\.kodiak\.toml)$"
    r"|^\.github/(settings\.ya?ml|rulesets/)",
    re.I,
)
# Paragraphs and list items: a statement never runs from one into the next.
_BLOCK = re.compile(r"\n\s*\n|\n\s*[-*]\s+")

# ---------------------------------------------------------------- new support

_NEW_SUPPORT = re.compile(
    r"^(add|enable|introduce|implement|extend|expose)\b.{0,80}\bsupport(s|ed)?\b"
    r"|^supports?\b|^add\b.{0,60}\b(ops?|operators?|kernels?|backend|dtypes?|handler)\b"
    r"|^(?!(remove|drop|disable|deprecate)\b)[\w.+-]+(\s+[\w.+-]+){0,3}\s+support\b"
    # Input newly taken: "Accept `None` in X", "Allow periods in Y", "Recognise Z as a type".
    r"|^(accept|allow|recogni[sz]e)s?\b.{1,60}?\b(in|as|for|on)\b",
    re.I,
)


def is_breaking(
    activity: Activity, subject: str, tags: tuple[str, ...], marker: bool, *, code: bool = True
) -> bool:
    """True when the change says it is breaking (labels, footer, `!` marker, title tag, a
    statement in the body, or, for a `code` change, a removed public API named in the title)."""
    if any(_is_breaking_label(label) for label in activity.labels):
        return True
    if marker or _FOOTER.search(activity.body) or _SQUASHED_BANG.search(activity.body):
        return True
    if any(topic_key(t) in _BREAKING_TAG for t in tags):
        return True
    if code and (removed := _REMOVED_API.match(subject)) and not _USAGE.search(subject):
        # "Remove deprecated `np.foo`" removes an API; "Remove deprecated Python recursion
        # fix" removes a workaround of its own, which no caller names.
        if not re.match(r"\w+s?\s+(the\s+)?deprecated\b", removed.group(0), re.I):
            return True
        if _API_OBJECT.search(subject[removed.end() :]):
            return True
    body = activity.body
    if _BREAKING_HINT.search(body) is None or _STATED_BREAKING.search(body) is None:
        return False
    return any(
        _STATED_BREAKING.search(s) and not _NEGATED.search(s) for s in _sentences(activity.body)
    )


# Labels that ask whether a change breaks rather than say it does.
_UNSURE_LABEL = re.compile(r"non|not|^no|potential|possibl|maybe|candidate|review|check|\?")


def _is_breaking_label(label: str) -> bool:
    key = topic_key(label)
    if _UNSURE_LABEL.search(key) or label.strip().endswith("?"):
        return False
    return "breaking" in key or key in {"semvermajor", "major", "majorchange"}


_EXPIRES = re.compile(
    r"^(remove[sd]?|drop(s|ped)?|delete[sd]?|expire[sd]?|finali[sz]e[sd]?)\b", re.I
)


def is_cleanup_of_deprecated(subject: str) -> bool:
    """True for "Stop using deprecated X", "Migrate off deprecated X" and the like."""
    return bool(_CLEANUP.search(subject))


# A renamed option, setting, flag or user-facing argument: users' configuration names the
# old one. A bare "param" or "argument" is a function's own ("rename confusing input param
# st->t"): only one a user passes by name (a CLI, query or keyword argument) is a setting.
# A file's name in code ("`python_api.py`"): a rename of it moves code, no setting.
_FILE_NAME = (
    r"[^`]+\.(py|pyi|[cm]?[jt]sx?|rs|go|c|cc|cpp|h|hpp|java|kt|rb|sh|md|rst|toml|ya?ml|json)`"
)
_RENAMED_SETTING = re.compile(
    r"^renam(e|es|ed|ing)\b(?!.*\b(internal|private|local|input)\s+(param|arg))"
    r".*\b(options?|settings?|config(uration)?s?|flags?|kwargs?|env(ironment)?\s+var\w*"
    r"|(cli|command[- ]line|query|keyword|url)\s+(parameters?|params?|arguments?|args?))\b"
    # "Rename `max_rows` to `limit`", not a file's (`python_api.py`) or a class's new name
    rf"|^renam(e|es|ed|ing)\s+`(?!{_FILE_NAME})(?!(?-i:[A-Z][a-z]+[A-Z]))[^`]+`"
    r"\s+(to|->|→)\s+`[^`]+`",
    re.I,
)


def renames_setting(subject: str) -> bool:
    """True for a renamed option, setting, flag or parameter ("Rename `server.hmr` options
    to `server.ws` options"): the name users write is on its way out, as in a deprecation."""
    return _RENAMED_SETTING.search(subject) is not None


# A change to the words of a deprecation already made: "adjust the dtype setter
# deprecation warning (incorrect version)", "Fix typo in deprecation message".
_ADJUSTS_WARNING = re.compile(
    r"^(adjust|fix|correct|update|tweak|clarify|improve|reword|rephrase)\w*\s+"
    r"((?!to\b|emit|raise|add|when\b|on\b|for\b)\S+\s+){0,5}?"
    r"(deprecation\s+)?(warning|message)s?\b",
    re.I,
)


def is_deprecation(subject: str, body: str, title_kind: str | None = None) -> bool:
    """True when the change deprecates something of its own (title or body says so), or
    renames a setting (`renames_setting`) in a title of no internal type (`title_kind`)."""
    if is_cleanup_of_deprecated(subject) or _UNDEPRECATE.search(subject):
        return False
    if _ADJUSTS_WARNING.match(subject):
        return False  # "DEPR: adjust dtype setter deprecation warning": a warning's words
    if title_kind == "deprecation":
        # "deprecate: X", "DEP: X": the project's own type word says so; but "DEP: Remove
        # warnings from X" ends a deprecation whose time is up, and deprecates nothing new
        return _EXPIRES.match(subject) is None
    if title_kind in (None, "feat") and renames_setting(subject):
        return True
    if _DEPRECATE_TITLE.search(subject):
        return True
    if _DEPRECATE_HINT.search(body) is None or _DEPRECATE_BODY.search(body) is None:
        return False
    return any(
        not _NOT_NOW.search(sentence[: m.start()])
        for sentence in _sentences(body)
        for m in _DEPRECATE_BODY.finditer(sentence)
    )


def is_ci_gate(activity: Activity, subject: str, body: str, ci_touch: bool) -> bool:
    """True for a real change to what blocks merges: the merge-rule files themselves, or a CI
    change that states a change to required checks, merge rules or gating jobs."""
    if any(_MERGE_RULES_PATH.search(f.path) for f in activity.files):
        return True
    if not ci_touch:
        return False
    if _GATE_NEGATED.search(subject) is None and (
        _GATE.search(subject) or (_GATE_SUITE.search(subject) and _GATE_WORD.search(subject))
    ):
        return True
    if _GATE_HINT.search(body) is None or _GATE.search(body) is None:
        return False
    return any(_GATE.search(s) and not _GATE_NEGATED.search(s) for s in _sentences(body))


def is_new_support(subject: str) -> bool:
    """True when the title adds support for something (an op, a dtype, a platform, …)."""
    return bool(_NEW_SUPPORT.search(subject))


def _sentences(text: str) -> list[str]:
    return [s for block in _BLOCK.split(text) for s in split_sentences(block)]


# ---------------------------------------------------------------- dependency bumps

_ADVISORY_ID = re.compile(r"\b(CVE-\d{4}-\d+|GHSA(-\w{4}){3})\b", re.I)

# Dev tooling, examples, and lock files of interpreted packages: a library's wheel or tarball
# does not carry them, so a bump that only touches them changes nothing users install.
_DEV_PATH = re.compile(
    r"(^|/)(requirements[-_]?(dev|docs|test|lint)\w*\.txt|\.pre-commit[^/]*"
    r"|uv\.lock|poetry\.lock|pdm\.lock|Pipfile\.lock|package-lock\.json|yarn\.lock"
    r"|pnpm-lock\.yaml|pnpm-workspace\.yaml)$|(^|/)(examples?|samples?|demo[-\w]*)/",
    re.I,
)
# Pins and submodules the title rules of digest.reading.titles do not count as updates.
_PIN_TITLE = re.compile(
    r"^(update|bump|move|advance)\s+(the\s+)?\S+(\s+\S+)?\s+pins?\b|\bpin\s+bump\b"
    r"|^pin\s+\S+\s+to\s+(a|the)\s+(\S+\s+)?(version|release)\b"
    r"|^(update|bump)\s+(the\s+)?\S+\s+submodules?\b",
    re.I,
)


_BOT_AUTHOR = re.compile(r"dependabot|renovate|pre-commit-ci|depfu|greenkeeper|snyk|pyup", re.I)
# Files a dependency is declared or locked in.
_MANIFEST_PATH = re.compile(
    r"(^|/)(pyproject\.toml|setup\.(py|cfg)|requirements[^/]*\.txt|[^/]*\.lock|Cargo\.toml"
    r"|package\.json|go\.(mod|sum)|Gemfile|\.gitmodules|[^/]*pins?[^/]*)$",
    re.I,
)


def _versioned(version: str | None) -> bool:
    return version is not None and re.fullmatch(r"v?\d+(\.\d+)+[\w.+-]*|v\d+", version) is not None


@dataclass(frozen=True)
class Bump:
    """A dependency update: whether it is a major version, a security fix, and whether what
    it updates is shipped (not only CI, docs, tests or dev tooling)."""

    major: bool
    security: bool
    shipped: bool
    count: int = 1  # updates the change carries ("Bump the rust group with 6 updates")
    # dependabot, renovate…: its body is the dependency's own notes, so the breaking changes
    # it quotes are the dependency's, never this project's
    by_bot: bool = False

    @property
    def security_fix(self) -> bool:
        """True for a security update of what ships, so named by the project itself (see
        `dependency_bump`): it leads and gets an item."""
        return self.stands_alone and self.security

    @property
    def stands_alone(self) -> bool:
        """True for a bump worth its own sentence: a major or security update of what ships."""
        return self.shipped and (self.major or self.security)


def dependency_bump(activity: Activity, subject: str) -> Bump | None:
    """The bump this change is (dependabot, renovate, "Bump X from A to B", a pin or
    submodule update), or None. Versions and security come from `titles.is_dependency_bump`."""
    info = is_dependency_bump(activity.title, activity.author, activity.labels)
    if info is None and not _PIN_TITLE.search(subject):
        return None
    if (
        info is not None
        and not _versioned(info.from_version)
        and not _versioned(info.to_version)
        and not re.search(r"\bto\s+v?\d+(\.\d+)+", subject)
        and not _BOT_AUTHOR.search(activity.author)
        and not any(_MANIFEST_PATH.search(f.path) for f in activity.files)
    ):
        return None  # "Bump replicas from 5 to 12", "Bump timeout to 2h": configuration
    # A bot's body quotes the dependency's own release notes ("It's not a security fix"):
    # the dependency's news. A person's own body naming an advisory is the project's word.
    by_bot = bool(_BOT_AUTHOR.search(activity.author))
    security = (info is not None and info.security) or (
        not by_bot and _ADVISORY_ID.search(activity.body) is not None
    )
    paths = [f.path for f in activity.files]
    shipped = not paths or not all(
        is_ci_path(p) or is_doc_path(p) or is_test_path(p) or _DEV_PATH.search(p) for p in paths
    )
    return Bump(
        major=info is not None and info.major,
        security=security,
        shipped=shipped,
        count=info.count if info is not None else 1,
        by_bot=by_bot,
    )
