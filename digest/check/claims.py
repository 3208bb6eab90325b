"""Rules 1–4 of DIGEST.md: what a story claims. Its citations exist (1), its sentences
credit the right project and component (2), its action items cite what they act on with a
fitting urgency (3), and it spells project names as configured (4)."""

from __future__ import annotations

import re
from functools import lru_cache

from digest.config import WireConfig, topic_key
from digest.english.words import parts_of_speech
from digest.model import ActionItem, Sentence, Story, cited_numbers
from digest.reading.event import Event
from digest.reading.why import MAX_QUOTE_WORDS, plain

MARKER_TEXT = re.compile(r"\[\d+\]")

_SLUG = re.compile(r"\b[\w.-]+/[\w.-]+\b")
QUOTED = re.compile(r"“[^”]*”")
_STAND_IN = re.compile(r"^(\w+(?: \w+){0,3}, )?(It|The project|The backend)\b", re.I)
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
        own = _SLUG.sub(" ", verified(sentence.text, refs))  # a change's own words credit it
        wrong_component = [
            word
            for word, keys in components.items()
            if _mentions(own, word) and not any(k in evidence for k in keys)
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
    or reland to [monitor]; a security fix is [immediate] once a release ships it and
    watched until one does; a breaking change no release ships yet is planned for; anything
    else may only be planned for or watched."""
    if event.security:
        return {"immediate", "monitor"}
    if event.must_act and event.urgency == "immediate":
        return {"immediate"} if event.ci_gate else {"immediate", "plan"}
    if event.must_act:
        return {"monitor"}
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
            # A quotation's names are its author's, checked verbatim by rule 8.
            said = QUOTED.sub(" ", item.text)
            names = set(_CAMEL.findall(_SLUG.sub(" ", said))) - project_names
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
    if len(b) < 6 or a[:3] != b[:3] or parts_of_speech(a):
        return False  # a word of English ("PROMOTES" beside "Prometheus") is no misspelling
    return _edit_distance(a, b) <= max(1, len(b) // 3)


# ---------------------------------------------------------------- rule 8: faithful words

_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
_CODE = re.compile(r"`[^`]*`")
_MENTION = re.compile(r"(?<![\w.])@[A-Za-z][\w-]*")
# The story's own counts ("lands 23 more changes", "makes 11 documentation changes").
_OUR_COUNT = re.compile(
    r"\b\d+(?= (more|documentation|housekeeping|internal|lint|translation|dependenc\w*|changes"
    r"|releases in all|packages|each|in|elsewhere|of them)\b)"
)
_MARKUP = re.compile(
    r"\]\(|https?://|\*\*[^*\s][^*]*\*\*|\b(signed-off-by|co-authored-by|"
    r"differential revision|pull request resolved)\b|```",
    re.I,
)


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _sources(events: list[Event]) -> list[str]:
    """The words a sentence citing `events` may take: each change's title and body."""
    return [
        text
        for event in events
        for activity in (*event.linked, event.activity)
        for text in _words_of(activity.title, activity.body)
    ]


@lru_cache(maxsize=8192)
def _words_of(title: str, body: str) -> tuple[str, ...]:
    return (_squeezed(title), _squeezed(body))


@lru_cache(maxsize=8192)
def _read(body: str) -> str:
    """A body as a reader sees it, its Markdown read: what a quotation of it may match."""
    return _squeezed(plain(body))


def _quoted_from(quote: str, events: list[Event]) -> bool:
    """True when `quote` is verbatim in a title or body of `events` (raw, or Markdown read)."""
    quote = _squeezed(quote)
    if any(quote in s for s in _sources(events)):
        return True
    activities = [a for e in events for a in (*e.linked, e.activity)]
    return any(quote in _read(a.body) for a in activities)


def _quotes(text: str) -> list[str]:
    return [q.strip("“”").strip("…").strip() for q in QUOTED.findall(text)]


def verified(text: str, events: list[Event]) -> str:
    """`text` without the quotations found verbatim in what it cites."""
    for quote in _quotes(text):
        if quote and _quoted_from(quote, events):
            text = text.replace(quote, " ")
    return text


def _markup_beyond(text: str, titles: str) -> bool:
    """Whether `text` carries markup that its cited titles do not: a title is told as written
    (the platforms escape it), but nothing from a description's Markdown may come along."""
    for match in _MARKUP.finditer(text):
        start = text.rfind(" ", 0, match.start()) + 1
        end = text.find(" ", match.end())
        if text[start : end if end >= 0 else None] not in titles:
            return True
    return False


def faithful(
    story: Story,
    by_ref: dict[int, Event],
    from_title: set[int] = frozenset(),  # type: ignore[assignment]
) -> list[str]:
    """Rule 8: a citing sentence's (or action item's) quotations are verbatim, contiguous and at most
    `MAX_QUOTE_WORDS` words of one cited change's title or body; its numbers appear in
    what it cites; no Markdown, link, @-mention or trailer enters any sentence. A sentence
    citing a change known only by its title (`from_title`: no body to read) is judged on
    Markdown alone."""
    problems = []
    told: tuple[Sentence | ActionItem, ...] = (*story.body, *story.action_items)
    for sentence in told:  # an item may quote a description too
        text = MARKER_TEXT.sub(" ", sentence.text)
        refs = [by_ref[n] for n in (cited_numbers(sentence.text) or sentence.refs) if n in by_ref]
        titles = " ".join(e.activity.title for e in refs)
        if _markup_beyond(_CODE.sub(" ", text), titles):
            problems.append(f"“{sentence.text[:60]}…” carries Markdown, a link or a trailer")
        # "@const", "/@fs/", "sass @use": code a title names, never a person.
        people = [m for m in _MENTION.findall(_CODE.sub(" ", text)) if m not in titles]
        if people:
            problems.append(f"“{sentence.text[:60]}…” mentions {', '.join(people)}")
        cited = cited_numbers(sentence.text) or sentence.refs
        if not refs or any(n in from_title for n in cited):
            continue
        sources = _sources(refs)
        for quote in _quotes(text):
            if len(quote.split()) > MAX_QUOTE_WORDS or not _quoted_from(quote, refs):
                problems.append(f"“{quote[:50]}” is not the words of what it cites")
        if sentence in story.action_items:
            continue  # an item's own numbers (the version to upgrade to) are rule 3's
        unquoted = _OUR_COUNT.sub(" ", QUOTED.sub(" ", text))
        for number in _NUMBER.findall(unquoted):
            pattern = re.compile(rf"(?<![\d.]){re.escape(number)}(?![\d])")
            if not any(pattern.search(s) for s in sources):
                problems.append(f"“{sentence.text[:60]}…” says {number}, which it cites nowhere")
    return problems
