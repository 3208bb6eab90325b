"""What the model is told, and the vocabulary its answer is judged against.

The facts of a story are its drafted sentences (the rules' clauses with their citation
markers), the reference each marker stands for (project, title, topics), and the canonical
project names. A word of the answer that is capitalised, holds a digit, or is a number word
is a *name or number*; it is new unless the facts it may draw on hold it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from lemminflect import getAllLemmas

from digest.config import WireConfig
from digest.english.numbers import NUMBER_WORDS
from digest.english.words import STOPWORDS
from digest.model import CITATION, Story
from digest.reading.event import Event

MARKERS = re.compile(r"(?:\[\d+\])+")
MARKER = re.compile(r"\[(\d+)\]")
_TOKEN = re.compile(r"[A-Za-z0-9#][\w.+#/'-]*[\w+#]|[A-Za-z0-9]")
_PARTS = re.compile(r"[-./']")
# Words that carry no claim of their own: connectives, "lands", "change".
FILLER = frozenset({
    "also", "further", "addition", "additionally", "elsewhere", "meanwhile", "separately",
    "finally", "land", "landed", "change", "more", "plus", "today",
})  # fmt: skip


def tokens(text: str) -> list[str]:
    """The words of `text` with its citation markers removed ("Cortex-M", "bf16", "#619")."""
    found = _TOKEN.findall(MARKERS.sub(" ", text))
    return [t[:-2] if t.endswith("'s") else t for t in found]


def is_name_or_number(token: str) -> bool:
    """True for a capitalised word, a word with a digit, or a number word."""
    return any(c.isupper() or c.isdigit() for c in token) or token.lower() in NUMBER_WORDS


_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*[a-z0-9]|[a-z0-9]")


@cache
def lemma(word: str) -> str:
    """A word's dictionary form, so "backed", "backs" and "back" compare equal."""
    lemmas: dict[str, tuple[str, ...]] = getAllLemmas(word)
    for pos in ("VERB", "NOUN", "ADJ"):
        if pos in lemmas:
            return lemmas[pos][0]
    return word


def words(text: str) -> set[str]:
    """Lower-case content words of `text` in dictionary form, citations and stopwords removed."""
    found = _WORD.findall(CITATION.sub(" ", text.lower()))
    return {lemma(w) for w in found if w not in STOPWORDS and len(w) > 2}


def claim_words(text: str, *, ignore: frozenset[str]) -> set[str]:
    """The content words of a claim that can tie it to a reference (no filler, names, counts)."""
    return words(text) - FILLER - NUMBER_WORDS - ignore


@dataclass(frozen=True)
class Vocabulary:
    """The names, numbers and words an answer may use, and the text its quotes come from."""

    text: str
    words: frozenset[str]

    @classmethod
    def of(cls, texts: Iterable[str]) -> Vocabulary:
        """The vocabulary of `texts`: every token, and every part of a dotted or hyphenated one."""
        texts = [t for t in texts if t]
        words: set[str] = set()
        for token in (t for text in texts for t in tokens(text)):
            words.add(token)
            words.update(p for p in _PARTS.split(token) if p)
        return cls(text=" ".join(MARKERS.sub(" ", t) for t in texts), words=frozenset(words))

    def knows(self, token: str) -> bool:
        """True when `token`, or each of its name or number parts, is in the facts."""
        if token in self.words:
            return True
        if token.lower() in NUMBER_WORDS:
            return token.lower() in {w.lower() for w in self.words}
        parts = [p for p in _PARTS.split(token) if p and is_name_or_number(p)]
        return bool(parts) and all(p in self.words for p in parts)

    def knows_plain(self, word: str) -> bool:
        """True when the facts hold `word` in lower case (a capitalised sentence opener)."""
        return word.lower() in self.words


@dataclass(frozen=True)
class Citation:
    """A reference as the model sees it, and the words that tie a claim to it."""

    n: int
    project: str
    title: str
    topics: tuple[str, ...]
    claims: tuple[str, ...]  # the draft text before this marker, in each sentence citing it

    def words(self, *, ignore: frozenset[str]) -> set[str]:
        """Content words of its title, topics and drafted claims."""
        return claim_words(" ".join((self.title, *self.topics, *self.claims)), ignore=ignore)


@dataclass(frozen=True)
class DraftSentence:
    """One of the rules' body sentences: its text, markers included, and what it cites."""

    text: str
    refs: tuple[int, ...]


