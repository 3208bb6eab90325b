"""The proofreader's rules for slips of titles of every convention (`digest.check.proofread`).

Each rule reads the tokens of one sentence (words a cited title has side by side are
marked `quoted` and are the title's, not ours) and yields the words that break it:

- capital-after-verb: a verb of ours followed by a capitalised verb, adverb or type word,
  a title pasted whole ("adds FEAT Add AdaMSS", "adds Lazily materialize X").
- type-word: an upper-case type word inside a sentence ("fixes TST bug").
- semicolon-list: a semicolon in a body sentence, a title's list of changes pasted.
- noun-as-verb: a word in the verb's place that the lexicon knows as no verb
  ("torchtitan multi-turns retrieval-augmented GRPO").
- unconjugated-verb: "tunes X and fix Y": a verb joined to a conjugated one, left bare or
  in the past.
- wrong-article: "a xlarge runner", "an unit", "one changes".
- cut-ending: a headline or lede that ends on a function word or a cut phrase ("… once a
  rate limit is.", "… AND MOVE").
- repeated-predicate: the same verb and object in two sentences of one story.
- place: a place a reader cannot follow, after "in" or as a section's heading: a commit
  type ("in Refactor", "in SECURITY"), a path or a type and its scope ("in feat/ui"), or a
  name we title-cased that the cited titles write otherwise ("in Promql", "in Ssr").

`has_finite_verb` is the no-finite-verb heuristic that `digest.check.proofread` documents.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from digest.english.articles import indefinite_article
from digest.english.nouns import ADJECTIVE_PREFIXES
from digest.english.numbers import CARDINALS
from digest.english.shapes import is_adverb, split_verb
from digest.english.words import (
    AUXILIARIES,
    CHANGE_VERBS,
    CONJUNCTIONS,
    DETERMINERS,
    NEGATED_DO,
    PARTICLES,
    PREPOSITIONS,
    STOPWORDS,
    inflections,
    is_identifier,
    noun_lemma,
    parts_of_speech,
    verb_form,
    verb_lemma,
    words,
)
from digest.reading.title_tags import (
    STRICT_TYPE_WORDS,
    TYPE_WORDS,
    is_commit_type,
    reads_as_word,
)

# Words that join a sentence to the one before: each opens at most one sentence of a story.
CONNECTIVES = tuple(
    [
        "also",
        "in addition",
        "elsewhere",
        "meanwhile",
        "likewise",
        "similarly",
        "along the same lines",
        "on top of that",
        "on top of those",
        "additionally",
        "separately",
        "beyond that",
        "in other areas",
        "away from that",
        "in other work",
        "on another front",
        "beyond these",
        "besides these",
        "besides that",
        "other than these",
    ]
)


class Token(Protocol):
    """A word of a sentence as the proofreader reads it."""

    @property
    def text(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def quoted(self) -> bool: ...


def _is_our_verb(token: Token) -> bool:
    """A third-person verb of ours: "adds", "fixes" (not words quoted from a title)."""
    return not token.quoted and token.key.isalpha() and verb_form(token.key) == "VBZ"


def capital_after_verb(tokens: Sequence[Token], pairs: frozenset[tuple[str, str]]) -> Iterable[str]:
    for i, token in enumerate(tokens[:-1]):
        if not _is_our_verb(token):
            continue
        word = tokens[i + 1].text
        if tokens[i + 1].quoted and (verb_lemma(token.key), tokens[i + 1].key) in pairs:
            continue  # "Enable Add Tensor" names the Add operator
        if word in TYPE_WORDS and i + 2 < len(tokens) and tokens[i + 2].text[:1].isupper():
            yield f"{token.text} {word}"  # "adds FEAT Add", "makes CI FIX"
            continue
        titled = word[:1].isupper() and word[1:].islower() and word.isalpha()
        if not titled or is_identifier(word):
            continue
        if is_adverb(word):
            yield f"{token.text} {word}"  # "adds Lazily materialize"
            continue
        rest = " ".join(t.text for t in tokens[i + 1 : i + 6])
        verb, _ = split_verb(rest)
        if verb is not None and verb_form(word) in ("VB", None) and word.lower() != "new":
            yield f"{token.text} {word}"  # "adds Sync vendored stubs"


def type_word(tokens: Sequence[Token], pairs: frozenset[tuple[str, str]]) -> Iterable[str]:
    for token in tokens[1:]:
        if token.text in STRICT_TYPE_WORDS:
            yield token.text


def semicolon_list(sentence: str) -> Iterable[str]:
    """A semicolon that lists changes: two or more, or one before a verb with no subject
    ("supports X; fixes Y"). One that joins two clauses ("…; in all, three changes were
    backed out") is good English."""
    text = re.sub(r"`[^`]*`|“[^”]*”|\"[^\"]*\"", "", sentence)
    parts = re.split(r";\s+", text)
    if len(parts) < 2:
        return
    opener = parts[1].split(" ", 1)[0].strip(",")
    if len(parts) == 2 and re.match(r"use\s.*\binstead\b", parts[1]):
        return  # an item's advice: "Plan to stop using X, which P deprecates; use Y instead"
    if len(parts) > 2 or (opener.islower() and verb_form(opener) in ("VB", "VBZ", "VBD")):
        yield ";".join(part[-20:] if i == 0 else part[:20] for i, part in enumerate(parts[:2]))


_SUBJECTS = words("it")


def noun_as_verb(tokens: Sequence[Token], names: frozenset[str]) -> Iterable[str]:
    """A word right after the subject ("<project>", "It", "<project> also") that should be
    its verb and is none: unknown to the lexicon as a verb, or a compound adjective
    conjugated ("multi-turns")."""
    subjects = names | _SUBJECTS
    for i, token in enumerate(tokens[1:], start=1):
        before = tokens[i - 1].key
        at_verb = before in subjects or (
            before in ("also", "now") and i > 1 and tokens[i - 2].key in subjects
        )
        if not at_verb or token.quoted or not re.fullmatch(r"[a-z][a-z-]*(s|ed)", token.text):
            continue
        if "ADV" in parts_of_speech(token.key):
            continue  # "polars also always rechunks"
        head = token.key.split("-")[0]
        compound = "-" in token.key and head in ADJECTIVE_PREFIXES
        if compound or (verb_lemma(token.key) is None and "-" not in token.key):
            yield f"{tokens[i - 1].text} {token.text}"


def unconjugated_verb(tokens: Sequence[Token], pairs: frozenset[tuple[str, str]]) -> Iterable[str]:
    conjugated = False
    for i, token in enumerate(tokens[:-1]):
        if token.text in (";", ".", ":"):
            conjugated = False
        if _is_our_verb(token) and verb_lemma(token.key) in CHANGE_VERBS:
            conjugated = True
            continue
        if not conjugated or token.key != "and" or token.quoted:
            continue
        verb, following = tokens[i + 1], tokens[i + 2] if i + 2 < len(tokens) else None
        if verb.quoted or not verb.text.isalpha() or not verb.text.islower():
            continue
        bare_or_past = verb_form(verb.key) in ("VB", "VBD")
        if not bare_or_past or verb_lemma(verb.key) not in CHANGE_VERBS:
            continue
        if following is None or following.key in PREPOSITIONS or following.key in CONJUNCTIONS:
            continue
        if following.key in DETERMINERS or "NOUN" in parts_of_speech(following.key):
            yield f"and {verb.text}"


def wrong_article(tokens: Sequence[Token], pairs: frozenset[tuple[str, str]]) -> Iterable[str]:
    for i, token in enumerate(tokens[:-1]):
        following = tokens[i + 1]
        if token.quoted and following.quoted:
            continue
        if token.text in ("a", "an") and re.match(r"[`\w]", following.text):
            if indefinite_article(following.text) != token.text:
                yield f"{token.text} {following.text}"
        elif token.key in ("one", "1") and following.text.isalpha() and following.text.islower():
            plural = following.key.endswith("s") and noun_lemma(following.key) != following.key
            if plural and i + 2 < len(tokens) and tokens[i + 2].key in ("were", "are", "have"):
                yield f"{token.text} {following.text}"


_FUNCTION_ENDINGS = PREPOSITIONS | CONJUNCTIONS | DETERMINERS | AUXILIARIES


def cut_ending(tokens: Sequence[Token]) -> Iterable[str]:
    """A sentence that stops on a function word ("… once a rate limit is."), or on a bare
    verb after "and" ("… ONTO NODEPOOL TIERS AND MOVE")."""
    words_ = [t for t in tokens if re.search(r"\w", t.text)]
    if len(words_) < 3:
        return
    last, before = words_[-1], words_[-2]
    if (last.key in _FUNCTION_ENDINGS and not last.quoted) or (
        before.key in ("and", "or")
        and verb_form(last.key) == "VB"
        and not last.quoted
        and ("NOUN" not in parts_of_speech(last.key) or verb_lemma(last.key) in CHANGE_VERBS)
    ):
        yield f"{before.text} {last.text}"


def predicates(tokens: Sequence[Token]) -> Iterable[tuple[str, str]]:
    """(verb lemma, object) of each verb of ours in a sentence: up to six content words
    after it, lower-cased ("updates release notes" → ("update", "release notes"))."""
    for i, token in enumerate(tokens):
        if not _is_our_verb(token) or verb_lemma(token.key) in ("say", "put"):
            continue  # "its description says “…”", "… puts it, “…”" quote, they tell nothing
        content: list[str] = []
        for following in tokens[i + 1 :]:
            if following.text in (",", ";", ".", ":", "—", "–") or following.text[:1] == "[":
                break
            key = following.key.strip("“”")
            if key and key not in STOPWORDS and key not in PARTICLES and re.search(r"\w", key):
                content.append(key)
            if len(content) == 6:
                break
        if content:
            yield verb_lemma(token.key) or token.key, " ".join(content)


def repeated_predicates(
    sentences: Sequence[tuple[str, Sequence[Token]]],
) -> Iterable[tuple[str, str]]:
    """(predicate, sentence) for each sentence that repeats a verb and object said before.
    A count ("updates one dependency", "updates a dependency", "lands three more changes")
    is each project's own in a story of several, not a claim said twice."""
    seen: set[tuple[str, str]] = set()
    for sentence, tokens in sentences:
        own = {
            (verb, obj)
            for verb, obj in predicates(tokens)
            if not _COUNTS & {*obj.split()[:2]} and not _SINGLE_COUNT.match(obj)
        }
        for verb, obj in sorted(own & seen):
            yield f"{verb} {obj}", sentence
        seen |= own


# A count of one, in words ("updates a dependency", "makes a documentation change").
_SINGLE_COUNT = re.compile(
    r"^((documentation|lint|internal|housekeeping|translation) )*(change|dependency)$"
)
_COUNTS = frozenset(CARDINALS[1:]) | {str(n) for n in range(10, 1000)}
_AUXILIARIES = (
    AUXILIARIES
    | NEGATED_DO
    | words("does do did isn't aren't wasn't weren't hasn't haven't won't can't")
)
_PRONOUNS = words("you we they i")


def has_finite_verb(tokens: Sequence[Token]) -> bool:
    """True when a word is an auxiliary, an imperative opening the sentence, a base verb after
    a personal pronoun, or a third-person or past form after what can be its subject: not
    first in the sentence, and not after a number, article or adjective ("3.15 wheels",
    "the fused op", "new tests" are noun phrases)."""
    previous = ""  # the word before, or "" at the start of a sentence or clause
    subject = ""  # the two words before, when they are the composer's "only change"
    for token in tokens:
        if token.text in (":", ";", ","):
            previous = subject = ""
            continue
        if not re.search(r"\w", token.text) or token.text.startswith("`"):
            continue
        key, form = token.key, verb_form(token.key)
        if form is None and "-" in key:
            form = verb_form(key.rsplit("-", 1)[1])  # "right-sizes", "auto-routes"
        if key in _AUXILIARIES:
            return True
        if form == "VB" and (not previous or previous in _PRONOUNS):
            return True
        if form in ("VBZ", "VBD") and previous and not _modifies(previous, key):
            return True
        # "whose only change set X": a past tense spelled as its base form ("set", "put"),
        # after the quiet lede's subject.
        if form == "VB" and subject == f"only {previous}" and key in _past_forms(key):
            return True
        subject = f"{previous} {key}" if previous == "only" and key in _CHANGE_NOUNS else ""
        previous = key
    return False


# Nouns a composed sentence uses as the subject of a change's verb.
_CHANGE_NOUNS = frozenset({"change", "fix", "commit"})


def _past_forms(word: str) -> tuple[str, ...]:
    lemma = verb_lemma(word)
    return inflections(lemma).get("VBD", ()) if lemma else ()


def _modifies(before: str, word: str) -> bool:
    """True when `before` makes `word` part of a noun phrase rather than its subject."""
    if "NOUN" not in parts_of_speech(word) and verb_form(word) == "VBZ":
        return False  # "adds" is a verb whatever comes before it
    if before in DETERMINERS or not re.search(r"[a-z]", before):
        return True
    return parts_of_speech(before) == {"ADJ"}


# ---------------------------------------------------------------- places

_FORM = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def title_forms(titles: Iterable[str]) -> dict[str, frozenset[str]]:
    """Each word of the titles, lower-cased, and the forms the titles write it in
    ("promql" → {"promql"}, "ssr" → {"ssr", "SSR"})."""
    forms: dict[str, set[str]] = {}
    for title in titles:
        for word in _FORM.findall(title):
            forms.setdefault(word.lower(), set()).add(word)
    return {word: frozenset(found) for word, found in forms.items()}


def is_misplaced(name: str, forms: dict[str, frozenset[str]], *, heading: bool = False) -> bool:
    """True when `name`, named as a place ("… in X", a section's heading), is none a reader
    follows: a commit type in a name's case ("Refactor", "SECURITY", "Typing"), a path or a
    type and its scope ("feat/ui"), or a name we title-cased that the titles write otherwise
    ("Promql" of `promql:`, "Ssr" of `fix(ssr):`, "Cpu" where they write "CPU").

    A `heading` that is a capitalised noun may be a theme of ours ("Fixes", "Security"),
    which no check may tell from a topic of that name: topics never are commit types
    (`digest.reading.topics.followable`), and tests/test_places.py reads every heading's
    topic."""
    name = name.rstrip(".,;:")
    if not name or name.startswith(("`", "@", "“", '"')):
        return False
    if "/" in name:
        return True
    theme = heading and name.istitle() and "NOUN" in parts_of_speech(name.lower())
    if not name.islower() and is_commit_type(name) and not theme:
        return True
    titled = name[:1].isupper() and name[1:].islower() and name.isalpha()
    written = forms.get(name.lower(), frozenset())
    return titled and bool(written) and name not in written and not reads_as_word(name)


# Words after "in" that make a connective of it, not a place: "In addition, Vite …".
_CONNECTIVE_INS = frozenset({"addition", "other", "brief", "all", "short", "turn", "particular"})


def misplaced(
    tokens: Sequence[Token],
    pairs: frozenset[tuple[str, str]],
    forms: dict[str, frozenset[str]],
    configured: frozenset[str],
) -> Iterable[str]:
    """The places after our "in" that `is_misplaced` rejects, each of a list ("one each in
    create-vite and Css"); configured topics are the project's, and a title's own "in X" is
    the title's ("Fix typo in Refactor guide"). A place is read whole, so a title's closing
    bracket beside it (`fix(ssr):`) does not make it the title's; nor is a quotation ours
    (“… crash in warmup/inference loops”)."""
    quoting = False
    for i, token in enumerate(tokens[:-1]):
        if token.text in ("“", "”"):
            quoting = token.text == "“"
        if token.key != "in" or token.quoted or quoting:
            continue
        if tokens[i + 1].key in _CONNECTIVE_INS:
            continue  # "In addition, Vite makes …": a connective, no place
        j = i + 1
        while j < len(tokens):
            candidate, before = tokens[j], tokens[j - 1]
            key = re.sub(r"[^a-z0-9]+", "", candidate.key)
            said = (before.key, candidate.key) in pairs
            if not said and key not in configured and is_misplaced(candidate.text, forms):
                yield f"{token.text} {candidate.text}"
            if j + 1 < len(tokens) and (tokens[j + 1].text == "," or tokens[j + 1].key == "and"):
                j += 2
                continue
            break
