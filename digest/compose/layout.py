"""Laying a body out: one paragraph for a day, sections under the lede for longer windows.

`detail` runs from 3 (everything) down to 0 (shortest); the composer lowers it until the
body fits rule 7's limits.
"""

from __future__ import annotations

import zlib

from digest.check.proofread_rules import CONNECTIVES
from digest.compose.body import (
    MAX_CITATIONS,
    PLAIN_OPENING,
    Openings,
    Paragraph,
    pack_phrases,
    told_reason,
    unit_sentence,
    vary_subjects,
)
from digest.compose.counts import summary_sentences
from digest.compose.phrases import project_name, topic_of
from digest.compose.release import unit_phrase
from digest.config import WireConfig
from digest.english.numbers import join_words
from digest.select import ProjectPick, Unit

_OBJECT_WORDS = (7, 9, 12, 16)  # by detail
BACK_OUTS = "Back-outs and relands"
OTHER = "Other changes"
IN_BRIEF = "In brief"
# Connectives whose "these" points at what a section counts: they may open it.
_ANAPHORIC = ("beyond", "besides", "other")
# A story of at most this many units gives each its own sentence at full detail.
SMALL_STORY_UNITS = 6
# A heading names at most this many places ("Android, Vulkan, CUDA and Arm").
MAX_PLACES = 4
# A story of at most this many units that no topic splits has no headings of kinds.
MIN_THEMED_UNITS = 4
_KIND_THEMES = {"feature": "New and changed", "fix": "Fixes"}
MAINTENANCE = "Maintenance"
RELEASES = "Releases"
SECURITY = "Security"
RELEASES_AND_SECURITY = "Releases and security fixes"
BREAKING = "Breaking changes"
# The heading of what leads a story, by what it holds: (releases, security fixes, breaking).
_FIRST_HEADINGS = {
    (True, False, False): RELEASES,
    (False, True, False): SECURITY,
    (False, False, True): BREAKING,
    (True, True, False): RELEASES_AND_SECURITY,
    (True, False, True): "Releases and breaking changes",
    (False, True, True): "Security and breaking changes",
    (True, True, True): "Releases, security and breaking changes",
}
_THEMES = {BACK_OUTS, OTHER, MAINTENANCE, *_FIRST_HEADINGS.values(), *_KIND_THEMES.values()}


def write_day_body(
    picks: list[ProjectPick],
    *,
    config: WireConfig,
    detail: int,
    acted: frozenset[str] = frozenset(),
) -> list[Paragraph]:
    """A day's body: each project's units as sentences, minor ones joined, then counts."""
    openings = Openings(seed=story_seed(picks))
    sentences: list[str] = []
    for index, pick in enumerate(picks):
        name = project_name(config, pick.repo)
        units = list(pick.units)
        major = units[: 2 if detail <= 1 else len(units)]
        start = len(sentences)
        for position, unit in enumerate(major):
            if not position:
                opening = openings.next_project() if index else PLAIN_OPENING
            elif topic_of(unit.lead) != topic_of(major[position - 1].lead):
                opening = openings.elsewhere()
            else:
                opening = openings.further(same_kind=_same_kind(unit, major[position - 1]))
            sentences.append(
                unit_sentence(
                    unit,
                    name=name,
                    opening=opening,
                    related=detail >= 2,
                    max_words=_OBJECT_WORDS[detail],
                    quote=_quotes(detail, position),
                    openings=openings,
                )
            )
        named, counted = _split_extras([*units[len(major) :], *pick.extra], keep=3 if detail else 2)
        sentences += _packed(named, name=name, openings=openings, max_words=10 if detail else 7)
        openings.heard(sentences)
        sentences += summary_sentences(
            pick,
            name=name,
            openings=openings,
            max_topics=1 if detail else 0,
            counted_extras=counted,
            count_rest=True,
            acted=acted,
        )
        sentences[start:] = vary_subjects(sentences[start:], name=name, openings=openings)
    return [Paragraph(None, tuple(sentences))]


def _quotes(detail: int, position: int) -> bool:
    """Whether a unit's sentence quotes why its change was made: every named unit at full
    detail, the first of each paragraph or section at the next, none below."""
    return detail >= 3 or (detail == 2 and position == 0)


def _counted_extras(units: tuple[Unit, ...], acted: frozenset[str]) -> list[Unit]:
    """The must-act changes beyond the named ones that a count tells: the reverts and
    relands, and the others that no action item cites (a fourth security fix, where the
    upgrade item cites three)."""
    undos = [u for u in units if u.lead.kind in ("revert", "reland")]
    others = [u for u in units if u not in undos and u.lead.activity.sha not in acted]
    return undos + others


