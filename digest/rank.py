"""Significance: how much a reader needs to hear about an event (DIGEST.md weights).

Who is affected comes first, then what kind of change it is: every event has a tier
(`tier`), worth `Weights.tier` points a step, so the weights of kind and size only order
events within one tier. Security fixes first, then releases (a release that ships a
security fix of the window leads it), then what must be acted on, then what users see,
then internal work (tests, CI, tooling), whatever its kind: EDITORIAL.md ranks what is
out above what changes for a reader, and a deprecation that landed after a release led
the story of the release.

Bots are not down-ranked as such: in these repositories bot accounts land real work.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from digest.model import Activity
from digest.reading.audience import has_release_note, names_flaw
from digest.reading.event import Event
from digest.reading.shipping import shipped
from digest.reading.topics import is_build_path, is_doc_path
from digest.reading.why import says_why

# New support (an op, a dtype, a device) is what downstream users of a component build on.
_CAPABILITY = re.compile(r"\bsupport(s|ed|ing)?\b", re.I)
# Verbs of an implementation choice: "Use the standard library's LazyLock", "Switch to X".
_IMPLEMENTATION_VERBS = frozenset({"use", "switch", "replace", "migrate", "port", "inline"})
_PARTIAL = re.compile(
    r"\binitial\s+(code|scaffolding|plumbing)\b|\bgroundwork\b|\bscaffold\w*"
    r"|\b(prep|preparation)\s+for\b|\bin\s+preparation\b|\bWIP\b",
    re.I,
)
_TRIVIAL = re.compile(r"\b(lint\w*|format\w*|typos?|codemod|spelling|whitespace)\b", re.I)


@dataclass(frozen=True)
class Weights:
    """The additive weights of the significance score."""

    revert: float = 5.0
    reland: float = 3.0
    breaking: float = 5.0
    deprecation: float = 3.0
    ci_gate: float = 3.0
    risk_high: float = 4.0
    risk_medium: float = 2.0
    capability: float = 1.5
    # A security fix that names its class of flaw (XSS, path traversal) tells readers what
    # they were exposed to; among several fixes it is the one to name first.
    named_flaw: float = 2.0
    real_body: float = 1.0
    # A description that says why, in a sentence a story can quote: a change a reader can be
    # told the point of, not only its title.
    stated_reason: float = 0.5
    # An entry of its own for the release notes (a changeset, a news fragment): the project
    # itself says its users will read of the change.
    release_note: float = 2.0
    # No entry, in a window where the project writes one for most of what users get: by the
    # project's own account, not news for its users (a refactor, a helper, a test fix).
    no_release_note: float = -2.0
    docs_or_tests_only: float = -2.0
    # Build settings alone (manifests, toolchain pins, lockfiles): how it is built, not
    # what users call.
    build_only: float = -2.0
    trivial: float = -2.0
    # A step of work still under way ("initial code and benchmarks", "groundwork for X"):
    # the news is the whole, when it lands. (A first part that lands a feature, "Add MLX
    # delegate (part 1)", is news.)
    partial: float = -2.0
    # A routine dependency update ranks below real work; a major or security update of
    # what the project ships is news of its own and keeps its score.
    routine_bump: float = -3.0
    # What the title says it is: a feature users can use, a bug they hit, or a speed-up;
    # and an implementation choice ("Use X", "Switch to Y") that users need not notice.
    feature_title: float = 1.5
    fix_title: float = 1.0
    implementation: float = -1.5
    # Points a tier is worth: more than any sum of the weights above within one tier.
    tier: float = 20.0


# Tiers, highest first (see the module docstring).
SECURITY, RELEASE, MUST_ACT, USER_VISIBLE, INTERNAL = 5, 4, 3, 2, 1


def tier(event: Event) -> int:
    """Who an event reaches and how much they must do about it."""
    if event.security and event.bump is not None:
        # A dependency's security update is the dependency's news: it ranks with what users
        # see, not above the project's own releases and changes ("PROMETHEUS UPDATES
        # DEPENDENCY SANITIZE-HTML" led a fortnight of PromQL features and a release).
        return USER_VISIBLE
    if event.security:
        return SECURITY
    if event.internal:  # a CI gate of a library's own CI included: its users never see it
        return INTERNAL
    if event.withdrawn:  # landed and backed out in the window: no user got it
        return INTERNAL
    if event.trivia is not None:  # docs wording, lint, housekeeping: counted, never news
        return INTERNAL
    if event.ci_gate and event.project.audience != "maintainers":
        return INTERNAL  # what blocks merges concerns those who merge, not who installs
    if event.breaking or event.ci_gate:
        return MUST_ACT
    if event.release is not None:
        return RELEASE
    return INTERNAL if event.internal else USER_VISIBLE


def carried(events: list[Event]) -> dict[str, list[Event]]:
    """Each release's changes in the window, by the release's sha: the changes of its
    repository and product that landed before it and after that product's release before
    it (`shipping.shipped`)."""
    found: dict[str, list[Event]] = {}
    for repo in {e.repo for e in events if e.release is not None}:
        found.update(shipped([e for e in events if e.repo == repo]))
    return found


def significance(
    event: Event, weights: Weights = Weights(), level: int | None = None, *, noting: bool = False
) -> float:
    """The significance score of one event; higher is more newsworthy. `level` is its
    tier when the window raises it (a release carrying a security fix), else `tier`.
    `noting` says the project writes release notes for most of its users' changes in the
    window (`notes_most`): a change without one ranks lower."""
    activity = event.activity
    score = (tier(event) if level is None else level) * weights.tier
    if event.kind == "revert" and not (event.relanded or event.withdrawn):
        score += weights.revert
    elif event.kind == "reland":
        score += weights.reland
    if event.breaking:
        score += weights.breaking
    elif event.deprecation:
        score += weights.deprecation
    if event.ci_gate:
        score += weights.ci_gate
    # A fix of a named flaw (an out-of-bounds read) is news, security label or not.
    if (event.security or event.kind == "fix") and names_flaw(event.subject):
        score += weights.named_flaw
    if event.risk == "high":
        score += weights.risk_high
    elif event.risk == "medium":
        score += weights.risk_medium
    if event.new_support or (event.kind == "feature" and _CAPABILITY.search(event.subject)):
        score += weights.capability
    lines = activity.lines_changed
    files = len(activity.files)
    score += min(3.0, math.log10(lines + 1)) + min(2.0, math.log2(files + 1) / 3)
    if len(event.body.split()) >= 12:
        score += weights.real_body
        if event.bump is None and not event.internal and says_why(event.body):
            score += weights.stated_reason
    if not event.internal and event.release is None:
        if has_release_note(activity):
            score += weights.release_note
        elif noting and event.bump is None:
            score += weights.no_release_note
    if event.kind in ("docs", "test") or _mostly(activity, is_doc_path):
        score += weights.docs_or_tests_only
    elif event.release is None and event.bump is None and _mostly(activity, is_build_path):
        score += weights.build_only
    if _TRIVIAL.search(event.subject) or event.kind == "chore":
        score += weights.trivial
    if _PARTIAL.search(activity.title):
        score += weights.partial
    if event.bump is not None and not event.bump.stands_alone:
        score += weights.routine_bump
    if event.title_kind == "feat":
        score += weights.feature_title
    elif event.title_kind == "fix" or event.kind == "fix":
        score += weights.fix_title
    elif event.title_kind is None and event.verb in _IMPLEMENTATION_VERBS:
        score += weights.implementation
    return round(score, 3)


def _mostly(activity: Activity, kind: Callable[[str], bool]) -> bool:
    """True when at least four in five of the lines a change touches are of `kind`."""
    lines = [((f.additions or 0) + (f.deletions or 0), kind(f.path)) for f in activity.files]
    total = sum(n for n, _ in lines)
    return total > 0 and sum(n for n, doc in lines if doc) >= 0.8 * total


def rank(events: list[Event], weights: Weights = Weights()) -> list[tuple[Event, float]]:
    """Events with their scores, most significant first; ties keep the later landing first."""
    tiers = levels(events)
    noting = notes_most(events)
    return sorted(
        (
            (event, significance(event, weights, tiers[id(event)], noting=event.repo in noting))
            for event in events
        ),
        key=lambda pair: (-pair[1], -pair[0].activity.landed_at.timestamp()),
    )


# A project notes most of its users' changes when at least this share of them, and this
# many, add an entry for the release notes in the window.
NOTING_SHARE = 0.5
NOTING_LEAST = 4


def notes_most(events: list[Event]) -> set[str]:
    """The repositories of `events` that write a release-note entry (a changeset, a news
    fragment) for most changes users may see in the window: at least `NOTING_SHARE` of them
    and `NOTING_LEAST` in all. Their changes without one are no news by their own account."""
    found = set()
    for repo in {e.repo for e in events}:
        seen = [
            e
            for e in events
            if e.repo == repo
            and not e.internal
            and e.release is None
            and e.bump is None
            and e.trivia is None
            and e.kind not in ("revert", "reland")
        ]
        noted = sum(has_release_note(e.activity) for e in seen)
        if noted >= NOTING_LEAST and noted >= NOTING_SHARE * len(seen):
            found.add(repo)
    return found


def levels(events: list[Event]) -> dict[int, int]:
    """Each event's tier in its window. A project's releases are told in one sentence: its
    latest release ranks for them all, one tier above the highest must-act change they
    ship (a release carrying a security fix leads it) or above a security update of a
    dependency; the earlier ones rank last. Keyed by `id(event)`."""
    found = {id(event): tier(event) for event in events}
    shipped = carried(events)
    for repo in {e.repo for e in events if e.release is not None}:
        releases = sorted(
            (e for e in events if e.repo == repo and e.release is not None),
            key=lambda e: e.activity.landed_at,
        )
        ships = [c for r in releases for c in shipped.get(r.activity.sha, ())]
        top = max(map(tier, ships), default=0)
        # A security update of a dependency is news of the dependency: the project's own
        # release leads over it, shipped or not ("PROMETHEUS UPDATES MODULE x/crypto" over
        # the release of the window read as a missed release).
        if any(e.security and e.bump is not None for e in events if e.repo == repo):
            top = max(top, SECURITY)
        for release in releases[:-1]:
            found[id(release)] = INTERNAL
        found[id(releases[-1])] = top + 1 if top >= MUST_ACT else RELEASE
    return found
