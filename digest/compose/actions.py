"""Action items: one imperative sentence each, saying what to do and why, with its citation.

Only where a reader must act (DIGEST.md): a CI-gate change → [immediate], a breaking
change → [immediate], a revert or reland → [monitor], a new capability others build on →
[plan], at most one a project. Reverts and relands of one topic share an item, three
citations at most; an [immediate] item is never shared, since each one interrupts someone.
"""

from __future__ import annotations

import re

from digest.compose.body import MAX_CITATIONS
from digest.compose.citations import cite
from digest.compose.phrases import (
    _name,
    _predicate,
    _quoted_title,
    count_word,
    place,
    topic_of,
)
from digest.config import WireConfig
from digest.language import nominalize
from digest.model import Urgency
from digest.select import ProjectPick, Unit
from digest.text import clean_fragment

Action = tuple[str, Urgency, str, str]  # (text, urgency, repo, key of what it cites)
_CAPABILITY_VERBS = {"support", "enable", "introduce", "expose"}
_ADDING_VERBS = {"add", "implement", "extend"}
# What an added thing must be for others to build on it (a heuristic on the title's words).
_BUILDING_BLOCK = re.compile(
    r"`|\b(support|api|apis|option|flag|argument|parameter|op|ops|operator|dtype|kernel|"
    r"backend|model|command|hook|plugin|interface|format|mode)s?\b",
    re.I,
)
_NOT_BUILT_ON = re.compile(
    r"\b(docstrings?|docs?|documentation|comments?|tests?|typos?|examples?|logging)\b", re.I
)
_ORDER = {"immediate": 0, "monitor": 1, "plan": 2}


def _key(units: list[Unit]) -> str:
    return "+".join(f"{u.lead.repo}@{u.lead.activity.sha}" for u in units)


def ci_gate_item(unit: Unit, *, name: str) -> str:
    """ "Check what now blocks merges in ci-infra: the change splits pre-merge CI … [1]"."""
    event = unit.lead
    return (
        f"Check what now blocks merges in {name}: the change "
        f"{_predicate(event, max_words=10)} {cite(event.activity)}"
    )


def breaking_item(unit: Unit, *, name: str) -> str:
    """ "Review code that uses ExecuTorch's Arm backend before upgrading: a breaking change …"."""
    event = unit.lead
    return (
        f"Review code that uses {place(event, name)} before upgrading: a breaking change "
        f"{_predicate(event, max_words=10)} {cite(event.activity)}"
    )


def _undone(unit: Unit) -> str:
    """What a revert or reland is about, as a noun phrase or a quoted title."""
    event = unit.lead
    if event.kind == "revert":
        nominal = nominalize(clean_fragment(event.obj))
        if nominal:
            return nominal
    return _quoted_title(event, max_words=8)


def monitor_item(units: list[Unit], *, name: str) -> str:
    """ "Watch your builds and metrics on ExecuTorch's XNNPACK backend: XNNPACK serialization
    was backed out [5]"; several reverts and relands of one topic are counted."""
    where = place(units[0].lead, name)
    marker = cite(*(u.lead.activity for u in units))
    reverts = sum(u.lead.kind == "revert" for u in units)
    relands = len(units) - reverts
    if len(units) == 1:
        what = f"{_undone(units[0])} was {'backed out' if reverts else 'relanded'}"
    elif reverts and relands:
        changes = "change was" if reverts == 1 else "changes were"
        what = f"{count_word(reverts)} {changes} backed out and {count_word(relands)} relanded"
        if reverts == relands:
            what = f"{count_word(reverts)} {changes} backed out and as many relanded"
    else:
        what = f"{count_word(len(units))} changes were {'backed out' if reverts else 'relanded'}"
    return f"Watch your builds and metrics on {where}: {what} {marker}"


def capability_item(unit: Unit, *, name: str) -> str:
    """ "Plan for what you can now build on ExecuTorch's Arm backend: the change adds …"."""
    event = unit.lead
    return (
        f"Plan for what you can now build on {place(event, name)}: the change "
        f"{_predicate(event, max_words=10)} {cite(event.activity)}"
    )


def is_capability(unit: Unit) -> bool:
    """True for a new capability others build on: new support, an API, an option, an op…"""
    event = unit.lead
    if event.kind != "feature" or event.verb is None:
        return False
    if event.verb in _CAPABILITY_VERBS:
        return True
    if _NOT_BUILT_ON.search(event.obj):
        return False
    return event.verb in _ADDING_VERBS and bool(_BUILDING_BLOCK.search(event.obj))


def write_actions(picks: list[ProjectPick], *, config: WireConfig) -> list[Action]:
    """Action items only where a reader must act (`Event.must_act`), and one [plan] item a
    project for a new capability; most urgent first."""
    items: list[Action] = []
    for pick in picks:
        name = _name(config, pick.repo)
        planned = False
        watch: dict[str, list[Unit]] = {}
        for unit in (*pick.units, *pick.extra):
            event = unit.lead
            if event.must_act and event.ci_gate:
                items.append((ci_gate_item(unit, name=name), "immediate", event.repo, _key([unit])))
            elif event.must_act and event.breaking:
                items.append(
                    (breaking_item(unit, name=name), "immediate", event.repo, _key([unit]))
                )
            elif event.must_act:
                watch.setdefault(topic_of(event) or "", []).append(unit)
            elif not planned and is_capability(unit):
                planned = True
                items.append((capability_item(unit, name=name), "plan", event.repo, _key([unit])))
        for units in watch.values():
            for start in range(0, len(units), MAX_CITATIONS):
                chunk = units[start : start + MAX_CITATIONS]
                items.append((monitor_item(chunk, name=name), "monitor", pick.repo, _key(chunk)))
    items.sort(key=lambda item: _ORDER[item[1]])
    return items
