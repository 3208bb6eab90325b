"""Readers of the shapes a title comes in, for `digest.english.clauses.clause`.

Each reader looks at the words of a normalized title and either finds its shape (a verb
first, a subject of its own, a noun phrase) or declines; the lexicon behind them is
`digest.english.words`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from digest.english.clean import given_verb
from digest.english.nouns import ADJECTIVE_PREFIXES, PROBLEM_NOUNS
from digest.english.words import (
    ADVERBS,
    ARTICLES,
    CHANGE_NOUNS,
    CHANGE_VERBS,
    CONJUNCTIONS,
    DETERMINERS,
    LOOSE_PARTICLE_FOLLOWERS,
    LOOSE_PARTICLES,
    MODALS,
    OPENERS,
    PARTICLES,
    PREPOSITIONS,
    TITLE_VERBS,
    bare,
    inflect,
    inflections,
    is_base_verb,
    is_identifier,
    join,
    looks_like_new_verb,
    noun_lemma,
    parts_of_speech,
    prefixed_verb,
    split_compound_verb,
    third_person_of,
    verb_form,
    verb_lemma,
    words,
)

# Words that open an object and nothing else: a noun before one is a verb ("Vendor the X").


@dataclass(frozen=True)
class _Verb:
    """A verb found at the start of a title: its lemma (with any particle) and where it ends."""

    lemma: str
    end: int


# Verbs whose "for" is their own, never a noun's: "account for proxied instances", "wait
# for pending effects" (where "Support for X" is a noun phrase).
_VERBS_FOR = words("account wait allow compensate prepare listen watch search look ask opt")


def _names_something(words: list[str], at: int) -> bool:
    """True when `words[at]` is a name no lexicon knows ("dlv"), which an adjective would
    hardly modify: the word before it is a verb."""
    return at < len(words) and bare(words[at]).isalpha() and not parts_of_speech(bare(words[at]))


def leading_verb(words: list[str], at: int, *, loose: bool = False) -> _Verb | None:
    """The verb that `words[at]` starts, if the word reads as one there.

    `loose` accepts a word the lexicon does not know (after an adverb or a negation only a
    verb can follow: "Only deepcopy X").
    """
    if at >= len(words) or is_identifier(words[at]):
        return None
    word = bare(words[at])
    lowered = word.lower()
    following = bare(words[at + 1]).lower() if at + 1 < len(words) else ""
    if lowered in OPENERS:
        return None
    if compound := split_compound_verb(word):
        end = at + 1 + (following in ("of", "for"))
        return _Verb(" ".join(compound), end)
    if prefixed := prefixed_verb(word):
        adjectival = lowered.split("-")[0] in ADJECTIVE_PREFIXES
        if adjectival and not _takes_object(words, at):
            return None  # "Multi-turn retrieval-augmented GRPO": a compound adjective
        return _Verb(prefixed, at + 1)
    form = verb_form(word)
    pos = parts_of_speech(word)
    if form is None:
        # A word the lexicon lacks is a verb when only a verb fits: after an adverb, with a
        # verb's shape, before an object ("Symlink claude.md to …", "Frob the widgets"), or
        # a noun before an adjective ("Vendor latest X", "Sync vendored stubs").
        if (
            looks_like_new_verb(word)
            or (loose and not pos)
            # "Inline `_check_type` into …": a verb of code the lexicon knows as another word
            or (lowered in TITLE_VERBS and _takes_object(words, at))
            # "inline dlv dependency": a verb of code the lexicon knows only as an adjective
            # opens a title as a verb; "vendor" (a noun too) may open a noun phrase
            or (lowered in TITLE_VERBS and pos == {"ADJ"} and _names_something(words, at + 1))
            or (not pos and _takes_object(words, at))
            or (pos <= {"NOUN"} and _modifier_follows(words, at))
            or (pos == {"NOUN"} and at + 1 < len(words) and bare(words[at + 1]) in ARTICLES)
        ):
            return _Verb(lowered, at + 1)
        return None
    lemma = verb_lemma(word) or lowered
    if form == "VBD" and lowered not in inflections(lemma).get("VBD", ()):
        return None  # a participle opens a noun phrase: "Broken links in the README"
    after = bare(words[at + 2]).lower() if at + 2 < len(words) else ""
    if "NOUN" in pos and form in ("VB", "VBZ"):
        if following in ("for", "of") and not (following == "for" and lowered in _VERBS_FOR):
            return None  # "Support for X", "Fixes for Y": a noun phrase
        aspect = lemma in _ASPECT_VERBS  # "stop relying on X": a verb before its gerund
        if following in ("+", "&") or (
            word.islower() and not aspect and _gerund_phrase(words, at + 1)
        ):
            return None  # "replay + dynamic input_pos", "heap profiling at runtime"
        if _compound_before_plus(words, at) or (
            noun_lemma(word) in PROBLEM_NOUNS and following in PREPOSITIONS
        ):
            return None  # "Smoke test + operator docs", "Bug with hard-coded device"
    if form == "VBG" and following == "for":
        return None  # "Profiling for X"
    end = at + 1
    if form == "VBG" and following == "of":
        return _Verb(lemma, end + 1)  # "Handling of X" handles X
    if following in PARTICLES or (
        following in LOOSE_PARTICLES and after in LOOSE_PARTICLE_FOLLOWERS
    ):
        return _Verb(f"{lemma} {following}", end + 1)
    return _Verb(lemma, end)


def _compound_before_plus(words: list[str], at: int) -> bool:
    """True for a noun compound listed with "+" or "&" ("Smoke test + operator docs"): two
    words that are each a noun or a verb, the first no verb of change ("Fix X & Y" fixes)."""
    if at + 2 >= len(words) or bare(words[at + 2]) not in ("+", "&"):
        return False
    first, second = bare(words[at]).lower(), bare(words[at + 1]).lower()
    return verb_lemma(first) not in CHANGE_VERBS and {"NOUN", "VERB"} <= parts_of_speech(second)


def _modifier_follows(words: list[str], at: int) -> bool:
    """True when the word after `words[at]` can only modify a noun that follows it: an
    adjective and nothing else ("latest"), or a participle the lexicon lacks ("vendored")."""
    if at + 2 >= len(words) or not words[at][:1].isupper():
        return False
    following = bare(words[at + 1])
    if not following.isalpha() or not following.islower():
        return False
    pos = parts_of_speech(following)
    return pos == {"ADJ"} or (not pos and following.endswith("ed"))


def _is_gerund(word: str) -> bool:
    return word.endswith("ing") and verb_form(word) == "VBG"


# Verbs whose object is a gerund: "stop relying on X", "avoid copying Y", "keep using Z".
_ASPECT_VERBS = frozenset({"stop", "start", "keep", "avoid", "resume", "finish", "continue"})


def _gerund_phrase(words: list[str], at: int) -> bool:
    """True when `words[at]` is a gerund with no object ("profiling at runtime"): a noun."""
    if at >= len(words) or not _is_gerund(bare(words[at])):
        return False
    following = bare(words[at + 1]).lower() if at + 1 < len(words) else ""
    return following == "" or following in PREPOSITIONS


def _takes_object(words: list[str], at: int) -> bool:
    """True when the word after `words[at]` opens an object: a determiner or an identifier."""
    if at + 1 >= len(words):
        return False
    following = bare(words[at + 1])
    if following.lower() in DETERMINERS:
        return True
    return bare(words[at]).isalpha() and bool(re.search(r"[`._(/]", following))


def negation_length(words: list[str]) -> int:
    first = words[0].lower().replace("’", "'")
    second = words[1].lower() if len(words) > 1 else ""
    if first in ("don't", "dont", "never"):
        return 1
    if (first, second) in (("do", "not"), ("no", "longer")):
        return 2
    return 0


def is_adverb(word: str) -> bool:
    """True for an adverb the lexicon knows, or an -ly adverb of an adjective it knows
    ("lazily" of "lazy", "eagerly" of "eager")."""
    lowered = bare(word).lower()
    if is_identifier(word) or not lowered.isalpha():
        return False
    if lowered in ADVERBS or (lowered.endswith("ly") and "ADV" in parts_of_speech(lowered)):
        return True
    stem = lowered[:-3] + "y" if lowered.endswith("ily") else lowered[:-2]
    return lowered.endswith("ly") and len(stem) >= 3 and "ADJ" in parts_of_speech(stem)


def gerund(lemma: str) -> str:
    head, _, particle = lemma.partition(" ")
    return " ".join(filter(None, (inflect(head, "VBG"), particle)))


def third_person(verb: str) -> str:
    """Conjugate an imperative verb (possibly phrasal) into the third person singular."""
    head, _, rest = verb.strip().partition(" ")
    return join(third_person_of(head.lower()), rest)


def noun_list(words: list[str]) -> bool:
    """True for a title that is a comma list of noun phrases whose first word could also be
    a verb: "chat template, inv_freq dedup, CI hardening" lists three things, it does not
    chat. At least three items; the first a two-word compound (a noun that is no change
    noun, then a singular noun), the others of two words or more, none opening with a verb.
    """
    items: list[list[str]] = [[]]
    for word in words:
        items[-1].append(word)
        if word.endswith(","):
            items.append([])
    if len(items) < 3 or len(items[0]) != 2 or any(len(item) < 2 for item in items[1:]):
        return False
    first, second = (bare(w) for w in items[0])
    if not first.isalpha() or not second.isalpha() or is_identifier(first):
        return False
    pos = parts_of_speech(first)
    if not {"NOUN", "VERB"} <= pos or noun_lemma(first) in CHANGE_NOUNS:
        return False
    if second.lower() in DETERMINERS or second.lower() in PREPOSITIONS or second in PARTICLES:
        return False
    if not parts_of_speech(second) or noun_lemma(second) != second.lower():
        return False
    return all(
        is_identifier(item[0]) or "VERB" not in parts_of_speech(item[0]) for item in items[1:]
    )


# What follows "Error" in a title that says the project now raises one: "Error on
# top-level options", "Error when X is missing".
_ERROR_WHEN = frozenset({"on", "when", "if", "for", "unless"})


@lru_cache(maxsize=8192)
def split_verb(text: str) -> tuple[str | None, str]:
    """Split a title into (base verb, rest); the verb is None when the title does not start
    with one. Phrasal verbs keep their particle ("back out"); gerunds, third-person and past
    forms give their base verb ("Adding X" → ("add", "X")). A negated title ("Do not X",
    "No longer X") has none: its verb is the negated one, which `clause` reads as "stops Xing".
    """
    words = text.split()
    if len(words) > 2 and bare(words[0]).lower() == "error" and words[1].lower() in _ERROR_WHEN:
        return "raise", join("an error", " ".join(words[1:]))  # "Error on X": raises one
    plain = words and not noun_list(words) and not negation_length(words)
    verb = leading_verb(words, 0) if plain and given_verb(text) else None
    # "resolved build options should be kept": a past participle opening a subject.
    if verb is None or (
        verb_form(words[0]) in ("VBD", "VBN") and own_subject(words, guess_verb=False)
    ):
        return None, text.strip()
    return verb.lemma, " ".join(words[verb.end :])


def _verb_of(word: str) -> tuple[str | None, str | None]:
    """(form, lemma) of a word, hyphenated verbs included ("deep-copies" → VBZ, "deep-copy")."""
    form = verb_form(word)
    if form:
        return form, verb_lemma(word)
    head, dash, tail = bare(word).rpartition("-")
    if dash and head and (form := verb_form(tail)):
        return form, f"{head.lower()}-{verb_lemma(tail)}"
    return None, None


def _and_for_comma(out: list[str], at: int) -> None:
    """ "implements X, limits Y" → "implements X and limits Y": the title's comma between
    two verb phrases, its only one, is an "and" in prose (a list keeps its commas)."""
    if out[at - 1].endswith(",") and sum(w.endswith(",") for w in out) == 1:
        out[at - 1] = out[at - 1][:-1]
        out[at] = f"and {out[at]}"


def coordinated(words: list[str]) -> str:
    """The rest of an imperative title, with verbs joined to the first conjugated too:
    "X, add logging" → "X, adds logging"; "X and prevent Y" → "X and prevents Y"."""
    out = list(words)
    for at in range(1, len(out) - 1):
        joiner = bare(out[at - 1]).lower()
        after_comma = out[at - 1].endswith((",", ";"))
        if (
            after_comma
            and at < len(out) - 2
            and is_adverb(out[at])
            and verb_lemma(bare(out[at + 1])) in CHANGE_VERBS
            and bare(out[at + 1]).islower()
        ):
            # "X, fully remove Y": the verb after the comma's adverb
            adverbed = bare(out[at + 1])
            lemma = verb_lemma(adverbed) or adverbed
            out[at + 1] = out[at + 1].replace(adverbed, third_person(lemma), 1)
            _and_for_comma(out, at)
            continue
        if not (after_comma or joiner in ("and", "then")) or is_identifier(out[at]):
            continue
        following = bare(out[at + 1]).lower()
        word = bare(out[at])
        change = word.islower() and verb_lemma(word) in CHANGE_VERBS and verb_form(word) != "VBG"
        listed = out[at].endswith(",") or following in CONJUNCTIONS  # "model, export, and X"
        if change and not listed and (after_comma or following not in PREPOSITIONS):
            # A verb of change after "and" or a comma is one whatever its form: "and fix X",
            # "and fixed X", ", replace with Y" say "and fixes", "and fixes", ", replaces with".
            out[at] = out[at].replace(word, third_person(verb_lemma(word) or word), 1)
            if after_comma:
                _and_for_comma(out, at)
            continue
        if joiner == "and" and word.islower() and following not in PREPOSITIONS | CONJUNCTIONS:
            # A phrasal verb after "and": "and lock down X", "and cleanup the Y" say "and
            # locks down X", "and cleans up the Y"; its particle, or the object that follows
            # it, tells it from a noun ("and cleanup logic").
            compound = split_compound_verb(word)
            if compound is not None and (following in DETERMINERS or is_identifier(out[at + 1])):
                out[at] = out[at].replace(word, f"{third_person(compound[0])} {compound[1]}", 1)
                continue
            if following in PARTICLES and is_base_verb(word) and len(out) > at + 2:
                out[at] = out[at].replace(word, third_person(word), 1)
                continue
        if word in _SIGNAL_VERBS and following in ("on", "about", "when", "if", "for"):
            # "detect and warn on X": a verb no noun reads as, with its preposition
            out[at] = out[at].replace(word, third_person(word), 1)
            continue
        if following in PREPOSITIONS or following in CONJUNCTIONS:
            continue
        pos = parts_of_speech(word)
        if verb_form(word) != "VB" or not word[1:].islower() or "ADJ" in pos:
            continue  # "fast and slow gates": an adjective
        takes_object = _takes_object(out, at) or is_identifier(out[at + 1])
        if "NOUN" in pos and not after_comma and not takes_object:
            continue  # "Fix parsing and display widths": display is a noun here
        noun_after = _gerund_phrase(out, at + 1) or verb_form(following) == "VBZ"
        if noun_after and not (after_comma and pos == {"VERB"}):
            continue  # "and permute handling", "and permute transforms": a noun phrase
        if after_comma and len(_conjunct_before(out, at)) < 2:
            continue  # "shuffle, unshuffle, cat ops": a list of nouns
        if after_comma and _listed_nouns(out, at):
            continue  # "error prefix, primary-only VNIC, rate cap": no "rates cap"
        verb = leading_verb(out, at)
        if verb is not None:
            out[at] = out[at].replace(word, third_person(verb.lemma.split()[0]), 1)
            if after_comma:
                _and_for_comma(out, at)
    return _and_before_last(" ".join(out))


def _and_before_last(text: str) -> str:
    """A list of three or more things or actions joined by commas alone gets its "and":
    "fixes the error prefix, primary-only VNIC, rates cap" → "…, primary-only VNIC and rates
    cap"; "fixes X, adds Y, drops Z" → "fixes X, adds Y and drops Z"."""
    items = text.split(", ")
    if len(items) < 3 or any(c in text for c in "()[]`;") or re.search(r"\b(and|or)\b", text):
        return text
    if any(item.split(" ", 1)[0].lower() in PREPOSITIONS for item in items[1:]):
        return text  # "renames greatest, least, to max_of, min_of": two lists, not one
    return f"{', '.join(items[:-1])} and {items[-1]}"