def _split_extras(units: list[Unit], *, keep: int) -> tuple[list[Unit], list[Unit]]:
    """Units to name in prose, and reverts/relands beyond them that are only counted."""
    if len(units) <= keep:
        return units, []
    named = units[:keep]
    rest = units[keep:]
    counted = [u for u in rest if u.lead.kind in ("revert", "reland")]
    named += [u for u in rest if u.lead.kind not in ("revert", "reland")][
        : max(0, keep - len(named))
    ]
    return named, counted


def write_sections(
    picks: list[ProjectPick],
    *,
    config: WireConfig,
    detail: int,
    acted: frozenset[str] = frozenset(),
) -> list[Paragraph]:
    """A longer window's body: sections by topic (one project) or by project, then counts.

    Reverts and relands beyond the named units are counted here; `acted` (the shas the
    action items cite) says how many of them the action items cite.
    """
    openings = Openings(seed=story_seed(picks))
    paragraphs: list[Paragraph] = []
    if len(picks) > 1:
        for pick in picks:
            name = project_name(config, pick.repo)
            sentences = _section(list(pick.units), name=name, openings=openings, detail=detail)
            openings.heard([*(s for p in paragraphs for s in p.sentences), *sentences])
            sentences += summary_sentences(
                pick,
                name=name,
                openings=openings,
                max_topics=2 if detail else 0,
                counted_extras=_counted_extras(pick.extra, acted),
                acted=acted,
            )
            paragraphs.append(
                Paragraph(name, tuple(vary_subjects(sentences, name=name, openings=openings)))
            )
        return paragraphs
    pick = picks[0]
    name = project_name(config, pick.repo)
    pack = detail < 3 or len(pick.units) > SMALL_STORY_UNITS
    first = [
        u for u in pick.units if u.lead.release is not None or u.lead.security or u.lead.breaking
    ]
    others = [u for u in pick.units if u not in first]
    groups = _by_topic(others)
    if len(groups) < 2:
        # Kinds ("Fixes", "Maintenance") sort only a story with enough to sort: two
        # sentences under two headings read as a form.
        themes = _by_theme(others)
        # (in the order of their kinds all the same, so that one kind's units run together)
        alike = [u for _, units in themes for u in units]
        if groups and groups[0][0] not in _THEMES:
            groups = [(groups[0][0], alike)]  # a place's heading ("TSDB and PromQL") stays
        else:
            groups = themes if len(others) > MIN_THEMED_UNITS else [(OTHER, alike)]
    if first:
        groups = [(_first_heading(first), first), *groups]
        groups = [(h, us) for h, us in groups if us]
    for heading, units in groups:
        known = heading if heading not in _THEMES else None
        sentences = _section(
            units, name=name, openings=openings, detail=detail, known=known, pack=pack
        )
        # A single group needs no heading of its own: the lede is its heading.
        sentences = vary_subjects(sentences, name=name, openings=openings)
        paragraphs.append(Paragraph(heading if len(groups) > 1 else None, tuple(sentences)))
    openings.heard([s for p in paragraphs for s in p.sentences])
    brief = summary_sentences(
        pick,
        name=name,
        openings=openings,
        max_topics=3 if detail else 1,
        counted_extras=_counted_extras(pick.extra, acted),
        acted=acted,
    )
    if brief:
        # A heading opens the section: no connective ("Separately, …") before its first
        # sentence, which follows nothing of its own.
        brief[0] = _unconnected(brief[0], name)
        paragraphs.append(
            Paragraph(IN_BRIEF, tuple(vary_subjects(brief, name=name, openings=openings)))
        )
    return paragraphs


def _first_heading(units: list[Unit]) -> str:
    """The heading of what leads a story: its releases, security fixes and breaking changes."""
    releases = any(u.lead.release is not None for u in units)
    fixes = any(u.lead.security for u in units)
    breaking = any(u.lead.breaking and not u.lead.security for u in units)
    return _FIRST_HEADINGS[(releases, fixes, breaking)]


def _section(
    units: list[Unit],
    *,
    name: str,
    openings: Openings,
    detail: int,
    known: str | None = None,
    pack: bool = True,
) -> list[str]:
    """A section's sentences: its first two units get one each and the rest are joined,
    unless `pack` is off (a small story keeps a sentence a unit). A security fix or a
    release always gets its own: joined, it would lose its label ("updates x/net [4] and
    3.12.0 is out [5]")."""
    words = _OBJECT_WORDS[detail]
    own = 2 if pack else len(units)
    while own < len(units) and (units[own].lead.security or units[own].lead.release):
        own += 1
    if detail >= 3:
        # At full detail a change whose sentence can say why keeps it: packed into a list
        # of titles, it would lose its reason.
        telling = [u for u in units[own:] if told_reason(u.lead)]
        units = [*units[:own], *telling, *(u for u in units[own:] if u not in telling)]
        own += len(telling)
    sentences = [
        unit_sentence(
            unit,
            name=name,
            opening=openings.further(same_kind=_same_kind(unit, units[position - 1]))
            if position
            else PLAIN_OPENING,
            related=detail >= 2,
            max_words=words,
            known_topic=known,
            quote=_quotes(detail, position),
            openings=openings,
        )
        for position, unit in enumerate(units[:own])
    ]
    return sentences + _packed(units[own:], name=name, openings=openings, max_words=min(words, 10))


