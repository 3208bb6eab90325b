"""Composing a story: a pipeline of named pure functions from activity to a checked Story.

    classify → filter_topic → rank → group_units → draft (headline, lede, body, actions)
             → number_references → check

Citations are drafted as markers naming an activity; `number_references` turns them into
[n] in order of first citation, so numbering and the reference list can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable

from digest.check import check_story, require_integrity
from digest.classify import Event, classify
from digest.compose.citations import MARKER, Draft, cite, number_references
from digest.compose.phrases import (
    _area,
    _is_backend,
    _name,
    _object,
    _predicate,
    _quoted_title,
)
from digest.config import WireConfig, topic_key
from digest.errors import UnknownTopicError
from digest.language import nominalize
from digest.model import Activity, Story, Urgency, Window
from digest.rank import rank
from digest.select import ProjectPick, Unit, group_units
from digest.text import clean_fragment, join_words, plural

# Sentence openings by a unit's position in its project, so a body does not repeat itself.
_OPENINGS = (
    "{s} {p}",
    "{s} also {p}",
    "In addition, {s} {p}",
    "Elsewhere, {s} {p}",
    "{s} further {p}",
)
_CAPABILITY_VERBS = {"add", "support", "enable", "introduce", "implement", "expose", "extend"}


def compose(
    activities: Iterable[Activity],
    *,
    config: WireConfig,
    window: Window,
    topic: str | None = None,
    repos: Iterable[str] = (),
) -> Story:
    """Compose the checked story of `window` from its activity.

    `topic` narrows the story to one topic; `repos` names the repositories the story is
    about (for the "no news" story when nothing landed). Raises StoryCheckError when the
    story fails a rule that must never fail (1, 3 or 4 of DIGEST.md).
    """
    in_window = [a for a in activities if window.contains(a.landed_at)]
    events = filter_topic(classify(in_window, config), topic, config)
    repo_names = tuple(dict.fromkeys([*repos, *(e.repo for e in events)]))
    projects = len({e.repo for e in events}) or 1
    # Few projects still make a full body: at least four sentences when there is news.
    per_project = max(config.digest.stories_per_project, -(-4 // projects))
    picks = group_units(rank(events), per_project=per_project)
    draft = draft_story(picks, config=config, window=window, repos=repo_names, topic=topic)
    story = number_references(
        draft, activities=in_window, window=window, repos=repo_names, topic=topic
    )
    story = story.model_copy(update={"checks": check_story(story, config=config, events=events)})
    require_integrity(story)
    return story


def filter_topic(events: list[Event], topic: str | None, config: WireConfig) -> list[Event]:
    """Keep the events of `topic` (matched by name or alias); unknown topics are an error."""
    if topic is None:
        return events
    key = topic_key(topic)
    known = {k for p in config.projects for t in p.topics for k in t.keys}
    seen = {topic_key(t) for e in events for t in e.topics}
    if key not in known and key not in seen:
        raise UnknownTopicError(topic, config.known_topics())
    names = {topic_key(t.name) for p in config.projects for t in p.topics if key in t.keys} | {key}
    return [e for e in events if names & {topic_key(t) for t in e.topics}]


def draft_story(
    picks: list[ProjectPick],
    *,
    config: WireConfig,
    window: Window,
    repos: tuple[str, ...],
    topic: str | None,
) -> Draft:
    """Write headline, lede, body and action items; the body is shortened until it fits."""
    if not picks:
        return draft_no_news(config=config, window=window, repos=repos, topic=topic)
    limits = config.digest
    body: tuple[str, ...] = ()
    for detail in (3, 2, 1, 0):
        body = tuple(write_body(picks, config=config, detail=detail))
        words = sum(len(MARKER.sub("", s).split()) for s in body)
        if len(body) <= limits.max_body_sentences and words <= limits.max_body_words:
            break
    return Draft(
        headline=write_headline(picks, config=config, max_chars=limits.max_headline_chars),
        lede=write_lede(picks, config=config, topic=topic),
        body=body,
        actions=tuple(write_actions(picks, config=config)),
    )


def write_headline(picks: list[ProjectPick], *, config: WireConfig, max_chars: int) -> str:
    """Each project's lead story as "PROJECT VERBS OBJECT", joined, upper-case, within `max_chars`."""
    for projects in (3, 2, 1):
        for max_words in (7, 5, 4, 3):
            clauses = [
                f"{_name(config, p.repo)} {_predicate(p.lead.lead, max_words=max_words, headline=True)}"
                for p in picks[:projects]
            ]
            headline = ", ".join(clauses).upper().rstrip(" .!?;:,")
            if len(headline) <= max_chars:
                return headline
    return headline[:max_chars].rsplit(" ", 1)[0]


def write_lede(picks: list[ProjectPick], *, config: WireConfig, topic: str | None) -> str:
    """One sentence: how much each project landed, where, and whether anything was backed out."""
    clauses = []
    for index, pick in enumerate(picks):
        count = plural(pick.landed, "change") if index == 0 else str(pick.landed)
        clause = f"{_name(config, pick.repo)} landed {count}"
        areas = _busiest_areas(pick)
        if areas and not topic:
            clause += f", chiefly in {join_words(areas)}"
        clauses.append(clause)
    if len(clauses) == 1:
        sentence = clauses[0]
    elif len(clauses) == 2:
        sentence = f"{clauses[0]}, while {clauses[1]}"
    else:
        sentence = "; ".join(clauses[:-1]) + f"; and {clauses[-1]}"
    if topic:
        sentence = f"On {topic}, {sentence}"
    reverted = sum(u.lead.kind == "revert" for p in picks for u in (*p.units, *p.extra))
    if reverted:
        verb = "was" if reverted == 1 else "were"
        sentence += f", and {_count_word(reverted)} {'change' if reverted == 1 else 'changes'} {verb} backed out"
    return sentence + "."


