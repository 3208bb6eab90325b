"""A fix titled by the fault it fixes, stated as a sentence of its own.

"fix: HMR fails when config changes" and "fix: Sort flag on GroupsType only applies to
first element" say what went wrong, with a subject and a third-person verb: the clause is
"fixes HMR failing when config changes", "fixes sort flag on GroupsType only applying to
first element"; not "brings HMR fails …" or "sorts flag …". An imperative whose object is a
clause ("Ensure config applies to all environments") is no such statement.
"""

from __future__ import annotations

from digest.english.nouns import common_opener
from digest.english.shapes import gerund, is_adverb, negation_length
from digest.english.words import (
    CONJUNCTIONS,
    MODALS,
    NEGATED_DO,
    PREPOSITIONS,
    RELATIVES,
    SUBORDINATORS,
    bare,
    is_identifier,
    join,
    parts_of_speech,
    verb_form,
    verb_lemma,
    words,
)

# Verbs whose object is a clause: "Ensure X applies", "Check that Y fails" are imperatives.
# Verbs of fixing take the fault as their object: "Fix integer overflow in bounds checks".
_CLAUSE_VERBS = words(
    "ensure check verify make assert test confirm require warn detect handle catch prevent "
    "avoid stop let keep allow expect fix resolve correct repair address patch close solve"
)
# Where a subject ends without a verb: a clause of its own begins.
_STOPS = CONJUNCTIONS | MODALS | SUBORDINATORS | RELATIVES
_SUBJECT_WORDS = 7  # the verb of the statement comes within this many words


def fault_statement(title: list[str], *, negated_only: bool = False) -> str | None:
    """ "fixes <subject> <verb>ing <rest>" for a fix's title that states its fault, or None.
    `negated_only` takes only a fault stated as a negation ("X didn't raise"), which no
    plural noun can be mistaken for."""
    if len(title) < 3:
        return None
    first = bare(title[0]).lower()
    if first in _CLAUSE_VERBS or is_adverb(title[0]) or negation_length(title):
        return None  # an imperative ("Ensure …", "Always …", "Do not …")
    lost = next((at for at, w in enumerate(title[1:5], 1) if w in _LOST), None)
    # (before a noun it is an adjective: "Drop ignored files")
    after = bare(title[lost + 1]).lower() if lost is not None and lost + 1 < len(title) else ""
    if (
        lost is not None
        and (not after or after in PREPOSITIONS | SUBORDINATORS)
        and _subject_before(title, lost)
    ):
        # "Filter at scan dropped in CSPE pushdown": what the code lost was the fault (a
        # participle of losing, which no imperative's object reads as)
        faulty = " ".join(_lowered_opener(title[:lost]))
        rest = " ".join(title[lost + 1 :])
        if title[lost] == "missing":
            # "`field_name` missing with `validate_json()`": a missing thing, before it
            head = title[0]
            if head.isalpha() and head[1:].islower():
                faulty = " ".join([head.lower(), *title[1:lost]])  # no longer the opener
            plural = faulty.endswith("s") and "`" not in faulty
            return join("fixes", "missing" if plural else "a missing", faulty, rest)
        return join("fixes", faulty, "being", title[lost], rest)
    seemed = next((at for at, w in enumerate(title[1:8], 1) if w in _SEEMED), None)
    if seemed is not None:
        # "`a` and `b` looked different from other logs": how they looked was the fault (a
        # past linking verb, which no plural noun can be mistaken for either)
        faulty = " ".join(_lowered_opener(title[:seemed]))
        lemma = verb_lemma(title[seemed]) or title[seemed]
        return join("fixes", faulty, gerund(lemma), " ".join(title[seemed + 1 :]))
    # "Sort flag …" may be an imperative: only "only applies" (an adverb before a verb that is
    # no noun) says for sure that a subject came first.
    imperative = "VERB" in parts_of_speech(first)
    for at in range(1, min(_SUBJECT_WORDS + 1, len(title))):
        word = title[at]
        if bare(word).lower() in _STOPS or title[at - 1][-1:] in (",", ";", ":"):
            return None
        if negated := _negated_verb(title, at):
            verb_at, lemma = negated  # "X didn't raise on Y" → "fixes X not raising on Y"
            subject = _lowered_opener(title[:at])
            return join(
                "fixes", " ".join(subject), "not", gerund(lemma), " ".join(title[verb_at + 1 :])
            )
        following = title[at + 1] if at + 1 < len(title) else ""
        form = verb_form(bare(following))
        # "the cache is invalidated on reload" states what the fix makes true: only a past
        # passive ("were lowered") states the fault.
        progressive = word in ("was", "were", "is", "are") and form == "VBG"
        if progressive or (word in ("was", "were") and form in ("VBN", "VBD")):
            # "X was raising on Y", "X were lowered wrongly": a progressive or a passive, no
            # plural noun → "fixes X raising on Y", "fixes X being lowered wrongly"
            being = "" if form == "VBG" else "being"  # after "were", "lowered" is a participle
            faulty = " ".join(_lowered_opener(title[:at]))
            return join("fixes", faulty, being, " ".join(title[at + 1 :]))
        if negated_only:
            continue
        if not word.islower() or verb_form(word) != "VBZ" or verb_lemma(word) in ("be", "have"):
            continue  # "X is wrong", "X has no Y": `own_subject` reads those
        adverb = at >= 2 and is_adverb(title[at - 1])
        # "astro() marks …": a call or other code is no modifier of a plural noun
        named = at == 1 and (is_identifier(title[0]) or title[0].endswith(("()", "`")))
        if not (adverb or named) and (imperative or "NOUN" in parts_of_speech(word)):
            continue  # "process batches …", "config changes": a plural noun, likely
        subject = title[: at - 1] if adverb else title[:at]
        if parts_of_speech(subject[-1]) == {"ADJ"}:
            return None  # "lazy props reactivity": no noun to be a subject, a compound noun
        subject = _lowered_opener(subject)
        return join(
            "fixes", " ".join(subject), title[at - 1] if adverb else "", gerund(verb_lemma(word) or word),
            " ".join(title[at + 1 :]),
        )  # fmt: skip
    return None