def _packed(units: list[Unit], *, name: str, openings: Openings, max_words: int) -> list[str]:
    """Units joined into sentences, under the project's name or their product's: a change
    to create-vite packed under "Vite" read as Vite's own."""
    by_subject: dict[str, list[Unit]] = {}
    for unit in units:
        by_subject.setdefault(unit.product or name, []).append(unit)
    return [
        sentence
        for subject, group in by_subject.items()
        for sentence in pack_phrases(
            [unit_phrase(u, max_words=max_words) for u in group], name=subject, openings=openings
        )
    ]


def story_seed(picks: list[ProjectPick]) -> int:
    """A number that is the same for the same window's story and differs between stories:
    which connectives a story takes turns with it. A release fed in as a tag has no hex sha
    ("tag:v8.0.16"), so its name's checksum stands in."""
    if not picks:
        return 0
    sha = picks[0].lead.lead.activity.sha
    try:
        return int(sha[:8], 16)
    except ValueError:
        return zlib.crc32(sha.encode())


def _same_kind(unit: Unit, before: Unit) -> bool:
    return unit.lead.kind == before.lead.kind


def _by_topic(units: list[Unit]) -> list[tuple[str, list[Unit]]]:
    """Units grouped under headings, in the order of their best unit.

    Back-outs and relands form one section when there are two or more; a topic with two
    or more units gets its own; the remaining units go under "Other changes", last.
    """
    undo = [u for u in units if u.lead.kind in ("revert", "reland")]
    if len(undo) < 2:
        undo = []
    topics: dict[str, list[Unit]] = {}
    for unit in units:
        if unit not in undo:
            topics.setdefault(topic_of(unit.lead) or OTHER, []).append(unit)
    groups: dict[str, list[Unit]] = {}
    other: list[Unit] = []
    for unit in units:
        if unit in undo:
            groups.setdefault(BACK_OUTS, []).append(unit)
            continue
        topic = topic_of(unit.lead) or OTHER
        if topic != OTHER and len(topics[topic]) >= 2:
            groups.setdefault(topic, []).append(unit)
        else:
            other.append(unit)
    ordered = list(groups.items())
    if other:
        ordered += _themes_of_other(other)
    return ordered


def _themes_of_other(units: list[Unit]) -> list[tuple[str, list[Unit]]]:
    """The units no topic section holds: by theme ("Fixes", "New and changed",
    "Maintenance") when there are more than fit one sentence and at least two themes have
    two units or more, a theme of one unit too (a lone fix under "Other changes" beside
    "Maintenance" read as unsorted); a lone back-out goes under "Other changes", last."""
    if places := _places_of(units):
        return [(places, units)]
    if len(units) <= MAX_CITATIONS:
        return [(OTHER, units)]
    themes = [(h, us) for h, us in _by_theme(units) if h != BACK_OUTS]
    if sum(len(us) >= 2 for _, us in themes) < 2:
        return [(OTHER, units)]
    themed = {id(u) for _, us in themes for u in us}
    rest = [u for u in units if id(u) not in themed]
    return themes + ([(OTHER, rest)] if rest else [])


def _places_of(units: list[Unit]) -> str | None:
    """A heading of the places a few units are about, when each has one and they differ:
    "PromQL and TSDB" over a fix to each, where "Other changes" named nothing a reader
    follows. None when one of them has no place."""
    places = [topic_of(u.lead) for u in units]
    if not 2 <= len(units) <= MAX_PLACES or None in places or len(set(places)) < len(places):
        return None
    return join_words([p for p in places if p is not None])


def _by_theme(units: list[Unit]) -> list[tuple[str, list[Unit]]]:
    """Units grouped by what kind of change they are, when topics do not split them."""
    groups: dict[str, list[Unit]] = {}
    for unit in units:
        kind = unit.lead.kind
        undoes = kind in ("revert", "reland")
        heading = BACK_OUTS if undoes else _KIND_THEMES.get(kind, MAINTENANCE)
        groups.setdefault(heading, []).append(unit)
    return list(groups.items())


def _unconnected(sentence: str, name: str) -> str:
    """`sentence` without a connective that opens it: "Separately, PEFT makes …" → "PEFT
    makes …"; "Beyond these, it …" keeps its "these", which the section's counts mean."""
    head, comma, rest = sentence.partition(", ")
    connective = head.lower()
    if not comma or connective not in CONNECTIVES or connective.startswith(_ANAPHORIC):
        return sentence
    if rest.startswith("it "):
        return f"{name} {rest[3:]}"
    if rest.startswith("the project "):
        return "T" + rest[1:]
    return rest if rest.startswith(f"{name} ") else sentence
