"""The article a title leaves out, put back where prose needs one.

Titles are written in headline style: "Add topk fallback kernel via MPSGraph", "Fix missing
`max_length` check", "Remove Cirrus CI FreeBSD job". A sentence needs "adds a topk fallback
kernel", "fixes a missing `max_length` check", "removes the Cirrus CI FreeBSD job".
`with_article` puts "a" or "an" before the object of a verb that makes something new (add,
introduce, implement, create), and before a fault that a change fixes or prevents ("a
missing check", "a segfault", "a deadlock"); it puts "the" before the object of a verb that
acts on something that exists already (remove, rename, update, expose), and before what a
fix repairs that is no fault ("fixes the einsum docstring"). It does so only when it is
sure: the object's
head noun (its last word before a preposition, a conjunction, a participle or the end) must
be a plain singular noun that has a plural, not a name, an acronym, code, a gerund or a mass
noun ("support", "documentation", most nouns in -tion), and nothing may come before the
object that already determines it ("the", "two", "`foo`'s"). "a" or "an" goes by sound as
far as spelling tells it: "an SDK", "a RISC-V", "a unit", "an hour".
"""

from __future__ import annotations

import re

from digest.english import lexicon
from digest.english.nouns import (
    COUNT_ION_NOUNS,
    DEFINITE_HEADS,
    FAULT_ADJECTIVES,
    MASS_NOUNS,
    PROBLEM_NOUNS,
)
from digest.english.words import (
    ADDING_VERBS,
    ADVERBS,
    AUXILIARIES,
    CHANGE_VERBS,
    CONJUNCTIONS,
    DETERMINERS,
    IDENTIFIER_CHARS,
    PARTICLES,
    PREPOSITIONS,
    RELATIVES,
    SUBORDINATORS,
    bare,
    parts_of_speech,
    verb_form,
    verb_lemma,
    words,
)

MAKING_VERBS = words("adds introduces implements creates")
# Verbs that act on a thing the project has already: "removes the unused helper".
EXISTING_VERBS = words(
    "removes drops deletes renames moves exposes deprecates disables enables re-enables "
    "restores replaces simplifies refactors reworks rewrites splits extends updates "
    "documents hides improves clarifies corrects adjusts tweaks unifies relaxes tightens "
    "reorganizes restructures stabilizes settles truncates changes resets reorders shortens "
    "trims preserves respects honors honours reuses restricts limits caps uses renders shows"
)
# Verbs that keep a fault from happening: "prevents a deadlock", "avoids a crash".
PREVENTING_VERBS = words("prevents avoids resolves addresses")
# Words before a problem that take "a": "fixes a missing check", "fixes a rare hang".
FAULTS = (FAULT_ADJECTIVES - words("outdated dangling")) | words(
    "redundant unnecessary potential possible rare subtle occasional intermittent "
    "confusing unclear misplaced inaccurate erroneous faulty false duplicated"
)
# What a change makes the code signal: "raises an error when X", "emits a warning on Y".
_SIGNALLING_VERBS = words("raises emits throws logs shows prints returns")
_SIGNALS = words("error warning exception message")
# Heads that name a fault: the problems of `nouns`, and a program's own ("a panic").
_FAULT_HEADS = PROBLEM_NOUNS | words("panic")
# Problems named as an amount, never "a flakiness".
_UNCOUNTED_PROBLEMS = words("flakiness breakage")
_NOT_HEAD = PREPOSITIONS | CONJUNCTIONS | RELATIVES | SUBORDINATORS | ADVERBS | words("using due")
# Words of code the lexicon does not know, singular nouns with a plural all the same.
_CODE_NOUNS = words(
    "changelog workaround docstring linter lockfile workflow runner decorator codepath subcommand"
    " endpoint plugin callback timestamp dropdown tooltip allocator tokenizer serializer dataset"
    " changeset backend frontend hook wrapper iterator getter setter parser"
)
# Nouns in -ing that are things, not gerunds: "a docstring", "the format string".
_ING_NOUNS = words("string docstring substring thing ring")
_NUMBER = re.compile(r"^\d|^(one|two|three|four|five|six|seven|eight|nine|ten)$", re.I)
# "a" before these vowel spellings, which sound like "you", "one" or "yoo-".
_VOWEL_BUT_CONSONANT = re.compile(r"^(one\b|once|uni|use|usa|usu|uti|ura|ure|uro|us-|eu|ewe)", re.I)
# "an" before these consonant spellings, whose "h" is silent.
_SILENT_H = re.compile(r"^(hour|honest|honou?r|heir)", re.I)
# Letter names that begin with a vowel sound, for acronyms read letter by letter ("an SDK").
_VOWEL_LETTERS = frozenset("AEFHILMNORSX")