@dataclass(frozen=True)
class Facts:
    """Everything the model is given for one story."""

    headline: str
    lede: str
    sentences: tuple[DraftSentence, ...]
    citations: dict[int, Citation]
    project_names: tuple[str, ...]
    name_words: frozenset[str] = field(default=frozenset())
    configured_names: tuple[str, ...] = ()  # every configured project, to find credits

    @property
    def quiet(self) -> bool:
        """True when the rules' lede calls the window quiet (1–3 changes): the rewrite must too."""
        return "quiet" in self.lede.lower()

    def projects_named(self, text: str) -> set[str]:
        """The configured projects `text` names, in any spelling of case."""
        return {
            name
            for name in self.configured_names
            if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.I)
        }

    def sentence_vocabulary(self, index: int) -> Vocabulary:
        """What body sentence `index` may draw on: its draft and the references it cites."""
        draft = self.sentences[index]
        cited = [self.citations[n] for n in draft.refs if n in self.citations]
        return Vocabulary.of([draft.text, *(t for c in cited for t in (c.title, *c.topics))])

    def lede_claims(self) -> dict[str | None, set[str]]:
        """Per project, the claim words the draft says about it (its sentences, its part of
        the rules' lede); under None, what the draft says before naming any project."""
        said: dict[str | None, set[str]] = {}
        for text in (self.lede, *(s.text for s in self.sentences)):
            for project, claim in self.credits(text):
                said.setdefault(project, set()).update(claim)
        return said

    def credits(self, text: str) -> list[tuple[str | None, set[str]]]:
        """`text` cut at each project it names: (project, the claim words that follow)."""
        pattern = "|".join(
            rf"(?<![\w-]){re.escape(n)}(?![\w-])"
            for n in sorted(self.configured_names, key=len, reverse=True)
        )
        if not pattern:
            return [(None, claim_words(text, ignore=self.name_words))]
        pieces = re.split(f"({pattern})", text, flags=re.I)
        canonical = {n.lower(): n for n in self.configured_names}
        result: list[tuple[str | None, set[str]]] = [
            (None, claim_words(pieces[0], ignore=self.name_words))
        ]
        for name, claim in zip(pieces[1::2], pieces[2::2], strict=True):
            result.append((canonical[name.lower()], claim_words(claim, ignore=self.name_words)))
        return result

    def lede_vocabulary(self) -> Vocabulary:
        """What the lede may draw on: the whole story's facts."""
        return Vocabulary.of(
            [
                self.headline,
                self.lede,
                *(s.text for s in self.sentences),
                *self.project_names,
                *(t for c in self.citations.values() for t in (c.title, *c.topics)),
            ]
        )

    def as_prompt(self) -> dict[str, Any]:
        """The facts as the JSON document the model reads."""
        body = []
        for index, sentence in enumerate(self.sentences):
            vocabulary = self.sentence_vocabulary(index)
            allowed = sorted(w for w in vocabulary.words if is_name_or_number(w))
            body.append(
                {
                    "sentence": index + 1,
                    "draft": sentence.text,
                    "cites": list(dict.fromkeys(sentence.refs)),
                    "names_and_numbers": allowed,
                }
            )
        return {
            "projects": list(self.project_names),
            "lede": self.lede,
            "quiet_window": self.quiet,
            "body": body,
            "references": [
                {"ref": c.n, "project": c.project, "title": c.title, "topics": list(c.topics)}
                for c in sorted(self.citations.values(), key=lambda c: c.n)
            ],
        }


def build_facts(story: Story, *, events: Iterable[Event], config: WireConfig) -> Facts:
    """The facts of `story`: its drafted lede and body, its references and canonical names."""
    by_sha = {e.activity.sha: e for e in events}
    claims: dict[int, list[str]] = {}
    for sentence in story.body:
        start = 0
        for group in MARKERS.finditer(sentence.text):
            claim = sentence.text[start : group.start()]
            for number in MARKER.findall(group.group()):
                claims.setdefault(int(number), []).append(claim)
            start = group.end()
    citations = {}
    for ref in story.references:
        event = by_sha.get(ref.sha)
        citations[ref.n] = Citation(
            n=ref.n,
            project=config.project(ref.repo).name,
            title=ref.title,
            topics=event.topics if event else (),
            claims=tuple(claims.get(ref.n, ())),
        )
    names = tuple(dict.fromkeys(config.project(r).name for r in story.repos))
    name_words = {
        w
        for p in (config.project(r) for r in story.repos)
        for text in (p.name, p.repo, *p.aliases)
        for w in words(text.replace("/", " "))
    }
    return Facts(
        headline=story.headline,
        lede=story.lede,
        sentences=tuple(DraftSentence(text=s.text, refs=s.refs) for s in story.body),
        citations=citations,
        project_names=names,
        name_words=frozenset(name_words),
        configured_names=tuple(dict.fromkeys((*names, *(p.name for p in config.projects)))),
    )
