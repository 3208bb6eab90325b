"""A change as the digest reads it: `Event`, what `digest.reading.classify` makes of an Activity."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from digest.config import Project
from digest.english.clauses import clause
from digest.english.clean import is_clean, knows_verb
from digest.english.words import parts_of_speech
from digest.model import Activity, Urgency
from digest.reading.releases import Release
from digest.reading.signals import Bump
from digest.reading.topics import is_doc_path, is_test_path

Kind = Literal[
    "revert",
    "reland",
    "release",
    "feature",
    "fix",
    "ci",
    "docs",
    "test",
    "bump",
    "refactor",
    "chore",
]


@dataclass(frozen=True)
class Event:
    """A classified change: what it is, what it touches, and how it reads in a headline."""

    activity: Activity
    project: Project
    kind: Kind
    subject: str
    verb: str | None
    obj: str
    topics: tuple[str, ...]
    reverts_title: str | None = None
    breaking: bool = False
    ci_gate: bool = False
    deprecation: bool = False  # deprecates something of its own: a [plan] item
    new_support: bool = False
    bump: Bump | None = None  # set for dependency updates (kind "bump")
    risk: str | None = None
    # "docs", "lint" or "housekeeping" for a change a long window counts instead of telling.
    trivia: str | None = None
    body: str = ""
    linked: tuple[Activity, ...] = field(default=())
    release: Release | None = None  # set for a release of the project (kind "release")
    security: bool = False  # a security fix: leads and gets an [immediate] item
    internal: bool = False  # no user sees it: tests, CI, tooling (digest.reading.audience)
    relanded: bool = False  # a back-out the window relands: told as such, nothing to watch
    # A back-out of a change the window landed, no release between: no user got it.
    withdrawn: bool = False
    # A back-out the project files as a fix (a bugfix news fragment): a repair it ships,
    # told as a back-out, with nothing for a reader to watch.
    filed_as_fix: bool = False
    # The kind the title's own prefix gives ("fix" of "FIX BEFT example dataset"), a hint for
    # a noun-phrase title's verb; and the product living in the repository that the change
    # is to ("ty" of "[ty] Respect `rules`"), confirmed by its paths: a sentence's subject.
    title_kind: str | None = None
    product: str | None = None

    @property
    def repo(self) -> str:
        return self.activity.repo

    @property
    def must_act(self) -> bool:
        """True when a reader must act on this change: a security fix, a revert or reland of
        something users see, a breaking change or a change to the CI gates. Such a change is
        always cited and gets an action item."""
        undoes = self.kind in ("revert", "reland") and not (
            self.internal or self.relanded or self.withdrawn or self.filed_as_fix
        )
        return undoes or self.security or self.breaking or self.ci_gate

    @property
    def urgency(self) -> Urgency | None:
        """The urgency an action item about this change carries (DIGEST.md layout): breaking
        and CI-gate changes interrupt, reverts and relands are watched, deprecations and new
        support are planned for; None when no reader needs to act."""
        if self.breaking or self.ci_gate or self.security:
            return "immediate"
        if self.kind in ("revert", "reland") and self.must_act:
            return "monitor"
        if self.deprecation or self.new_support:
            return "plan"
        return None

    @property
    def clean(self) -> bool:
        """True when this change's clause reads as an editor's English (`english.clean`):
        no parenthetical, "+" or trailing fragment from its title. A change that is not
        clean is counted, not named, unless readers must hear of it."""
        if self.kind in ("revert", "reland", "release", "bump"):
            return True  # told by phrases of their own, which quote or name them
        first = self.subject.split()[0] if self.subject.split() else ""
        if self.verb is None and first.isalpha() and first.islower() and not parts_of_speech(first):
            return False  # "upgade Go modules": a word no lexicon knows opens a noun phrase
        if self.verb is not None and not knows_verb(self.verb):
            return False  # "pre-commit autoupdate": no verb, whatever we'd conjugate
        if self.verb is not None and _misspells_a_name(self.verb, self.activity):
            return False  # "netrify image validation" on netlify/: a typo, not a verb
        if _about_private_code(self.obj, self.activity):
            return False  # "implements headStaleIndexReader methods properly"
        return is_clean(self.predicate)

    @property
    def predicate(self) -> str:
        """The verb phrase of a sentence about this event: "adds bf16 support for …"."""
        return clause(self.obj, verb=self.verb, kind=self.title_kind)


def commit_count(events: Iterable[Event]) -> int:
    """How many commits `events` are: a back-out absorbs the change it undoes (`linked`),
    and a count says how many landed, so each counts with the ones it absorbed."""
    return sum(1 + len(event.linked) for event in events)


# A name its code keeps to itself: Go's unexported one (lower camel case, its visibility by
# its first letter) and Python's with a leading underscore ("_set_dtype", not "__init__").
_GO_UNEXPORTED = re.compile(r"(?<![\w.<>'\"*/-])[a-z]+[A-Z][A-Za-z0-9]*\b(?!\()")
_PY_PRIVATE = re.compile(r"(?<![\w.<>'\"*/-])_[a-z][a-z0-9_]*\b(?<!__)")
# Faults a user meets, whatever code a title names: those are news.
_MET_FAULT = re.compile(
    r"\b(panic|crash|segfault|leak|deadlock|race|hang|corrupt\w*|data loss|error|exception"
    r"|overflow|break(s|ing)?|wrong|incorrect\w*|spurious)\b",
    re.I,
)
# "support for _cdist_forward core ATen op": an operator's name is its users' to call
_OPERATOR = re.compile(r"\bop(erator)?s?\b", re.I)


def _about_private_code(obj: str, activity: Activity) -> bool:
    """True when a title's object names code private to the project (`_GO_UNEXPORTED` in a
    change to Go code, `_PY_PRIVATE` in one to Python) and no fault a user meets nor an
    operator: its sentence would tell readers of a name they never call."""
    if _MET_FAULT.search(obj) or _OPERATOR.search(obj):
        return False
    code = [f.path for f in activity.files if not is_test_path(f.path) and not is_doc_path(f.path)]

    def only(*endings: str) -> bool:
        # the convention is the language's: an ATen op's "_cdist_forward" is public in C++
        return bool(code) and all(p.endswith(endings) for p in code)

    if only(".py", ".pyi") and _PY_PRIVATE.search(obj):
        return True
    return only(".go", "go.mod", "go.sum") and _GO_UNEXPORTED.search(obj) is not None


def _misspells_a_name(verb: str, activity: Activity) -> bool:
    """True when `verb`, a word no lexicon knows as one, is a folder's name of the change
    with a letter or two swapped ("netrify" on `netlify/`): a typo for the name."""
    word = verb.lower()
    if parts_of_speech(word) or not word.isalpha():
        return False
    names = {part.lower() for f in activity.files for part in f.path.split("/")[:-1]}
    return any(
        len(name) == len(word)
        and name != word
        and sum(a != b for a, b in zip(name, word, strict=True)) <= 2
        for name in names
    )
