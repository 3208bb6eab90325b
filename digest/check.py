"""Judging a story: the rules 1–7 of DIGEST.md, computed for every composed story.

Rules 1 (dangling citations), 3 (action integrity) and 4 (canonical names) must never
fail: `require_integrity` raises when they do, so such a story is never delivered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import combinations

from digest.classify import Event, classify_one
from digest.config import WireConfig, topic_key
from digest.errors import StoryCheckError
from digest.model import Activity, CheckFigures, Reference, Story
from digest.rank import rank
from digest.select import body_limits, folds_trivia, is_quiet, news_count, split_news
from digest.text import cited_numbers, content_words, jaccard

MIN_ATTRIBUTION = 0.9
MIN_COVERAGE = 0.67
MAX_REDUNDANCY = 0.1
REDUNDANT_PAIR = 0.5
_SLUG = re.compile(r"\b[\w.-]+/[\w.-]+\b")
_QUOTED = re.compile(r"“[^”]*”")
_STAND_IN = re.compile(
    r"^((In addition|Elsewhere|Meanwhile|Beyond these), )?(It|The project|The backend)\b", re.I
)
_CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b")


def check_story(
    story: Story,
    *,
    config: WireConfig,
    ranking: Sequence[tuple[Event, float]] | None = None,
    events: Iterable[Event] | None = None,
) -> CheckFigures:
    """Compute every rule's figure; `problems` lists each failed rule in a sentence.

    `ranking` is the window's classified events with their scores, as the composer ranked
    them (for coverage, attribution and the quiet-window rule); `events` alone are ranked
    here. Without either, attribution uses reference titles only and coverage is not judged.
    """
    if ranking is None:
        ranking = rank(list(events)) if events is not None else []
    ranking = list(ranking)
    events = [event for event, _ in ranking]
    by_ref = _events_by_reference(story.references, events, config)
    problems: list[str] = []

    dangling = _dangling(story)
    if dangling:
        problems.append(f"rule 1: citations {dangling} are not in the references")

    attribution, misattributed = _attribution(story, by_ref, config)
    if attribution < MIN_ATTRIBUTION:
        problems.append(
            f"rule 2: attribution {attribution:.2f} < {MIN_ATTRIBUTION}: "
            + "; ".join(misattributed)
        )

    integrity, broken = _action_integrity(story, by_ref, {p.name for p in config.projects})
    if integrity < 1.0:
        problems.append("rule 3: " + "; ".join(broken))

    canonical, misspelt = _canonical_names(story, config)
    if canonical < 1.0:
        problems.append(f"rule 4: names not spelled as configured: {', '.join(sorted(misspelt))}")

    coverage, reverts_cited = _coverage(story, ranking) if ranking else (1.0, 1.0)
    if coverage < MIN_COVERAGE:
        problems.append(f"rule 5: coverage {coverage:.2f} < {MIN_COVERAGE}")
    if reverts_cited < 1.0:
        problems.append(f"rule 5: only {reverts_cited:.0%} of the changes to act on are cited")

    redundancy = _redundancy(story)
    if redundancy > MAX_REDUNDANCY:
        problems.append(f"rule 6: redundancy {redundancy:.2f} > {MAX_REDUNDANCY}")

    words = sum(len(s.text.split()) for s in story.body)
    problems += _length(story, config, changes=news_count(events) if events else None, words=words)

    return CheckFigures(
        dangling_citations=len(dangling),
        attribution=round(attribution, 3),
        action_integrity=round(integrity, 3),
        canonical_names=round(canonical, 3),
        coverage=round(coverage, 3),
        reverts_cited=round(reverts_cited, 3),
        redundancy=round(redundancy, 3),
        headline_chars=len(story.headline),
        body_sentences=len(story.body),
        body_words=words,
        problems=tuple(problems),
    )


def require_integrity(story: Story) -> None:
    """Raise StoryCheckError when rule 1, 3 or 4 failed: such a story must not go out."""
    if story.checks is None:
        raise StoryCheckError(["the story was never checked"])
    fatal = [p for p in story.checks.problems if p.startswith(("rule 1", "rule 3", "rule 4"))]
    if fatal:
        raise StoryCheckError(fatal)


# ---------------------------------------------------------------- rules


def _events_by_reference(
    references: tuple[Reference, ...], events: list[Event], config: WireConfig
) -> dict[int, Event]:
    """The event behind each reference; a reference with no known event is classified from its title."""
    by_sha = {e.activity.sha: e for e in events}
    by_number = {(e.repo.lower(), e.activity.number): e for e in events if e.activity.number}
    for event in events:
        for original in event.linked:
            by_sha.setdefault(original.sha, classify_one(original, config.project(original.repo)))
    found = {}
    for ref in references:
        event = by_sha.get(ref.sha) or by_number.get((ref.repo.lower(), ref.number))
        if event is None:
            stub = Activity(repo=ref.repo, sha=ref.sha or f"ref{ref.n}", number=ref.number,
                            title=ref.title, landed_at="1970-01-01T00:00:00Z")  # fmt: skip
            event = classify_one(stub, config.project(ref.repo))
        found[ref.n] = event
    return found


def _dangling(story: Story) -> list[int]:
    known = {r.n for r in story.references}
    texts = [s.text for s in story.body] + [i.text for i in story.action_items]
    cited = [n for t in texts for n in cited_numbers(t)]
    cited += [n for s in story.body for n in s.refs] + [
        n for i in story.action_items for n in i.refs
    ]
    return sorted({n for n in cited if n not in known})


def _evidence(event: Event) -> str:
    activity = event.activity
    parts = [activity.title, *event.topics, *activity.labels, *(f.path for f in activity.files)]
    return topic_key(" ".join(parts))


def _component_words(config: WireConfig) -> dict[str, set[str]]:
    """Component word → the keys that count as evidence for it (its topic's name and aliases)."""
    words: dict[str, set[str]] = {}
    for project in config.projects:
        for topic in project.topics:
            for word in (topic.name, *topic.aliases):
                words.setdefault(word, set()).update(topic.keys)
    return words


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.I) is not None


