"""The test of a clean sentence: whether the clause built from a title reads as English an
editor would write, or as a title pasted after a verb.

A clause is clean when it has no parenthetical, no "+" or "&", no braces that spell
several names in one ("{Expr/Series}.gather") and no trailing fragment taken from the
title ("… in", "…"), and when its verb is one the title gave: a title that
opens with a word the lexicon knows mostly as a noun or an adjective ("Fast path for X",
"Chunk overflow on Y", "Descending sorts") or not at all ("Zod 4.4.0 compat") is a noun
phrase, and conjugating that word ("fasts path", "chunks overflow", "descends sorts",
"zods") writes nonsense. A change whose clause is not clean is counted, not named, or
named by its quoted title.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from digest.english.words import (
    ADVERBS,
    CHANGE_VERBS,
    CONJUNCTIONS,
    DETERMINERS,
    PARTICLES,
    PREPOSITIONS,
    RELATIVES,
    SUBORDINATORS,
    TECH_VERBS,
    TITLE_VERBS,
    bare,
    is_identifier,
    looks_like_new_verb,
    parts_of_speech,
    prefixed_verb,
    verb_form,
    verb_lemma,
    words,
)

_CODE = re.compile(r"`[^`]*`")
# "(update-outdated)", "(take 2)": words in brackets with a space or a word inside, not a
# call ("foo()") or a tag of code.
_PARENTHETICAL = re.compile(r"(^|\s)\([^()]*[A-Za-z][^()]*\)")
# "+", "&", a spaced hyphen ("Advanced Routing - Experimental", "X -> Y") and a colon
# ("Use redirect: manual") join a title's parts where prose has words.
# A comparison sign out of code ("since transformers > 5.5") is a title's shorthand too.
_JOINED = re.compile(r"\s[+&]\s|\w\+\w|\s-\s|\s-+>\s|\w:\s|\s(?:[<>]=?|[=!]=)\s")
# "{Expr/Series}.gather", "{list,arr}.unique", "safe_[add,sub,mul]": a shell's braces that
# spell several names in one, which prose spells out.
_BRACED = re.compile(r"\{[^{}\s]*[,/|][^{}\s]*\}|\w\[[^\[\]\s]*,[^\[\]\s]*\]")
# … but an adverb ending a phrasal verb is no fragment: "keeps previous runs around".
_TRAILING = (PREPOSITIONS | CONJUNCTIONS | DETERMINERS | {"etc"}) - {
    "around",
    "away",
    "aside",
    "apart",
}


def given_verb(title: str) -> bool:
    """True unless the first word of `title` reads as a verb only by our guess: a
    participle ("Encoded URLs") or a name before its version ("react 19 SSR"). A verb of
    change ("Add", "Sync", "Fixed"), or a participle before what only an object opens with
    ("Typed `approx`"), is the title's verb. Adjectives that open noun phrases ("Fast path
    for X") are `words.OPENERS`, never verbs."""
    words = title.split()
    if not words or is_identifier(words[0]):
        return False
    word = bare(words[0]).lower()
    lemma = verb_lemma(word)
    if word in CHANGE_VERBS or word in TECH_VERBS or (lemma and lemma in CHANGE_VERBS):
        return True
    following = words[1] if len(words) > 1 else ""
    if following[:1].isdigit() and word not in TITLE_VERBS:
        return False  # "react 19 …", "python 3.14 wheels": a name and its version
    # "Image generation results", "Chunk overflow on X", "Option to seed X": a word as much
    # a noun as a verb, and no verb titles open with, before a noun opens a noun phrase
    ambiguous = {"NOUN", "VERB"} <= parts_of_speech(word) and word not in TITLE_VERBS
    if ambiguous and (_is_noun(following) or following.lower() == "to"):
        return False
    if verb_form(word) == "VBG" and not _opens_object(following):
        # "Descending sorts": a gerund of no verb of change is an adjective, and "Caching
        # layer" a compound noun; "Supporting numeric IDs" is a title in the progressive,
        # of a verb titles open with, before a modifier of its object
        modifier = "ADJ" in parts_of_speech(bare(following).lower())
        return lemma is not None and lemma in TITLE_VERBS and modifier
    if verb_form(word) == "VBD":
        lowered = bare(following).lower()
        # "Encoded URLs", "Advanced Routing": a participle before an acronym or a Title
        # Case word modifies it, as before any noun
        acronym = re.fullmatch(r"[A-Z]{2,}s?", bare(following)) is not None
        return (
            lowered in DETERMINERS
            or lowered in PARTICLES
            or (is_identifier(following) and not acronym)
            # "Added caching" is handled above, a verb of change; "Advanced routing",
            # "Nested routing support": a participle before a gerund modifies it
            or (verb_form(following) == "VBG" and following.islower() and lemma in TECH_VERBS)
        )
    return True


def _is_noun(word: str) -> bool:
    """True for a lower-case word the lexicon knows as a noun in its base form
    ("generation", "overflow"), not an inflected verb ("compiled") or a determiner."""
    lowered = bare(word).lower()
    if not word.islower() or is_identifier(word) or lowered in DETERMINERS | PARTICLES:
        return False
    if lowered in _SHORT_NOUNS:
        return True  # "Background dev server": no lexicon knows "dev", a noun all the same
    return "NOUN" in parts_of_speech(lowered) and verb_form(lowered) in (None, "VB", "VBP")


