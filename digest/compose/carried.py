"""What a release unit's releases carry, counted: its security fixes, one however often it
landed, and its breaking changes, as many as the window shows or the notes list."""

from __future__ import annotations

import re

from digest.english.numbers import count_word, join_words
from digest.reading.audience import is_fork_merge
from digest.reading.event import Event
from digest.reading.titles import is_dependency_bump
from digest.select import Unit


def _breaking(unit: Unit) -> tuple[int, int]:
    """How many breaking changes the unit's releases carry (of the window) and how many
    their notes list."""
    carried = {e.activity.sha: e for e in unit.carried}.values()
    stated = sum(e.release.breaking for e in (unit.lead, *unit.related) if e.release)
    return sum(e.breaking and not e.security for e in carried), stated


def fix_key(event: Event) -> str:
    """One security fix however often it landed: a fix committed to a release branch and
    again to the default branch keeps its title ("fix stored XSS …" twice is one fix)."""
    if is_fork_merge(event.activity.title):
        return event.activity.sha  # every advisory merged from a fork has that title
    bump = is_dependency_bump(event.activity.title)
    if bump is not None and bump.package and bump.to_version:
        # "Update module x/crypto to v0.52.0 [SECURITY]" and "chore(deps): update module
        # x/crypto to v0.52.0 [security]" are one update
        return f"{bump.package.lower()} {bump.to_version.lstrip('vV')}"
    return re.sub(r"\s*\(#\d+\)$", "", event.activity.title.strip()).lower()


def carrying(unit: Unit) -> str:
    """ "with four security fixes", "with a breaking change", "with six breaking changes"
    (as many as the releases' notes list, when they list more than the window shows), or
    ""."""
    carried = list({e.activity.sha: e for e in unit.carried}.values())
    # a fix committed to a release branch and again to the default branch is one fix
    security = len({fix_key(e) for e in carried if e.security})
    breaking = max(_breaking(unit))
    parts = []
    if security:
        parts.append(f"{count_word(security)} security {'fix' if security == 1 else 'fixes'}")
    if breaking:
        noun = "change" if breaking == 1 else "changes"
        parts.append(f"{count_word(breaking)} breaking {noun}")
    text = join_words(parts).replace("one security fix", "a security fix")
    return f"with {text.replace('one breaking change', 'a breaking change')}" if parts else ""


def breaking_note(unit: Unit) -> str:
    """What a release that says it breaks asks of a reader: "its notes list six breaking
    changes", "it ships a breaking change", "its notes announce breaking changes"."""
    carried, stated = _breaking(unit)
    count = max(carried, stated)
    if not count:
        return "its notes announce breaking changes"
    noun = "a breaking change" if count == 1 else f"{count_word(count)} breaking changes"
    return f"its notes list {noun}" if stated >= carried else f"it ships {noun}"