def _attribution(
    story: Story, by_ref: dict[int, Event], config: WireConfig
) -> tuple[float, list[str]]:
    """Share of citing sentences whose project and component words match what they cite."""
    components = _component_words(config)
    names = {p.name: p.repo.lower() for p in config.projects}
    citing = [s for s in story.body if cited_numbers(s.text) or s.refs]
    # A sentence opening with a stand-in ("It", "The project") credits the project the
    # sentence before it credited.
    credits: dict[int, str | None] = {}
    previous: str | None = None
    for position, sentence in enumerate(story.body):
        if not _STAND_IN.match(sentence.text):
            previous = _subject_project(_QUOTED.sub(" ", sentence.text), names)
        credits[position] = previous
    bad = []
    for position, sentence in enumerate(story.body):
        if sentence not in citing:
            continue
        refs = [by_ref[n] for n in (cited_numbers(sentence.text) or sentence.refs) if n in by_ref]
        if not refs:
            continue
        repos = {e.repo.lower() for e in refs}
        credited = credits[position]
        wrong_project = [credited] if credited and names[credited] not in repos else []
        evidence = " ".join(_evidence(e) for e in refs)
        wrong_component = [
            word
            for word, keys in components.items()
            if _mentions(_SLUG.sub(" ", sentence.text), word)
            and not any(k in evidence for k in keys)
        ]
        if wrong_project or wrong_component:
            bad.append(
                f"“{sentence.text[:60]}…” credits {', '.join(wrong_project + wrong_component)}"
            )
    score = 1.0 - len(bad) / len(citing) if citing else 1.0
    return score, bad


def _subject_project(text: str, names: dict[str, str]) -> str | None:
    """The project a sentence credits: the first configured name it mentions.

    Later mentions are objects ("ExecuTorch relands the PyTorch 2.12 pin"), not credit.
    """
    found = []
    for name in names:
        match = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.I)
        if match:
            found.append((match.start(), name))
    return min(found)[1] if found else None


def expected_urgencies(event: Event) -> set[str]:
    """The urgencies an action item about `event` may carry (DIGEST.md layout rules):
    a must-act change is [immediate] when it is breaking or changes CI gates, else a revert
    or reland to [monitor]; anything else may only be planned for or watched."""
    if event.must_act:
        return {"immediate"} if event.urgency == "immediate" else {"monitor"}
    return {"plan", "monitor"}


def _action_integrity(
    story: Story, by_ref: dict[int, Event], project_names: set[str]
) -> tuple[float, list[str]]:
    """Share of action items whose ref exists, whose repo is the ref's, and whose urgency fits."""
    if not story.action_items:
        return 1.0, []
    broken = []
    for item in story.action_items:
        refs = cited_numbers(item.text) or list(item.refs)
        label = f"action “{item.text[:50]}…”"
        if not refs:
            broken.append(f"{label} cites nothing")
            continue
        missing = [n for n in refs if n not in by_ref]
        if missing:
            broken.append(f"{label} cites {missing}, which do not exist")
            continue
        events = [by_ref[n] for n in refs]
        if item.repo.lower() not in {e.repo.lower() for e in events}:
            broken.append(f"{label} names {item.repo}, but its reference is in another repository")
        elif not any(item.urgency in expected_urgencies(e) for e in events):
            broken.append(f"{label} is [{item.urgency}], which does not fit what it cites")
        else:
            names = set(_CAMEL.findall(_SLUG.sub(" ", item.text))) - project_names
            evidence = " ".join(_evidence(e) for e in events)
            unsupported = [n for n in names if topic_key(n) not in evidence]
            if unsupported:
                broken.append(
                    f"{label} speaks of {', '.join(sorted(unsupported))}, which its reference does not"
                )
    return 1.0 - len(broken) / len(story.action_items), broken