# Verbs that take a preposition, not an object: "warn on", "error on", "fail when".
_SIGNAL_VERBS = frozenset({"warn", "error", "fail", "retry", "wait", "bail", "abort", "panic"})


def _listed_nouns(words: list[str], at: int) -> bool:
    """True when the conjunct before `words[at]` itself follows a comma and opens with no
    verb: the title lists things, and the word after the comma is one more."""
    start = at - len(_conjunct_before(words, at))
    if start == 0 or not words[start - 1].endswith(","):
        return False
    first = bare(words[start])
    return leading_verb(words, start) is None and verb_lemma(first) not in CHANGE_VERBS


def _conjunct_before(words: list[str], at: int) -> list[str]:
    """The words between the separator before `words[at]` and the one before that."""
    start = at - 1
    while start > 0 and not words[start - 1].endswith((",", ";")):
        start -= 1
    return words[start:at]


# How a title that says what something does not do marks it as a bug, not a new rule.
_AS_IT_SHOULD = re.compile(
    r"\b(correctly|properly|as expected|as intended|reliably|right|anymore|any more)\W*$", re.I
)


def own_subject(words: list[str], *, guess_verb: bool = True) -> str | None:
    """ "Module implements X" → "makes Module implement X"; None when no subject+verb opens it.

    A modal, "is" or a negation says for sure that a subject and its verb open the title
    ("errors should be kept" → "makes errors be kept"). A bare third-person form only
    suggests it, and `guess_verb` False declines the guess: of a fix, "lazy props reactivity"
    names the bug, not "lazy" that "props" something."""
    for at in range(1, min(5, len(words) - 1)):
        word = bare(words[at]).lower()
        if word in PREPOSITIONS or word in CONJUNCTIONS or words[at - 1][-1] in ",;:":
            return None
        subject = " ".join(words[:at])
        rest = words[at + 1 :]
        while rest and bare(rest[0]).lower() in ("now", "also"):
            rest = rest[1:]
        if not rest:
            return None
        if word in ("doesn't", "cannot") or (
            word in ("does", "no") and bare(rest[0]) in ("not", "longer")
        ):
            rest = rest[1:] if word in ("does", "no") else rest
            verb = leading_verb(rest, 0, loose=True)
            if verb is None:
                return None
            tail = " ".join(rest[verb.end :])
            if _AS_IT_SHOULD.search(tail):
                # "X does not handle Y correctly" states a bug: the change fixes it
                return join("fixes", subject, "not", gerund(verb.lemma), tail)
            return join("stops", subject, "from", gerund(verb.lemma), tail)
        # "resolved build options should be kept as a getter" → "keeps resolved …"
        passive = word in MODALS and len(rest) > 1 and bare(rest[0]).lower() == "be"
        if passive and verb_form(rest[1]) in ("VBN", "VBD") and (lemma := verb_lemma(rest[1])):
            return join(third_person(lemma), subject, " ".join(rest[2:]))
        if word in MODALS and is_base_verb(rest[0]):
            return join("makes", subject, " ".join(rest))
        if word in ("is", "are"):
            return join("makes", subject, " ".join(rest))
        form, lemma = _verb_of(words[at])
        after = bare(rest[0]).lower()
        if after in MODALS or after in CONJUNCTIONS or after in PREPOSITIONS:
            continue  # "Cadence tests should retry", "Llama-1B shapes + 4k sweep"
        # A code span before a bare verb is a subject too, written as its plural would be:
        # "`import.meta.glob` support `caseSensitive` option".
        named = at == 1 and len(words[0]) > 2 and words[0][0] == words[0][-1] == "`"
        if guess_verb and words[at].islower() and (form == "VBZ" or (form == "VB" and named)):
            return join("makes", subject, lemma or word, " ".join(rest))
    return None
