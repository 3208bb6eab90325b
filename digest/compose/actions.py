"""Action items: one imperative sentence each, saying what to do and why, with its citation.

Only where a reader must act (DIGEST.md): a CI-gate change → [immediate], a breaking
change → [immediate], a revert or reland → [monitor], a deprecation or new support
others build on → [plan], at most one of each a project. Reverts and relands of one topic
share an item, three citations at most; an [immediate] item is never shared, since each
one interrupts someone.
"""

from __future__ import annotations

from digest.compose.body import MAX_CITATIONS
from digest.compose.citations import cite
from digest.compose.phrases import (
    _is_backend,
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
    """ "Check your use of pydantic before upgrading: a breaking change drops support for
    Python 3.9 [1]"; a backend's breaking change names the backend."""
    event = unit.lead
    topic = topic_of(event)
    where = f"{name}'s {topic} backend" if topic and _is_backend(event, topic) else name
    return (
        f"Check your use of {where} before upgrading: a breaking change "
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


def deprecation_item(unit: Unit, *, name: str) -> str:
    """ "Plan to move off what ExecuTorch deprecates: the change deprecates the legacy …"."""
    event = unit.lead
    return (
        f"Plan to move off what {place(event, name)} deprecates: the change "
        f"{_predicate(event, max_words=10)} {cite(event.activity)}"
    )


def capability_item(unit: Unit, *, name: str) -> str:
    """ "Plan for what you can now build on ExecuTorch's Arm backend: the change adds …"."""
    event = unit.lead
    return (
        f"Plan for what you can now build on {place(event, name)}: the change "
        f"{_predicate(event, max_words=10)} {cite(event.activity)}"
    )


def write_actions(picks: list[ProjectPick], *, config: WireConfig) -> list[Action]:
    """Action items where a reader must act (`Event.must_act`) or may plan (a deprecation,
    new support: at most one of each a project), with the urgency `Event.urgency` gives;
    most urgent first."""
    items: list[Action] = []
    for pick in picks:
        name = _name(config, pick.repo)
        planned: set[str] = set()
        watch: dict[str, list[Unit]] = {}
        for unit in (*pick.units, *pick.extra):
            event = unit.lead
            key = _key([unit])
            if event.must_act and event.urgency == "immediate":
                text = (
                    ci_gate_item(unit, name=name)
                    if event.ci_gate
                    else breaking_item(unit, name=name)
                )
                items.append((text, "immediate", event.repo, key))
            elif event.must_act:
                watch.setdefault(topic_of(event) or "", []).append(unit)
            elif event.urgency == "plan":
                what = "deprecation" if event.deprecation else "support"
                if what not in planned:
                    planned.add(what)
                    write = deprecation_item if event.deprecation else capability_item
                    items.append((write(unit, name=name), "plan", event.repo, key))
        for units in watch.values():
            for start in range(0, len(units), MAX_CITATIONS):
                chunk = units[start : start + MAX_CITATIONS]
                items.append((monitor_item(chunk, name=name), "monitor", pick.repo, _key(chunk)))
    items.sort(key=lambda item: _ORDER[item[1]])
    return items