def _edit_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _canonical_names(story: Story, config: WireConfig) -> tuple[float, set[str]]:
    """Share of project-name mentions spelled exactly as configured (upper case in headlines).

    A spelling copied from the title of a change the same text cites is a quotation, not
    ours ("fixes ExecutorTorch → ExecuTorch in comments [4]"); the headline and lede, which
    cite nothing, may quote any referenced title.
    """
    names = [p.name for p in config.projects]
    titles = {r.n: set(re.findall(r"[\w-]+", r.title)) for r in story.references}
    everywhere = set().union(*titles.values()) if titles else set()
    texts = [
        (story.headline, True, {t.upper() for t in everywhere}),
        (story.lede, False, everywhere),
        *((t, False, _quoted_tokens(t, titles)) for t in (s.text for s in story.body)),
        *((t, False, _quoted_tokens(t, titles)) for t in (i.text for i in story.action_items)),
    ]
    mentions = 0
    misspelt: set[str] = set()
    for text, upper, quoted in texts:
        for token in re.findall(r"[\w-]+", _SLUG.sub(" ", text)):
            for name in names:
                wanted = name.upper() if upper else name
                if token == wanted:
                    mentions += 1
                elif _looks_like(token, name) and token not in quoted:
                    mentions += 1
                    misspelt.add(token)
    return (1.0 - len(misspelt) / mentions if mentions else 1.0), misspelt


def _quoted_tokens(text: str, titles: dict[int, set[str]]) -> set[str]:
    return set().union(*(titles.get(n, set()) for n in cited_numbers(text)))


def _looks_like(token: str, name: str) -> bool:
    a, b = token.lower(), name.lower()
    if token.islower() and not name.islower():
        return False  # a module or package identifier ("executorch.exir"), not a prose mention
    if a == b:
        return token not in (name, name.upper())
    if len(b) < 6 or a[:3] != b[:3]:
        return False
    return _edit_distance(a, b) <= max(1, len(b) // 3)


def _coverage(story: Story, ranking: list[tuple[Event, float]]) -> tuple[float, float]:
    """Share of each project's top-3 events that are cited, leaving aside what the story
    counts instead of telling (`select.split_news`: routine bumps, a longer window's
    trivia); share of the must-act events cited."""
    cited = {r.sha for r in story.references} | {
        (r.repo.lower(), r.number) for r in story.references
    }

    def is_cited(event: Event) -> bool:
        return event.activity.sha in cited or (event.repo.lower(), event.activity.number) in cited

    events = [event for event, _ in ranking]
    fold = folds_trivia(story.window, events)
    by_repo: dict[str, list[Event]] = {}
    for event in events:
        by_repo.setdefault(event.repo, []).append(event)
    top = [e for group in by_repo.values() for e in split_news(group, fold_trivia=fold)[0][:3]]
    coverage = sum(map(is_cited, top)) / len(top) if top else 1.0
    must = [event for event in events if event.must_act]
    # A revert or reland no sentence cites may be counted instead ("backs out or relands 12
    # more changes"): a story names a handful of action items, whatever the window. A
    # breaking or CI-gate change is always cited.
    undone = sum(not is_cited(e) and e.kind in ("revert", "reland") for e in must)
    accounted = sum(map(is_cited, must)) + min(undone, _counted_undos(story))
    reverts = accounted / len(must) if must else 1.0
    return coverage, reverts


_COUNTED_UNDOS = re.compile(r"\b(?:backs out|relands|backs out or relands) (\w+) more changes?\b")
_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_COUNT_WORDS = {word: n for n, word in enumerate(_NUMBER_WORDS)}


def _counted_undos(story: Story) -> int:
    """How many reverts and relands the body counts without citing them."""
    total = 0
    for sentence in story.body:
        for match in _COUNTED_UNDOS.finditer(_QUOTED.sub(" ", sentence.text)):
            word = match.group(1).lower()
            total += int(word) if word.isdigit() else _COUNT_WORDS.get(word, 0)
    return total


def _length(story: Story, config: WireConfig, *, changes: int | None, words: int) -> list[str]:
    """Rule 7: headline length, and a body within the window's limits (DIGEST.md).

    A quiet window (1–3 changes besides routine bumps; without events, a story of 1–3
    references) may have a body of one sentence a change, and its lede must say so.
    """
    problems = []
    max_chars = config.digest.max_headline_chars
    if len(story.headline) > max_chars:
        problems.append(f"rule 7: headline has {len(story.headline)} characters > {max_chars}")
    if story.is_empty:
        return problems
    if changes is None and is_quiet(len(story.references)):
        changes = len(story.references)
    limits = body_limits(story.window, config, changes=changes)
    sentences = len(story.body)
    if not limits.min_sentences <= sentences <= limits.max_sentences:
        problems.append(
            f"rule 7: body has {sentences} sentences, "
            f"not {limits.min_sentences}–{limits.max_sentences}"
        )
    if words > limits.max_words:
        problems.append(f"rule 7: body has {words} words > {limits.max_words}")
    if changes is not None and is_quiet(changes) and "quiet" not in story.lede.lower():
        problems.append("rule 7: the lede of a quiet window's story does not say it was quiet")
    return problems


def _redundancy(story: Story) -> float:
    """Share of body sentence pairs whose content words overlap by more than half."""
    words = [content_words(s.text) for s in story.body]
    pairs = list(combinations(words, 2))
    if not pairs:
        return 0.0
    return sum(jaccard(a, b) > REDUNDANT_PAIR for a, b in pairs) / len(pairs)
