"""What a story counts instead of naming: the rest of a project's changes by topic, its
trivia and housekeeping, its routine dependency bumps, and back-outs beyond the named ones.

Counts carry no citations, except up to three trivia, bumps or back-outs whose citations
fit beside the ones before them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from digest.compose.body import MAX_CITATIONS, PLAIN_OPENING, Openings, citations
from digest.compose.citations import MARK, cite
from digest.compose.housekeeping import housekeeping_clause
from digest.compose.phrases import names_a_place, place_phrase, topic_of
from digest.config import topic_key
from digest.english.articles import indefinite_article
from digest.english.numbers import count_word, join_words
from digest.reading.event import Event, commit_count
from digest.reading.titles import is_dependency_bump
from digest.select import NAMED_HOUSEKEEPING, ProjectPick, Unit, bump_count


def _count_phrase(units: list[Unit], room: int, acted: frozenset[str] = frozenset()) -> str:
    """ "backs out or relands two more changes", "lands one more security fix", cited when
    the citations fit in `room`, else saying how many of them the action items cite
    (`acted`: their shas)."""
    kinds = {u.lead.kind for u in units}
    number = commit_count(u.lead for u in units)
    if kinds <= {"revert", "reland"}:
        # one back-out undoes one change, however many commits it absorbed (the original
        # it undoes): "backs out two more changes [11]" of one revert contradicted the lede
        number = len(units)
        verb = {"revert": "backs out", "reland": "relands"}.get(
            next(iter(kinds)) if len(kinds) == 1 else "", "backs out or relands"
        )
        noun = "change" if number == 1 else "changes"
    else:
        # what must be acted on beyond what the action items cite: no back-out among them
        verb = "lands"
        if all(u.lead.security for u in units):
            noun = "security fix" if number == 1 else "security fixes"
        elif all(u.lead.deprecation for u in units):
            noun = "deprecation" if number == 1 else "deprecations"
        else:
            noun = "change" if number == 1 else "changes"
    phrase = f"{verb} {count_word(number)} more {noun}"
    activities = [u.lead.activity for u in units]
    if len(activities) <= room:
        return f"{phrase} {cite(*activities)}"
    listed = sum(a.sha in acted for a in activities)
    if listed == len(activities):
        return f"{phrase}, each cited in the action items"
    if listed:
        return f"{phrase}, {count_word(listed)} of them cited in the action items"
    return phrase


def _topic_counts(pick: ProjectPick) -> list[tuple[str, int]]:
    """(the topic as a place, its number of changes), most first: "two in the compiler". A
    folder named by a plain word that no topic of the project's configuration gives ("the
    assertion", "the runtime" of `src/_pytest/assertion/`) says how the code is laid out,
    not what changed: its changes count as elsewhere."""
    counts: Counter[str | None] = Counter()
    places: dict[str, str] = {}
    for event in pick.rest:
        topic = topic_of(event)
        if topic is not None and not _a_place_to_count(topic, event):
            topic = None
        counts[topic] += commit_count([event])
        if topic is not None:
            places.setdefault(topic, place_phrase(topic, event))
    named = [(places[t], n) for t, n in counts.items() if t is not None]
    return sorted(named, key=lambda tn: (-tn[1], tn[0].lower()))


def _a_place_to_count(topic: str, event: Event) -> bool:
    return names_a_place(topic, event) or event.project.topic_for_key(topic_key(topic)) is not None


def spread_over_places(topics: list[tuple[str, int]], elsewhere: int) -> str:
    """ "12 in Arm, three each in CI and Docs and 40 elsewhere": places of one count share it."""
    by_count: dict[int, list[str]] = {}
    for topic, count in topics:
        by_count.setdefault(count, []).append(topic)
    if len(topics) == 1 and not elsewhere:
        return f"all in {topics[0][0]}"
    parts = [
        f"{count_word(count)}{' each' if len(names) > 1 else ''} in {join_words(names)}"
        for count, names in by_count.items()
    ]
    if elsewhere:
        # "one in the web and one elsewhere": "as many elsewhere" made the reader count back
        parts.append(f"{count_word(elsewhere)} elsewhere")
    return join_words(parts)


_TRIVIA_WORDS = {
    "docs": "documentation",
    "lint": "lint",
    "translations": "translation",
    "typing": "type-stub",
}


def _trivia_word(trivia: str | None) -> str:
    """How a folded change is counted: an internal change has no trivia kind."""
    return "internal" if trivia is None else _TRIVIA_WORDS.get(trivia, "housekeeping")


def trivia_noun(trivia: Sequence[Event]) -> str:
    """Counted trivia as a noun phrase: "three documentation and lint changes" ("" for none)."""
    if not trivia:
        return ""
    count = commit_count(trivia)
    kinds = sorted({_trivia_word(e.trivia) for e in trivia})
    noun = "change" if count == 1 else "changes"
    return f"{count_word(count)} {join_words(kinds, 'or' if count == 1 else 'and')} {noun}"


def _folded_clauses(pick: ProjectPick) -> list[tuple[str, int]]:
    """What a story counts instead of telling, as (verb phrase, its number): trivia ("makes
    five documentation changes") and routine bumps ("updates eight dependencies"), each cited
    when its citations fit beside the ones before it."""
    clauses: list[tuple[str, int]] = []
    room = MAX_CITATIONS
    told = [e for e in pick.trivia if e.trivia not in NAMED_HOUSEKEEPING]
    if told:
        count = commit_count(told)
        clause = f"makes {trivia_noun(told)}"
        if count <= room:
            clause += f" {cite(*(a for e in told for a in (e.activity, *e.linked)))}"
            room -= count
        clauses.append((clause, count))
    for kind in NAMED_HOUSEKEEPING:
        kept = [e for e in pick.trivia if e.trivia == kind]
        if not kept:
            continue
        clause, number = housekeeping_clause(kind, kept)
        commits = [a for e in kept for a in (e.activity, *e.linked)]  # a back-out's own too
        if len(commits) <= room:
            clause += f" {cite(*commits)}"
            room -= len(commits)
        clauses.append((clause, number))
    if pick.bumps:
        count = bump_count(pick.bumps)
        clause = bump_clause(pick.bumps)
        if len(pick.bumps) <= room:
            clause += f" {cite(*(e.activity for e in pick.bumps))}"
        clauses.append((clause, count))
    return clauses


def bump_clause(bumps: Sequence[Event]) -> str:
    """Routine dependency updates as a verb phrase: "updates eight dependencies". A security
    update among them is named, since readers look for those even when nothing they ship
    changes (a lockfile): "updates three dependencies, among them a security update to `ws`"."""
    count = bump_count(bumps)
    packages = [_package(e) for e in bumps]
    secured = list(
        dict.fromkeys(p for p, e in zip(packages, bumps, strict=True) if e.bump and e.bump.security)
    )
    named = [name for name in secured if name]
    noun = f"{count_word(count)} {'dependency' if count == 1 else 'dependencies'}"
    verb = "updates"
    if len(bumps) > 1 and (not all(packages) or len(set(packages)) < len(packages)):
        # A group's updates, or one package updated twice, count neither dependencies nor
        # changes a reader can tell apart: the changes are counted, which the sources show.
        noun = f"dependencies in {count_word(len(bumps))} changes"
    if not secured:
        return f"{verb} {noun}"
    security = sum(e.bump.count for e in bumps if e.bump and e.bump.security)
    updates = "a security update" if security == 1 else "security updates"
    if named and len(named) == len(secured):
        # In code: "@scope/pkg" is no mention.
        updates += f" to {join_words([f'`{name}`' for name in named])}"
    if security == count:
        return f"applies {updates}" if named else f"{verb} {noun}, each a security update"
    return f"{verb} {noun}, among them {updates}"


def _package(event: Event) -> str:
    """The package a dependency update names ("ws"), or "" when its title names none."""
    info = is_dependency_bump(event.activity.title, event.activity.author, event.activity.labels)
    return info.package if info and info.package and not info.package.endswith(" group") else ""


def _with_article(clause: str) -> str:
    """ "makes one documentation change" → "makes a documentation change"."""
    match = re.search(r"\bone (?!more\b)(\S+)", clause)
    if match is None:
        return clause
    return clause[: match.start()] + f"{indefinite_article(match[1])} " + clause[match.start(1) :]


def _join_distinct(clauses: list[tuple[str, int]]) -> list[str]:
    """Verb phrases joined into as few groups as keep every number once a sentence."""
    groups: list[list[tuple[str, int]]] = []
    for clause in clauses:
        text, number = clause
        # "lands one more change, makes a documentation change [4] and updates a dependency
        # [5]": a single cited change reads "a", so no "one" repeats and the clauses share a
        # sentence. An uncited "one" stays: "a change" is a count no reader adds up.
        if number == 1 and MARK in text:
            clause = (_with_article(text), 0)
            number = 0  # no number left to repeat
        if groups and all(
            not (n and number) or count_word(n) != count_word(number) for _, n in groups[-1]
        ):
            groups[-1].append(clause)
        else:
            groups.append([clause])
    return [join_words([text for text, _ in group]) for group in groups]


def summary_sentences(
    pick: ProjectPick,
    *,
    name: str,
    openings: Openings,
    max_topics: int,
    counted_extras: list[Unit] = (),  # type: ignore[assignment]
    count_rest: bool = True,
    acted: frozenset[str] = frozenset(),
) -> list[str]:
    """What a story does not name, as counts by topic, then trivia and routine bumps as
    counted clauses and must-act changes beyond the named ones as a count.

    Counts carry no citations, except up to three trivia, bumps or back-outs whose
    citations fit.
    """
    sentences = []
    rest = commit_count(pick.rest) if count_rest else 0
    folded = _folded_clauses(pick)
    if rest:
        fixes = all(e.kind == "fix" for e in pick.rest)
        noun = (
            ("fix" if rest == 1 else "fixes") if fixes else ("change" if rest == 1 else "changes")
        )
        counted = f"lands {count_word(rest)} more {noun}{_few_cited(pick.rest, folded)}"
        topics = _topic_counts(pick)[:max_topics]
        # Topics are worth naming once at least a third of the rest falls in them.
        if topics and sum(n for _, n in topics) * 3 >= rest and rest >= 3:
            lead = f"{counted}: {spread_over_places(topics, rest - sum(n for _, n in topics))}"
            tails = _join_distinct(folded)
        else:
            lead, *tails = _join_distinct([(counted, rest), *folded])
        first = f"{lead}."
        told = []
        for position, tail in enumerate(tails):
            opening = openings.further(same_kind=False) if not position else PLAIN_OPENING
            if not position and opening == PLAIN_OPENING:
                # "It also makes 13 documentation … changes": a plain "It makes" after
                # "lands 13 more changes." read as if the 13 were all
                opening = openings.also()
            told.append(_opened(opening, "It", tail))
        opening = openings.beyond(named=len(pick.units))
        sentences += [opening.format(s=name, p=first), *told]
    else:
        for position, tail in enumerate(_join_distinct(folded)):
            subject = name if not position else "It"
            sentences.append(_opened(openings.further(same_kind=False), subject, tail))
    undos = [u for u in counted_extras if u.lead.kind in ("revert", "reland")]
    for group in (undos, [u for u in counted_extras if u not in undos]):
        if group:
            count = _count_phrase(group, MAX_CITATIONS, acted)
            sentences.append(openings.further(same_kind=False).format(s=name, p=count) + ".")
    return sentences


def _few_cited(rest: Sequence[Event], folded: list[tuple[str, int]]) -> str:
    """The citations of one or two changes a story counts, when they fit in the sentence
    beside the counted clauses' own: "lands one more fix [2] and updates a dependency [3]"
    lets a reader find the fix, where an uncited count reads as told by [3]."""
    commits = [a for e in rest for a in (e.activity, *e.linked)]
    cited = sum(citations(text) for text, _ in folded)
    if len(commits) > 2 or len(commits) + cited > MAX_CITATIONS:
        return ""
    return f" {cite(*commits)}"


def _opened(opening: str, subject: str, predicate: str) -> str:
    """A sentence from `opening`; a stand-in ("It") after a connective is lower-case."""
    if not opening.startswith("{s}") and subject == "It":
        subject = "it"
    return opening.format(s=subject, p=predicate).rstrip() + "."
