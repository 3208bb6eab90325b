"""A proofreader for composed stories: the slips a template makes that `check.py` cannot see.

`proofread(story)` reads the headline, lede, body and action items and reports each
`Problem` with the rule it breaks and the words that break it:

- lands-capital: "lands Ignore malformed scripts": a title pasted after "lands".
- pasted-title: any verb of ours followed by a capitalised verb ("relands Add int4 kernels").
- plan-fragment: the object of "plan for", "depend on" or "building on" is a piece of a
  title rather than a noun phrase ("plan for `--fix` to `uv check`").
- generic-folder: a container folder used as a topic or place ("chiefly in crates",
  "in .github", "depend on test").
- own-name: the project named again as the place ("pydantic validates X in pydantic").
- doubled-word: "the the", "in pydantic in pydantic".
- no-finite-verb: a sentence without a finite verb.
- capital-after-connective: "Separately, It …": a stand-in capitalised after a connective.
- repeated-connective: a connective ("also", "In addition", "Elsewhere", … `CONNECTIVES`)
  more than once.
- the slips of titles of every convention, in `digest.check.proofread_rules`: capital-after-verb,
  type-word, semicolon-list, noun-as-verb, unconjugated-verb, wrong-article, cut-ending (the
  lede and headline only) and repeated-predicate (body sentences of one story).
- place: a place no reader follows, after "in" or as a section's heading ("in Refactor",
  "in SECURITY", "in feat/ui", "in Promql" where the titles write `promql:`), also in
  `digest.check.proofread_rules`.

Words a story quotes from a cited title are the title's, not ours: a title that says
"Fix typo in docs" may say "in docs", and "Also run X" may say "also". A word counts as
quoted when it and a neighbour appear side by side in one of the story's reference titles.

No part-of-speech tagger that installs from PyPI works without downloading a model at run
time, so "finite verb" is a documented heuristic over lemminflect's lexicon: a sentence has
one when a word is an auxiliary or modal, a third-person or past form of a known verb, a
base verb opening the sentence (an imperative) or a base verb after a personal pronoun.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from digest.check.proofread_rules import (
    CONNECTIVES,
    capital_after_verb,
    cut_ending,
    has_finite_verb,
    is_misplaced,
    misplaced,
    noun_as_verb,
    repeated_predicates,
    semicolon_list,
    title_forms,
    type_word,
    unconjugated_verb,
    wrong_article,
)
from digest.config import GENERIC_FOLDERS, WireConfig, topic_key
from digest.english.words import (
    CONJUNCTIONS,
    DETERMINERS,
    PARTICLES,
    PREPOSITIONS,
    is_identifier,
    parts_of_speech,
    verb_form,
    verb_lemma,
    words,
)
from digest.model import Story

# Folders that hold a project's code, tests or docs without saying what they are about.

_NOUN_CLAUSE_OPENERS = words("what how when where which whatever")
_CITATION = re.compile(r"\s*\[\d+\]")
# "Separately, It updates …": a stand-in keeps its capital after an opening connective.
_CAPITAL_STAND_IN = re.compile(r"^[A-Z]\w*(?: \w+){0,3}, (It|The project|The backend) ")
_CODE_SPAN = re.compile(r"`[^`]*`")
_TOKEN = re.compile(r"`[^`]*`|[\w.'’+/-]*\w|\S")


@dataclass(frozen=True)
class Problem:
    """One slip: the rule it breaks, the offending words, and the sentence they are in."""

    rule: str
    text: str
    sentence: str


@dataclass(frozen=True)
class _Token:
    text: str
    key: str  # lowercased, for comparisons
    quoted: bool  # taken from a cited title


def _key(token: str) -> str:
    return token.strip("`'’\"()").rstrip(".,;:!?").lower()


def _tokens(sentence: str, title_pairs: frozenset[tuple[str, str]]) -> list[_Token]:
    raw = _TOKEN.findall(_CITATION.sub("", sentence))
    keys = [_key(t) for t in raw]
    out = []
    for i, (text, key) in enumerate(zip(raw, keys, strict=True)):
        before = i > 0 and (keys[i - 1], key) in title_pairs
        after = i + 1 < len(keys) and (key, keys[i + 1]) in title_pairs
        out.append(_Token(text, key, before or after))
    return out


def _pairs(titles: Iterable[str]) -> frozenset[tuple[str, str]]:
    pairs: set[tuple[str, str]] = set()
    for title in titles:
        keys = [_key(t) for t in _TOKEN.findall(title)]
        pairs.update(itertools.pairwise(keys))
    return frozenset(pairs)


# ---------------------------------------------------------------- rules


def _lands_capital(tokens: Sequence[_Token], pairs: frozenset[tuple[str, str]]) -> Iterable[str]:
    for i, token in enumerate(tokens[:-1]):
        following = tokens[i + 1].text
        if token.key == "lands" and not token.quoted and following[:1].isupper():
            yield f"lands {following}"


def _pasted_title(tokens: Sequence[_Token], pairs: frozenset[tuple[str, str]]) -> Iterable[str]:
    for i, token in enumerate(tokens[1:-1], start=1):
        following = tokens[i + 1]
        if token.quoted or token.key == "lands" or verb_form(token.key) != "VBZ":
            continue
        if (verb_lemma(token.key), following.key) in pairs:
            continue  # the title's own words: "Enable Add Tensor" names the Add operator
        word = following.text
        titled = word[:1].isupper() and word[1:].islower() and not is_identifier(word)
        if titled and verb_lemma(word) == word.lower() and "NOUN" not in parts_of_speech(word):
            yield f"{token.text} {word}"


def _object_after(tokens: Sequence[_Token], i: int) -> list[_Token]:
    """The words after position `i` up to a colon, citation or the end of the clause."""
    out: list[_Token] = []
    for token in tokens[i:]:
        if token.text in (":", ";", ".", ",", "—", "–"):
            break
        out.append(token)
    return out


def _is_fragment(phrase: Sequence[_Token]) -> bool:
    """True when `phrase` is no noun phrase: empty, led by a verb or joiner, dangling, or the
    leftover of "Add `x` to `y`" with its verb cut off."""
    if not phrase:
        return True
    first, last = phrase[0], phrase[-1]
    if first.key in _NOUN_CLAUSE_OPENERS or first.key in DETERMINERS:
        return last.key in PREPOSITIONS or last.key in CONJUNCTIONS
    if first.key in PREPOSITIONS or first.key in CONJUNCTIONS or first.key in PARTICLES:
        return True
    if last.key in PREPOSITIONS or last.key in DETERMINERS or last.key in CONJUNCTIONS:
        return True
    pos = parts_of_speech(first.key)
    if verb_form(first.key) in ("VB", "VBZ") and not pos & {"NOUN", "ADJ"}:
        return True  # "plan for add X"; a participle ("fused SDPA") is an adjective
    return (
        len(phrase) >= 3
        and (first.text.startswith("`") or is_identifier(first.text))
        and phrase[1].key in ("to", "into", "from", "with", "as")
    )


def _plan_fragment(tokens: Sequence[_Token], pairs: frozenset[tuple[str, str]]) -> Iterable[str]:
    for i, token in enumerate(tokens[:-1]):
        lead = (token.key, tokens[i + 1].key)
        if lead not in (("plan", "for"), ("depend", "on"), ("building", "on"), ("build", "on")):
            continue
        phrase = _object_after(tokens, i + 2)
        if _is_fragment(phrase):
            yield " ".join(t.text for t in [token, tokens[i + 1], *phrase])


def _is_generic(key: str, topics: frozenset[str]) -> bool:
    folder = key.strip("/")
    if topic_key(folder) in topics:
        return False
    return folder in GENERIC_FOLDERS or (folder.startswith((".", "_")) and len(folder) > 1)


def _generic_folder(tokens: Sequence[_Token], topics: frozenset[str]) -> Iterable[str]:
    for i, token in enumerate(tokens[:-1]):
        if token.key not in ("in", "on") or token.quoted:
            continue
        # A place may be a list: "chiefly in crates, docs and tests".
        j = i + 1
        while j < len(tokens):
            candidate = tokens[j]
            if candidate.key == "the":
                j += 1
                continue
            if not candidate.quoted and _is_generic(candidate.key, topics):
                yield f"{token.text} {candidate.text}"
            if j + 1 < len(tokens) and (tokens[j + 1].text == "," or tokens[j + 1].key == "and"):
                j += 2
                continue
            break
    for i, token in enumerate(tokens[:-1]):
        if token.key.endswith(("'s", "’s")) and tokens[i + 1].key.startswith("."):
            yield f"{token.text} {tokens[i + 1].text}"


def _own_name(tokens: Sequence[_Token], names: frozenset[str]) -> Iterable[str]:
    """ "pydantic validates X in pydantic": the project named again as the place. A title's
    own words are no place of ours ("uses true division in Polars SQL")."""
    seen: set[str] = set()
    for i, token in enumerate(tokens):
        place = i > 0 and tokens[i - 1].key in ("in", "on") and token.key in seen
        if token.key in names and place and not (token.quoted and tokens[i - 1].quoted):
            yield f"{tokens[i - 1].text} {token.text}"
        seen.add(token.key)


def _doubled_word(tokens: Sequence[_Token], pairs: frozenset[tuple[str, str]]) -> Iterable[str]:
    keys = [t.key for t in tokens]
    for size in (1, 2, 3):
        for i in range(len(keys) - 2 * size + 1):
            first, second = keys[i : i + size], keys[i + size : i + 2 * size]
            span = tokens[i : i + 2 * size]
            if first != second or not any(k.isalpha() for k in first):
                continue
            if all(t.quoted for t in span):
                continue
            yield " ".join(t.text for t in span)


def _connectives(sentences: Sequence[tuple[str, list[_Token]]]) -> Iterable[Problem]:
    """ "also" anywhere, the others where they join sentences: at the start ("Elsewhere, …"),
    not as an adverb of place ("eight elsewhere")."""
    for connective in CONNECTIVES:
        parts = connective.split()
        seen: list[str] = []
        for sentence, tokens in sentences:
            keys = [t.key for t in tokens]
            starts = range(len(keys) - len(parts) + 1) if connective == "also" else (0,)
            for i in starts:
                if keys[i : i + len(parts)] == parts and not tokens[i].quoted:
                    seen.append(sentence)
        for sentence in seen[1:]:
            yield Problem("repeated-connective", f"{connective} ×{len(seen)}", sentence)


_RULES = (
    ("lands-capital", _lands_capital),
    ("pasted-title", _pasted_title),
    ("plan-fragment", _plan_fragment),
    ("doubled-word", _doubled_word),
    ("capital-after-verb", capital_after_verb),
    ("type-word", type_word),
    ("unconjugated-verb", unconjugated_verb),
    ("wrong-article", wrong_article),
)


def proofread_sentences(
    sentences: Iterable[str],
    *,
    titles: Iterable[str] = (),
    headline: str | None = None,
    topics: Iterable[str] = (),
    names: Iterable[str] = (),
    lede: str | None = None,
    actions: Iterable[str] = (),
    headings: Iterable[str] = (),
) -> list[Problem]:
    """The problems of a story given as its sentences and the titles it cites.

    `topics` are configured topic names and aliases: configuration wins, so a configured
    "Docs" topic is no container folder. `names` are the projects' names, which are no
    place in a sentence that already names the project. The headline, upper-case by design and no
    sentence ("NO NEWS FROM X"), is read lower-cased and only for doubled words. `headings`
    are the sections' headings, read as places (`proofread_rules.is_misplaced`).
    """
    titles = list(titles)
    pairs = _pairs(titles)
    forms = title_forms(titles)
    configured = frozenset(topic_key(t) for t in topics)
    own = frozenset(n.lower() for n in names)
    told = [(s, _tokens(s, pairs)) for s in sentences if s.strip()]
    read = [*told, *((s, _tokens(s, pairs)) for s in actions if s.strip())]
    problems: list[Problem] = []
    for sentence, tokens in read:
        for rule, find in _RULES:
            problems += [Problem(rule, text, sentence) for text in find(tokens, pairs)]
        problems += [
            Problem("generic-folder", text, sentence)
            for text in _generic_folder(tokens, configured)
        ]
        problems += [Problem("own-name", text, sentence) for text in _own_name(tokens, own)]
        problems += [
            Problem("place", t, sentence) for t in misplaced(tokens, pairs, forms, configured)
        ]
        problems += [Problem("noun-as-verb", t, sentence) for t in noun_as_verb(tokens, own)]
        problems += [Problem("semicolon-list", t, sentence) for t in semicolon_list(sentence)]
        if match := _CAPITAL_STAND_IN.match(sentence):
            problems.append(Problem("capital-after-connective", match.group(0), sentence))
        if sentence == lede:
            problems += [Problem("cut-ending", t, sentence) for t in cut_ending(tokens)]
        if not has_finite_verb(tokens):
            problems.append(Problem("no-finite-verb", sentence, sentence))
    if headline:
        # Each code span a word of its own: two spans side by side are no doubled word.
        spans = iter(range(1, 1000))
        tokens = _tokens(_CODE_SPAN.sub(lambda _: f"x{next(spans)}", headline).lower(), pairs)
        problems += [Problem("doubled-word", t, headline) for t in _doubled_word(tokens, pairs)]
        problems += [Problem("cut-ending", t, headline) for t in cut_ending(tokens)]
        problems += [Problem("wrong-article", t, headline) for t in wrong_article(tokens, pairs)]
    problems += [
        Problem("place", heading, heading)
        for heading in headings
        if topic_key(heading) not in configured and is_misplaced(heading, forms, heading=True)
    ]
    problems += _connectives(read)
    body = [(s, tokens) for s, tokens in told if s != lede]  # a lede sums the body up
    problems += [Problem("repeated-predicate", p, s) for p, s in repeated_predicates(body)]
    return problems


def proofread(story: Story, *, config: WireConfig | None = None) -> list[Problem]:
    """Every problem of `story`'s lede, body, action items and headline.

    With `config`, the topics configured for the story's repositories are known topics, as
    is the story's own topic.
    """
    sentences = [story.lede, *(s.text for s in story.body)]
    topics = (
        [k for repo in story.repos for t in config.project(repo).topics for k in t.keys]
        if config is not None
        else []
    )
    if story.topic:
        topics.append(story.topic)  # the topic a channel follows: "On Docs, …"
    names = {repo.split("/", 1)[-1] for repo in story.repos}
    if config is not None:
        names |= {config.project(repo).name for repo in story.repos}
    return proofread_sentences(
        sentences,
        titles=[r.title for r in story.references],
        headline=story.headline,
        topics=topics,
        names=names,
        lede=story.lede,
        actions=[i.text for i in story.action_items],
        headings=[s.heading for s in story.sections],
    )