def _busiest_areas(pick: ProjectPick) -> list[str]:
    """Topics touched by at least a third of a project's changes, at most three."""
    return [name for name, count in pick.topic_counts[:3] if count * 3 >= pick.landed]


def _count_word(count: int) -> str:
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
    return words[count] if count < len(words) else str(count)


def write_body(picks: list[ProjectPick], *, config: WireConfig, detail: int) -> list[str]:
    """One sentence per unit; lower `detail` merges minor units and drops related citations."""
    sentences: list[str] = []
    for pick in picks:
        name = _name(config, pick.repo)
        units = list(pick.units)
        major = units[: 2 if detail <= 1 else len(units)]
        minor = units[len(major) :]
        for position, unit in enumerate(major):
            sentences.append(
                _unit_sentence(unit, name=name, position=position, related=detail >= 2)
            )
        named, counted = _split_extras([*minor, *pick.extra], keep=3 if detail else 2)
        phrases = [
            f"{_predicate(u.lead, max_words=10 if detail else 7)} {cite(*u.activities)}"
            for u in named
        ]
        if counted:
            noun = "change" if len(counted) == 1 else "changes"
            activities = [a for u in counted for a in u.activities]
            phrases.append(
                f"backs out or relands {_count_word(len(counted))} more {noun} {cite(*activities)}"
            )
        if phrases:
            sentences.append(f"{name} also {join_words(phrases)}.")
    return sentences


def _split_extras(units: list[Unit], *, keep: int) -> tuple[list[Unit], list[Unit]]:
    """Units to name in prose, and reverts/relands beyond them that are only counted and cited."""
    if len(units) <= keep:
        return units, []
    named = units[:keep]
    rest = units[keep:]
    counted = [u for u in rest if u.lead.kind in ("revert", "reland")]
    named += [u for u in rest if u.lead.kind not in ("revert", "reland")][
        : max(0, keep - len(named))
    ]
    return named, counted


def _unit_sentence(unit: Unit, *, name: str, position: int, related: bool) -> str:
    event = unit.lead
    if event.kind == "revert" and event.linked:
        original = event.linked[0]
        return (
            f"{name} lands {_quoted_title(event, max_words=12)} {cite(original)} "
            f"and backs it out again {cite(event.activity)}."
        )
    predicate = _predicate(event, max_words=16)
    area = _area(event)
    if area and _is_backend(event, area):
        subject, area = f"{name}'s {area} backend", None
    else:
        subject = name
    sentence = _OPENINGS[min(position, len(_OPENINGS) - 1)].format(s=subject, p=predicate)
    if area and area != unit.dominant_topic:
        sentence += f" in {area}"
    sentence += f" {cite(event.activity, *event.linked)}"
    if related and unit.related:
        count = len(unit.related)
        noun = "related change" if count == 1 else "related changes"
        sentence += f", alongside {_count_word(count)} {noun} " + cite(
            *(e.activity for e in unit.related)
        )
    elif unit.related:
        sentence = sentence.rstrip() + cite(*(e.activity for e in unit.related))
    return sentence + "."


def write_actions(
    picks: list[ProjectPick], *, config: WireConfig
) -> list[tuple[str, Urgency, str, str]]:
    """Action items only where a reader must act (revert → monitor, CI gate or breaking →
    immediate, a new capability others build on → plan), most urgent first."""
    items: list[tuple[str, Urgency, str, str]] = []
    for pick in picks:
        name = _name(config, pick.repo)
        planned = False
        for unit in (*pick.units, *pick.extra):
            event = unit.lead
            marker = cite(event.activity)
            key = f"{event.repo}@{event.activity.sha}"
            what = event.topics[0] if event.topics else name
            if event.breaking or event.ci_gate:
                if event.ci_gate:
                    text = f"Check what now blocks merges in {name}: it {_predicate(event, max_words=10)} {marker}"
                else:
                    text = f"Update code that depends on {_object(event, max_words=8)}: {name} marks the change as breaking {marker}"
                items.append((text, "immediate", event.repo, key))
            elif event.kind in ("revert", "reland"):
                verb = "backed out" if event.kind == "revert" else "relanded"
                target = nominalize(clean_fragment(event.obj)) or _quoted_title(event, max_words=8)
                text = f"If you depend on {what} in {name}, watch your builds and metrics: {target} was {verb} {marker}"
                items.append((text, "monitor", event.repo, key))
            elif not planned and event.kind == "feature" and event.verb in _CAPABILITY_VERBS:
                planned = True
                text = f"Teams building on {what}: plan for {_object(event, max_words=10)} {marker}"
                items.append((text, "plan", event.repo, key))
    order = {"immediate": 0, "monitor": 1, "plan": 2}
    items.sort(key=lambda item: order[item[1]])
    return items


def draft_no_news(
    *, config: WireConfig, window: Window, repos: tuple[str, ...], topic: str | None
) -> Draft:
    """The explicit story of a quiet window."""
    names = [_name(config, r) for r in repos] or ["the followed repositories"]
    about = f" on {topic}" if topic else ""
    return Draft(
        headline=f"NO NEWS{about.upper()} FROM {join_words(names, 'OR').upper()}",
        lede=f"Nothing landed{about} in {join_words(names, 'or')} between {window.label()}.".replace(
            " – ", " and "
        ),
        body=(),
        actions=(),
    )