# Linking verbs in the past: a title that says how something looked or behaved.
_SEEMED = frozenset({"looked", "seemed", "appeared", "sounded", "felt"})
# Participles of what code loses or mangles: "filter at scan dropped in …", and what it
# lacks: "`field_name` missing with …".
_LOST = frozenset(
    {"dropped", "ignored", "lost", "skipped", "discarded", "swallowed", "truncated", "omitted"}
    | {"missing"}  # (an adjective, told before its noun: "a missing `field_name`")
)


def _subject_before(title: list[str], at: int) -> bool:
    """True when the words before `title[at]` read as a noun phrase: no clause stops inside
    it, and no comma or code call ends one of its words."""
    return all(bare(w).lower() not in _STOPS and w[-1:] not in (",", ";", ":") for w in title[:at])


def _negated_verb(title: list[str], at: int) -> tuple[int, str] | None:
    """(where the verb is, its lemma) when `title[at]` negates the base verb after it: "didn't
    raise", "does not apply"."""
    word = bare(title[at]).lower()
    if word in ("did", "does", "do") and at + 1 < len(title) and bare(title[at + 1]) == "not":
        at += 1
    elif word not in NEGATED_DO:
        return None
    if at + 1 >= len(title) or verb_form(title[at + 1]) != "VB":
        return None
    lemma = verb_lemma(title[at + 1])
    return (at + 1, lemma) if lemma else None


def _lowered_opener(subject: list[str]) -> list[str]:
    """The subject with its first word lower-cased when that is only a sentence's capital."""
    if common_opener(subject[0]):
        return [subject[0][0].lower() + subject[0][1:], *subject[1:]]
    return subject
