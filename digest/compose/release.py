"""How a release reads: "vite 8.0.16 is out", "svelte 5.55.6 and 5.55.7 are out with four
security fixes", "vite ships create-vite 9.1.0".

A release unit is its project's releases of the window (`select.Unit.related`) and the
changes they ship (`Unit.carried`); the sentence says what the releases carry that a
reader must act on (security fixes, breaking changes), counted.
"""

from __future__ import annotations

import re

from digest.compose.citations import cite
from digest.compose.phrases import event_predicate
from digest.compose.slots import unit_slots
from digest.english.numbers import count_word, join_words
from digest.reading.event import Event
from digest.select import Unit

MAX_NAMED_RELEASES = 3


def _own(event: Event) -> bool:
    """True for a release of the project itself, one whose title names no version too."""
    release = event.release
    return release is not None and (
        not release.versions or any(p is None for p, _ in release.versions)
    )


def cited_releases(unit: Unit) -> list[Event]:
    """The releases a release unit names and cites, earliest first: the project's own (its
    latest and earliest when there are more than `MAX_NAMED_RELEASES`), then the latest of
    each package, at most `MAX_NAMED_RELEASES`."""
    events = sorted((unit.lead, *unit.related), key=lambda e: e.activity.landed_at)
    own = [e for e in events if _own(e)]
    chosen = own[:] if len(own) <= MAX_NAMED_RELEASES else [own[-1], own[0]]
    packages: set[str] = set()
    for event in reversed(events):
        if len(chosen) >= MAX_NAMED_RELEASES:
            break
        names = {p for p, _ in event.release.versions if p} if event.release else set()
        if not _own(event) and not names <= packages:
            packages |= names
            chosen.append(event)
    return sorted(chosen, key=lambda e: e.activity.landed_at)


def versions(unit: Unit) -> tuple[list[str], list[str]]:
    """The project's own versions ("8.0.4 to 8.0.8" for more than two) and its packages'
    ("create-vite 9.1.0"), earliest first, of the releases the unit cites; one GitHub
    flags a prerelease says so ("8.1.0-beta.0 (prerelease)")."""
    own: list[str] = []
    packages: list[str] = []
    for event in cited_releases(unit):
        for package, version in event.release.versions if event.release else ():
            target = own if package is None else packages
            text = version if package is None else f"{package} {version}"
            text += " (prerelease)" if event.release and event.release.prerelease else ""
            if text not in target:
                target.append(text)
    own = sorted(own, key=_order)
    every = {
        v
        for e in (unit.lead, *unit.related)
        if e.release
        for p, v in e.release.versions
        if p is None
    }
    if len(every) > len(own) == 2:
        own = [f"{own[0]} to {own[1]}"]
    return own, packages


def _order(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version))


def carrying(unit: Unit) -> str:
    """ "with four security fixes", "with a breaking change", or ""."""
    security = sum(e.security for e in unit.carried)
    breaking = sum(e.breaking and not e.security for e in unit.carried)
    parts = []
    if security:
        parts.append(f"{count_word(security)} security {'fix' if security == 1 else 'fixes'}")
    if breaking:
        noun = "change" if breaking == 1 else "changes"
        parts.append(f"{count_word(breaking)} breaking {noun}")
    text = join_words(parts).replace("one security fix", "a security fix")
    return f"with {text.replace('one breaking change', 'a breaking change')}" if parts else ""


def release_predicate(
    unit: Unit, *, past: bool = False, carry: bool = True, brief: bool = False
) -> str:
    """The verb phrase after the project's name: "8.0.16 is out", "5.55.6 and 5.55.7 are
    out with four security fixes", "ships create-vite 9.1.0"; in the `past` for a lede
    ("released 8.0.16"). A `brief` phrase (headline, lede) names the project's own
    versions alone when it has any; the body's names every release it cites and says how
    many there were when it cites only the latest."""
    own, packages = versions(unit)
    if brief and own:
        packages = []
    tail = f" {carrying(unit)}" if carry and carrying(unit) else ""
    named = own + packages
    total = 1 + len(unit.related)
    if not brief and total > len(cited_releases(unit)):
        tail = f", {count_word(total)} releases in all{tail and ','}{tail}"
    if own and not past:
        plural = len(named) > 1 or " to " in named[0]
        verb = "are out" if plural else "is out"
        return f"{join_words(named)} {verb}{tail}"
    if not named:
        return ("published a release" if past else "publishes a release") + tail
    return ("released " if past else "ships ") + join_words(named) + tail


def unit_predicate(unit: Unit, **options: object) -> str:
    """`phrases.event_predicate` of the unit's lead, or its release phrase for a release."""
    if unit.lead.release is not None:
        return release_predicate(unit, brief=True)
    return event_predicate(unit.lead, **options)  # type: ignore[arg-type]


def unit_phrase(unit: Unit, *, max_words: int) -> str:
    """A unit's verb phrase with its citations, for sentences that join several units."""
    if unit.lead.release is not None:
        cited = cite(*(e.activity for e in cited_releases(unit)))
        return f"{release_predicate(unit, carry=True)} {cited}"
    unique = list({a.sha: a for a in unit.activities}.values())
    predicate = event_predicate(unit.lead, max_words=max_words)
    # Changes of one shape: each slot with its citation, not all cited behind the first.
    merged = unit_slots(unit, predicate, max_words=max_words)
    return merged or f"{predicate} {cite(*unique[:3])}"
