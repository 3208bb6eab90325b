"""Rules 1–4 of DIGEST.md: what a story claims. Its citations exist (1), its sentences
credit the right project and component (2), its action items cite what they act on with a
fitting urgency (3), and it spells project names as configured (4)."""

from __future__ import annotations

import re

from digest.classify import Event
from digest.config import WireConfig, topic_key
from digest.model import Story
from digest.text import cited_numbers

_SLUG = re.compile(r"\b[\w.-]+/[\w.-]+\b")
QUOTED = re.compile(r"“[^”]*”")
_STAND_IN = re.compile(
    r"^((In addition|Elsewhere|Meanwhile|Beyond these), )?(It|The project|The backend)\b", re.I
)
_CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b")


def dangling(story: Story) -> list[int]:
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


def attribution(
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
            previous = _subject_project(QUOTED.sub(" ", sentence.text), names)
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


def action_integrity(
    story: Story,
    by_ref: dict[int, Event],
    project_names: set[str],
    *,
    from_title: set[int] = frozenset(),  # type: ignore[assignment]
) -> tuple[float, list[str]]:
    """Share of action items whose ref exists, whose repo is the ref's, and whose urgency fits.

    An [immediate] item citing only references known by their titles (`from_title`) is not
    judged on its urgency unless a title shows it: what made the change breaking or a CI
    gate may be in its body or files, which text alone does not have.
    """
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
        elif not any(item.urgency in expected_urgencies(e) for e in events) and not (
            item.urgency == "immediate"
            and all(n in from_title and not by_ref[n].must_act for n in refs)
        ):
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


def canonical_names(story: Story, config: WireConfig) -> tuple[float, set[str]]:
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
