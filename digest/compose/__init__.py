"""Composing a story: a pipeline of named pure functions from activity to a checked Story.

    classify → filter_topic → rank → group_units → draft (headline, lede, body, actions)
             → number_references → check

Modules: `phrases` (what one event reads as), `release` (how releases read), `headline`
(headline and lede), `body`, `counts` and `layout` (sentences, what is counted, a day's
paragraph or a longer window's sections), `actions` (action items), `citations` (markers
and their numbering). Citations are drafted as markers naming
an activity; `number_references` turns them into [n] in order of first citation, so
numbering and the reference list can never disagree.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from itertools import chain

from digest.budget import body_limits, story_budget, window_days
from digest.check import check_story, require_integrity
from digest.compose.actions import Action, acted_on, item_quotation, write_actions
from digest.compose.body import told_reason
from digest.compose.citations import MARKER, Draft, cite, number_references
from digest.compose.fit import trimmed
from digest.compose.headline import draft_no_news, news, write_headline, write_lede
from digest.compose.layout import write_day_body, write_sections
from digest.config import WireConfig, topic_key
from digest.english.words import STOPWORDS, parts_of_speech
from digest.errors import UnknownTopicError
from digest.model import Activity, Story, Window
from digest.rank import rank
from digest.reading.classify import Reading, classify
from digest.reading.event import Event
from digest.reading.spelling import (
    capital_spelling,
    prose_spelling,
    with_own_spellings,
)
from digest.select import ProjectPick, folds_trivia, group_units

__all__ = ["cite", "compose", "draft_story", "filter_topic"]


def compose(
    activities: Iterable[Activity],
    *,
    config: WireConfig,
    window: Window,
    topic: str | None = None,
    repos: Iterable[str] = (),
    readings: Mapping[tuple[str, str], Reading] | None = None,
) -> Story:
    """Compose the checked story of `window` from its activity.

    `topic` narrows the story to one topic; `repos` names the repositories the story is
    about (for the "no news" story when nothing landed); `readings` are the activities'
    `read_change`, when taken ahead (`classify`). Raises StoryCheckError when the story
    fails a rule that must never fail (1, 3 or 4 of DIGEST.md).
    """
    activities = tuple(activities)
    in_window = [a for a in activities if window.contains(a.landed_at)]
    # How a project spells its name, from all the history at hand: a quiet week says too
    # little to tell, and "numpy" in one week beside "NumPy" in the next reads as a slip.
    spelled = with_own_spellings(config, activities)
    if spelled is not config and readings:
        # A reading taken under the old name would call the project by it.
        readings = {
            k: r
            for k, r in readings.items()
            if spelled.is_configured(k[0]) == config.is_configured(k[0])
        }
    config = spelled
    earlier = [a for a in activities if a.landed_at < window.since]
    events = filter_topic(classify(in_window, config, readings, earlier=earlier), topic, config)
    repo_names = tuple(dict.fromkeys([*repos, *(e.repo for e in events)]))
    projects = len({e.repo for e in events}) or 1
    # Every project keeps its top stories; one project alone gets the whole budget.
    per_project = max(config.digest.stories_per_project, math.ceil(story_budget(window) / projects))
    ranking = rank(events)
    # A longer window names at most a third of its units for back-outs and other must-act
    # changes; the rest of those are counted and cited by the action items.
    long = window_days(window) > 1
    picks = group_units(
        ranking,
        per_project=per_project,
        max_must_act=max(1, per_project // 3) if long else None,
        fold_trivia=folds_trivia(window, events),
        plain_units=config.digest.stories_per_project,
        explains=lambda event: told_reason(event) is not None,
    )
    draft = draft_story(picks, config=config, window=window, repos=repo_names, topic=topic)
    spellings = {}
    for repo in repo_names:
        name = config.project(repo).name
        own = (a for a in activities if a.repo == repo)
        if not config.is_configured(repo) and (spelling := capital_spelling(name, own)):
            spellings[name] = spelling
    draft = capitalize_names(draft, spellings)
    draft = respell_subjects(
        draft, [a for a in activities if a.repo in repo_names], config, repos=repo_names
    )
    story = number_references(
        draft, activities=in_window, window=window, repos=repo_names, topic=topic
    )
    checks = check_story(story, config=config, ranking=ranking)
    story = story.model_copy(update={"checks": checks})
    require_integrity(story)
    return story


def capitalize_names(draft: Draft, spellings: Mapping[str, str]) -> Draft:
    """`draft` with each name of `spellings` written as its spelling with a capital wherever
    its own words name the project, not in a quotation or code: "Prometheus fixes …", and
    then "a fix that Vite 8.0.14 ships", "Additionally, Svelte ensures …" too; a name
    capitalized where a sentence opens and in lower case elsewhere reads as a slip."""
    if not spellings:
        return draft
    names = "|".join(map(re.escape, spellings))
    named = re.compile(rf"(?<![\w/@.`'-])(?:{names})(?![\w/@`-]|\.\w)")

    def capitalize(text: str) -> str:
        parts = _QUOTED.split(text)  # (the quoted and coded parts are the odd ones)
        return "".join(
            part if at % 2 else named.sub(lambda m: spellings[m.group(0)], part)
            for at, part in enumerate(parts)
        )

    actions = tuple((capitalize(text), u, repo, key) for text, u, repo, key in draft.actions)
    return replace(_rewritten(draft, capitalize), actions=actions)


_QUOTED = re.compile(r"(“[^”]*”|`[^`]*`|\"[^\"]*\")")


# A sentence's subject in lower case, at its start or after its opening connective: "tsdb
# fixes …", "In addition, promql adds …".
_LOWER_SUBJECT = re.compile(
    r"(?:^|(?<=[.!?] ))(?:(?P<link>[A-Z][a-z]+(?: [a-z]+){0,3}), )?(?P<word>[a-z][a-z0-9_-]*)(?= )"
)


def respell_subjects(
    draft: Draft, activities: list[Activity], config: WireConfig, *, repos: Iterable[str]
) -> Draft:
    """`draft` with each subject that is a package or area in lower case ("tsdb fixes …")
    spelled as the activities' prose spells it ("TSDB fixes …", `prose_spelling`); a word
    of English or a name of the projects (`repos`, the configured) stays as it is."""
    names = {p.name.lower() for p in config.projects} | {r.split("/")[1] for r in repos}
    spellings: dict[str, str | None] = {}

    def spelled(match: re.Match[str]) -> str:
        word = match["word"]
        # ("the" of "In addition, the backend …" is in no lexicon of content words)
        if word in names or word in STOPWORDS or parts_of_speech(word):
            return match[0]
        if word not in spellings:
            spellings[word] = prose_spelling(word, activities)
        better = spellings[word]
        return (
            match[0] if better is None else match[0][: match.start("word") - match.start()] + better
        )

    return _rewritten(draft, lambda text: _LOWER_SUBJECT.sub(spelled, text))


def _rewritten(draft: Draft, rewrite: Callable[[str], str]) -> Draft:
    """`draft` with `rewrite` applied to its lede and to each sentence of its body."""
    return replace(draft, lede=rewrite(draft.lede), body=tuple(map(rewrite, draft.body)))


def filter_topic(events: list[Event], topic: str | None, config: WireConfig) -> list[Event]:
    """Keep the events of `topic` (matched by name or alias); unknown topics are an error."""
    if topic is None:
        return events
    key = topic_key(topic)
    known = {k for p in config.projects for t in p.topics for k in t.keys}
    seen = {topic_key(t) for e in events for t in e.topics}
    if key not in known and key not in seen:
        raise UnknownTopicError(topic, topics_of_window(events, config))
    names = {topic_key(t.name) for p in config.projects for t in p.topics if key in t.keys} | {key}
    return [e for e in events if names & {topic_key(t) for t in e.topics}]


def topics_of_window(events: list[Event], config: WireConfig) -> list[str]:
    """The topics a reader could ask for in this window: those configured for its projects
    and those its changes fall under (automatic ones too); every configured topic when it
    has no change at all."""
    if not events:
        return config.known_topics()
    repos = {e.project.repo for e in events}
    configured = {t.name for p in config.projects if p.repo in repos for t in p.topics}
    seen = {t for e in events for t in e.topics}
    return sorted(configured | seen, key=str.lower)


def draft_story(
    picks: list[ProjectPick],
    *,
    config: WireConfig,
    window: Window,
    repos: tuple[str, ...],
    topic: str | None,
) -> Draft:
    """Write headline, lede, body and action items; the body is shortened until it fits.

    A window of a day gets one paragraph; a longer one gets sections under the lede.
    """
    if not picks:
        return draft_no_news(config=config, window=window, repos=repos, topic=topic)
    limits = body_limits(window, config, changes=news(picks), projects=len(picks))
    writer = write_day_body if window_days(window) <= 1 else write_sections
    # Fewer changes told in full before every change in fewer words: a story too long at
    # full detail first counts its lowest-ranked spare units (`trimmed`), then shortens.
    # (lazily: a story that fits at once builds none of the trimmed variants)
    plain = config.digest.stories_per_project
    attempts = chain(
        ((chosen, 3) for chosen in chain([picks], trimmed(picks, plain_units=plain))),
        ((picks, detail) for detail in (2, 1, 0)),
    )
    for chosen, detail in attempts:
        acted = acted_on(chosen)
        paragraphs = writer(chosen, config=config, detail=detail, acted=acted)
        body = tuple(s for p in paragraphs for s in p.sentences)
        # (counted as rule 7 counts them: a citation inside a sentence is a word of it)
        words = sum(len(MARKER.sub("[n]", s).split()) for s in body)
        if len(body) <= limits.max_sentences and words <= limits.max_words:
            break
    picks = chosen
    sections, start = [], 0
    for paragraph in paragraphs:
        end = start + len(paragraph.sentences)
        if paragraph.heading is not None and end > start:
            sections.append((paragraph.heading, start, end))
        start = end
    headline, lead = write_headline(
        picks, config=config, max_chars=config.digest.max_headline_chars
    )
    return Draft(
        headline=headline,
        lead=lead,
        lede=write_lede(picks, config=config, window=window, topic=topic),
        body=body,
        actions=tuple(a for a in write_actions(picks, config=config) if not _retold(a, body)),
        sections=tuple(sections),
    )


def _retold(action: Action, body: tuple[str, ...]) -> bool:
    """True for a [plan] item whose quotation the body already gives: "Try X: the change
    adds X; its description says “…”" read twice is a template, not advice."""
    text, urgency, _, _ = action
    said = item_quotation(text)
    return urgency == "plan" and bool(said) and any(said in s for s in body)
