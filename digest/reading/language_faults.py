"""A fix titled by the fault it fixes, stated as a sentence of its own.

"fix: HMR fails when config changes" and "fix: Sort flag on GroupsType only applies to
first element" say what went wrong, with a subject and a third-person verb: the clause is
"fixes HMR failing when config changes", "fixes sort flag on GroupsType only applying to
first element"; not "brings HMR fails …" or "sorts flag …". An imperative whose object is a
clause ("Ensure config applies to all environments") is no such statement.
"""

from __future__ import annotations

from digest.reading.language_nouns import common_opener
from digest.reading.language_shapes import gerund, is_adverb, negation_length
from digest.reading.language_words import (
    CONJUNCTIONS,
    MODALS,
    SUBORDINATORS,
    bare,
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
_STOPS = CONJUNCTIONS | MODALS | SUBORDINATORS | words("where that which who")
_SUBJECT_WORDS = 7  # the verb of the statement comes within this many words


def fault_statement(title: list[str]) -> str | None:
    """ "fixes <subject> <verb>ing <rest>" for a fix's title that states its fault, or None."""
    if len(title) < 3:
        return None
    first = bare(title[0]).lower()
    if first in _CLAUSE_VERBS or is_adverb(title[0]) or negation_length(title):
        return None  # an imperative ("Ensure …", "Always …", "Do not …")
    # "Sort flag …" may be an imperative: only "only applies" (an adverb before a verb that is
    # no noun) says for sure that a subject came first.
    imperative = "VERB" in parts_of_speech(first)
    for at in range(1, min(_SUBJECT_WORDS + 1, len(title))):
        word = title[at]
        if bare(word).lower() in _STOPS or title[at - 1][-1:] in (",", ";", ":"):
            return None
        if not word.islower() or verb_form(word) != "VBZ" or verb_lemma(word) in ("be", "have"):
            continue  # "X is wrong", "X has no Y": `own_subject` reads those
        adverb = at >= 2 and is_adverb(title[at - 1])
        if not adverb and (imperative or "NOUN" in parts_of_speech(word)):
            continue  # "process batches …", "config changes": a plural noun, likely
        subject = title[: at - 1] if adverb else title[:at]
        if parts_of_speech(subject[-1]) == {"ADJ"}:
            return None  # "lazy props reactivity": no noun to be a subject, a compound noun
        if common_opener(subject[0]):
            subject = [subject[0][0].lower() + subject[0][1:], *subject[1:]]
        return join(
            "fixes", " ".join(subject), title[at - 1] if adverb else "", gerund(verb_lemma(word)),
            " ".join(title[at + 1 :]),
        )  # fmt: skip
    return None