# Nouns of programming, short forms the lexicon does not know.
_SHORT_NOUNS = words(
    "dev prod config repo env deps perf auth db api cli ui sdk impl util utils lib app"
)


def _opens_object(word: str) -> bool:
    """True when `word` can only open a verb's object or particle: "the", "up", `code`."""
    lowered = bare(word).lower()
    return lowered in DETERMINERS or lowered in PARTICLES or is_identifier(word)


# An aside ends a word: "(arg)sort" is part of one, and taking it out would glue "in" to
# "sort" ("insort"), so it stays and the clause is not clean.
_ASIDE = re.compile(r"\s*\([^()]*\)(?![\w(])")


def _outside_code(predicate: str, edit: Callable[[str], str]) -> str:
    """`predicate` with `edit` applied to its prose alone: each code span ("`f(x)`", "`a /
    b`") stands aside while it runs, and comes back as it was."""
    spans = _CODE.findall(predicate)
    text = edit(_CODE.sub("\x00", predicate))
    for span in spans:
        text = text.replace("\x00", span, 1)
    return text


def tidy(predicate: str) -> str:
    """`predicate` without the asides a title puts in brackets ("(algif_aead LPE)") and with
    "and" for its "+": what an editor keeps of it. Code keeps its brackets ("`f(x)`")."""
    return _outside_code(
        predicate, lambda text: re.sub(r"\s+[+&]\s+", " and ", _ASIDE.sub("", text)).strip()
    )


# A spaced slash between two names: "`skew` / `kurtosis`", "Phi-3 / Phi-4 family".
_SPACED_SLASH = re.compile(r"(?<=\S) / (?=\S)")


def spell_slashes(predicate: str) -> str:
    """`predicate` with "and" for each spaced slash of its prose, which a title writes for
    two things at once: "lowers `skew` / `kurtosis` to streaming aggregations" → "lowers
    `skew` and `kurtosis` …". Code and paths keep theirs."""
    return _outside_code(predicate, lambda text: _SPACED_SLASH.sub(" and ", text))


def _known_verb(word: str) -> bool:
    """True for a third-person verb the lexicon knows, or one of programming ("syncs")."""
    word = word.lower()
    if verb_lemma(word) is not None or prefixed_verb(word) is not None:
        return True
    verbs = TECH_VERBS | TITLE_VERBS  # "inlines": a verb of code the lexicon knows otherwise
    return any(word.endswith(end) and word[: -len(end)] in verbs for end in ("es", "s"))


def knows_verb(lemma: str) -> bool:
    """True for a verb English or programming knows ("add", "syncs", "dedupe", "sympify",
    "re-enable"), not a word only our guess conjugates ("pre-commit", "register-tile")."""
    word = lemma.lower().split()[0] if lemma.split() else ""  # "clean up": "clean"
    if "-" in word:
        # "pre-" makes adjectives ("pre-merge") and names ("pre-commit"), not verbs
        return prefixed_verb(word) is not None and not word.startswith("pre-")
    if word in CHANGE_VERBS | TECH_VERBS | TITLE_VERBS or "VERB" in parts_of_speech(word):
        return True
    return looks_like_new_verb(word)


# Verbs whose object may be a new thing's name alone: "adds Mica" (a method of that name).
_MAKING = frozenset({"adds", "introduces", "implements", "supports"})


# Words that open a question or a how-to, never an object.
_QUESTIONS = frozenset({"how", "what", "why"}) | RELATIVES


def is_clean(predicate: str) -> bool:
    """True when `predicate` opens with a verb the lexicon knows ("astros unable to …" is a
    name conjugated) and has no parenthetical, "+" or "&", or trailing fragment."""
    words_ = predicate.split()
    adverbs = 0
    while adverbs < len(words_) and (
        words_[adverbs].lower() in ADVERBS or words_[adverbs].lower().endswith("ly")
    ):
        adverbs += 1  # "only deepcopies …", "correctly compiles …": only a verb can follow
    if adverbs == len(words_) or not (adverbs or _known_verb(words_[0])):
        return False
    prose = _CODE.sub("code", predicate)
    if _PARENTHETICAL.search(prose) or _JOINED.search(prose) or _BRACED.search(prose):
        return False
    second = words_[adverbs + 1] if len(words_) > adverbs + 1 else ""
    if second[:1].isupper() and second.lower() in PREPOSITIONS | SUBORDINATORS | _QUESTIONS:
        # "fixes For new-style dtypes use …", "adds How to swapped …": a title's opening
        # clause pasted
        return False
    alone = len(words_) == adverbs + 2 and second[1:].islower() and second[:1].isupper()
    if alone and words_[adverbs].lower() not in _MAKING:
        return False  # "sets Directory": a title-cased word alone says nothing of what
    last = bare(prose.split()[-1]).lower() if prose.split() else ""
    return not prose.rstrip().endswith(("…", "...")) and last not in _TRAILING