def with_article(predicate: str) -> str:
    """`predicate` ("adds topk fallback kernel via MPSGraph") with "a"/"an" before its
    object where the module docstring says one belongs; otherwise unchanged."""
    second = _SECOND_PREDICATE.search(predicate)
    if second and verb_lemma(second["verb"]) in CHANGE_VERBS | ADDING_VERBS:
        # "uses Oxlint for templates and adds ESLint option": each verb's own object
        first, then = predicate[: second.start()], predicate[second.start("verb") :]
        return f"{with_article(first)} and {with_article(then)}"
    verb, _, rest = predicate.partition(" ")
    object_words = rest.split(" ") if rest else []
    plain = verb.islower() and verb not in _ARTICLED_VERBS | _NO_PLAIN_OBJECT
    if object_words and plain and verb_form(verb) == "VBZ":
        return _with_definite(verb, object_words) or predicate
    head = _head(verb, object_words) if object_words else None
    if head is None:
        return predicate
    on_what_exists = verb in EXISTING_VERBS or verb == "fixes"
    if verb in _SIGNALLING_VERBS and head in _SIGNALS:
        on_what_exists = False  # "shows a warning", not "shows the warning"
    fault = _names_fault(object_words) or head in _FAULT_HEADS
    if head in DEFINITE_HEADS or (on_what_exists and not fault):
        article = "the"
    else:
        article = indefinite_article(object_words[0])
    return f"{verb} {article} {rest}"


# Verbs whose object `with_article` reads by the verb's sense, and verbs whose complement
# is no plain object: "makes X support Y", "allows X to", "keeps X reactive", "has X".
_ARTICLED_VERBS = MAKING_VERBS | EXISTING_VERBS | PREVENTING_VERBS | _SIGNALLING_VERBS | {"fixes"}
_NO_PLAIN_OBJECT = words(
    "makes lets helps allows causes forces becomes seems stays remains gets has is does goes "
    "runs works tells asks expects wants needs lands backs relands bumps pins unpins upgrades "
    "downgrades keeps leaves"
)
# Verbs a gerund follows as their object: "stops inferring CSV schema".
_CATENATIVE = words("stops starts continues resumes begins")
# Words that end the object's noun phrase where a clause goes on: "ensures scheduled batch
# is flushed", "promotes X up the list".
_CLAUSE_WORDS = PARTICLES | AUXILIARIES | words("does do")
# Nouns a title uses as amounts: "surfaces console output", "escapes user input".
_AMOUNTS = words("input output")
_PRONOUNS = words("it them us itself themselves everything something nothing")


# A second verb phrase of a title: "… and adds ESLint option".
_SECOND_PREDICATE = re.compile(r"(?<=\w) and (?P<verb>[a-z]+s)(?= \S)")


def _with_definite(verb: str, object_words: list[str]) -> str | None:
    """`verb` and its object with "the" before a bare singular object ("bundles ViteTask
    client" → "bundles the ViteTask client"), or "a" before a fault; None when the object
    needs none or its head is unsure. A title drops articles; a sentence keeps them."""
    lead = [verb]
    first = bare(object_words[0]).lower()
    if first.endswith("ing") and first not in _ING_NOUNS and first not in FAULTS:
        if verb not in _CATENATIVE or len(object_words) < 2:
            return None  # "handles mapping X": the gerund's own object, unsure
        lead, object_words = [verb, object_words[0]], object_words[1:]
        first = bare(object_words[0]).lower()
    if first in _PRONOUNS:
        return None
    scope: list[str] = []
    for word in object_words:
        if bare(word).lower() in _CLAUSE_WORDS:
            break
        scope.append(word)
    head = _head("updates", scope) if scope else None
    if head is None or head in _AMOUNTS:
        return None
    fault = _names_fault(scope) or head in _FAULT_HEADS
    article = indefinite_article(object_words[0]) if fault else "the"
    if head in DEFINITE_HEADS:
        article = "the"
    return " ".join([*lead, article, *object_words])


def _names_fault(object_words: list[str]) -> bool:
    """True when the object is a fault: it opens with a word for one ("missing") or its
    head is one ("segfault", "sign error")."""
    first = bare(object_words[0]).lower()
    return first in FAULTS or bare(_before_joiner(object_words)).lower() in _FAULT_HEADS


def _head(verb: str, object_words: list[str]) -> str | None:
    """The object's head noun when the object takes an article, else None."""
    first = bare(object_words[0])
    if verb in PREVENTING_VERBS:
        if not _names_fault(object_words):
            return None
    elif verb in _SIGNALLING_VERBS and verb not in EXISTING_VERBS:
        if bare(_before_joiner(object_words)).lower() not in _SIGNALS:
            return None  # "raises an error when …", "emits a warning on …"
    elif verb not in MAKING_VERBS | EXISTING_VERBS and verb != "fixes":
        return None
    if first.lower() in DETERMINERS | PARTICLES or _NUMBER.match(first) or "'" in object_words[0]:
        return None
    lowered = first.lower()
    gerund = lowered.endswith("ing") and lowered not in _ING_NOUNS | FAULTS | _CLAUSE_PARTICIPLES
    fault = bare(_before_joiner(object_words)).lower() in _FAULT_HEADS  # "a rounding error"
    if gerund and len(object_words) > 1 and first.islower() and verb == "fixes" and not fault:
        # "fixes saving adapter when …": what is saved, not "the saving adapter"; what is
        # made or removed has -ing modifiers ("adds a caching layer")
        return None
    phrase: list[str] = []
    for word in object_words:
        lowered = bare(word).lower()
        if lowered in _NOT_HEAD or word.startswith(("(", "[")):
            break
        # "adapter silently swallowing errors", "regression causing X": what follows says
        # what the thing did; the head came before it
        clause = lowered.endswith("ly") or lowered in _CLAUSE_PARTICIPLES
        if phrase and clause and _is_singular_count_noun(bare(phrase[-1]).lower()):
            break
        if phrase and lowered in DETERMINERS:
            return None  # "setting the dtype of X": a gerund's own object, determined already
        phrase.append(word)
        if word.endswith((",", ";", ":")):
            break
    # A modifier in -ing stands right before the head ("a subsequence matching
    # implementation"); elsewhere it is a participle ("modules requiring x argument") and
    # the head is unsure.
    for at, word in enumerate(phrase[1:-1], 1):
        lowered = bare(word).lower()
        participle = at != len(phrase) - 2 or bare(phrase[at - 1]).lower().endswith("s")
        if lowered.endswith("ing") and lowered not in _ING_NOUNS and participle:
            return None
    if len(phrase) > 1 and bare(phrase[-1]).rstrip(",;:").isdigit():
        return None  # "case 2", "step 3": a numbered name, never "the case 2"
    if len(phrase) > 1 and IDENTIFIER_CHARS.search(phrase[-1]) and not phrase[-1].endswith(","):
        phrase.pop()  # "the unused parameter `use_ascii`": a noun and the code it names
    if not phrase or IDENTIFIER_CHARS.search(phrase[-1].rstrip(",;:")):
        return None
    head = bare(phrase[-1])
    if _is_singular_count_noun(head):
        return head
    # A fault is one of a kind whatever its noun: "a missing init", "an unnecessary
    # rechunk", though the lexicon knows neither word as a noun
    unknown = head.isalpha() and head.islower() and not parts_of_speech(head)
    named_fault = len(phrase) > 1 and bare(phrase[0]).lower() in FAULTS
    return head if named_fault and unknown and not head.endswith("s") else None


# Participles that open a clause after a noun, saying what it did ("a regression causing
# X"), not modifiers before one ("a subsequence matching implementation").
_CLAUSE_PARTICIPLES = words(
    "causing swallowing breaking returning producing triggering dropping ignoring losing "
    "leaking skipping hiding throwing raising crashing failing leading resulting based"
)


def _before_joiner(object_words: list[str]) -> str:
    """The last word before the first preposition or conjunction: the head noun's place."""
    head = object_words[0]
    for word in object_words:
        if bare(word).lower() in _NOT_HEAD:
            break
        head = word
    return head


def _is_singular_count_noun(word: str) -> bool:
    """True for a lowercase word the lexicon knows as a singular noun with a plural, or one
    that names a fault ("segfault", "typo")."""
    if word in (_FAULT_HEADS - _UNCOUNTED_PROBLEMS) | _CODE_NOUNS:
        return True
    if word in _ING_NOUNS:
        return True
    if not word.isalpha() or not word.islower() or word.endswith("ing") or word in MASS_NOUNS:
        return False
    if word.endswith(("tion", "sion")) and word not in COUNT_ION_NOUNS:
        return False
    nouns = lexicon.all_lemmas(word).get("NOUN")
    if not nouns or word not in nouns:
        return False
    plurals = lexicon.inflection(word, "NNS")
    return bool(plurals) and plurals[0] != word  # ("checks", "check"): a count noun first


def indefinite_article(word: str) -> str:
    """ "a" or "an" for the sound `word` begins with: a code span by its first letter, an
    acronym by its first letter's name, any other word by its spelling."""
    text = bare(word).strip("`_-")
    if not text:
        return "a"
    if len(text) > 1 and text[:2].isupper() and text[:2].isalpha():
        # Read letter by letter ("an SDK", "an MLX") unless it reads as a word ("a RISC-V").
        spoken = len(text) > 2 and text[1] in "AEIOU" and text[2].isupper()
        if not spoken:
            return "an" if text[0] in _VOWEL_LETTERS else "a"
    segment = re.split(r"[._/:-]", text, maxsplit=1)[0]
    if 1 < len(segment) <= 4 and segment.isalpha() and not re.search(r"[aeiouy]", segment, re.I):
        # No vowel to say it by: read letter by letter ("an nn.Parameter", "an np.array")
        return "an" if segment[0].upper() in _VOWEL_LETTERS else "a"
    if _SILENT_H.match(text) or re.match(r"^x(?![aeiou])", text, re.I):
        return "an"  # "an hour"; "an xlarge", "an x86": "x" before a consonant is "ex"
    if _VOWEL_BUT_CONSONANT.match(text):
        return "a"
    return "an" if text[0].lower() in "aeiou" else "a"


_ARTICLE_BEFORE = re.compile(r"(?<![\w`'])(a|an) ([`]?[A-Za-z][\w.`-]*)")


def agree_articles(text: str) -> str:
    """`text` with "a" and "an" agreeing with the sound of the word after them, as a title
    pasted into prose may not ("of an numpy.ndarray" → "of a numpy.ndarray"). "a" becomes
    "an" only before a noun or adjective: "options a and b" names an option."""

    def agree(match: re.Match[str]) -> str:
        article, word = match[1], match[2]
        wanted = indefinite_article(word)
        if wanted == article:
            return match[0]
        if article == "a" and not parts_of_speech(bare(word).lower()) & {"NOUN", "ADJ"}:
            return match[0]
        return f"{wanted} {word}"

    return _ARTICLE_BEFORE.sub(agree, text)
