"""Commit titles into news English (rule N6): "Ignore X" → "ignores X", for any verb.

`clause(subject)` turns a normalized title (tags and prefixes already off, see
`digest.reading.titles`) into the clause of a sentence "<Project> <clause>". Words are looked up in
lemminflect's lexicon (`digest.english.words`), so any English verb is conjugated, and the
shapes titles come in each have a reading:

    imperative           "Factor out X"                → "factors out X"
    third person, past   "Adds X", "Fixed X"           → "adds X", "fixes X"
    gerund               "Adding X", "Handling of X"   → "adds X", "handles X"
    adverb first         "Globally serialize X"        → "globally serializes X"
    negated              "Don't allocate X"            → "stops allocating X"
    own subject          "Module implements X"         → "makes Module implement X"
    nominalization       "Addition of X"               → "adds X"
    noun phrase          "Python 3.15 wheels for macOS" → "adds Python 3.15 wheels for macOS"
    a change or problem  "Perf improvement", "Integer overflow in Y" → "brings …", "fixes …"

Only the verb is lowercased; names, identifiers and code spans keep their case.
"""

from __future__ import annotations

import re
from functools import lru_cache

from digest.english.clean import given_verb
from digest.english.faults import fault_statement
from digest.english.nouns import GENERIC_HEADS, PROBLEM_NOUNS, common_opener, noun_phrase
from digest.english.numbers import join_words
from digest.english.shapes import (
    coordinated,
    gerund,
    is_adverb,
    leading_verb,
    negation_length,
    noun_list,
    own_subject,
    split_verb,
    third_person,
)
from digest.english.words import (
    AUXILIARIES,
    CHANGE_VERBS,
    CONJUNCTIONS,
    PARTICLES,
    PHRASE_JOINERS,
    PREPOSITIONS,
    RELATIVES,
    SUBORDINATORS,
    TITLE_VERBS,
    bare,
    derived_verb,
    is_base_verb,
    is_identifier,
    join,
    noun_lemma,
    parts_of_speech,
    third_person_of,
    verb_form,
    verb_lemma,
)

# A fix titled by the error it makes the code raise: "error on X", "error at compile time
# on X" ("error when X" may as well name the bug, and is left to the rules below).
_ERROR_ON = re.compile(
    r"^error\s+((at\s+(compile|build)\s+time|at\s+runtime|early)\s+)?(?=(on|for|if)\s)", re.I
)


# ", replaced with new `Y`", ", superseded by `Y`": what replaces what the title names
_REPLACED_WITH = re.compile(
    r",?\s+(?:replaced?|superseded?)\s+(?:with|by)\s+(?:the\s+)?(new\s+)?", re.I
)


@lru_cache(maxsize=8192)
def clause(subject: str, *, verb: str | None = None, kind: str | None = None) -> str:
    """The clause for "<Project> <clause>" from a normalized title, starting with a verb.

    "Ignore malformed PEP 723 scripts" → "ignores malformed PEP 723 scripts"; "Support for X"
    → "adds support for X". The verb is lowercase; every other word keeps its case. When the
    title's verb is already known (`split_verb` gave `verb`, `subject` is what follows it),
    it is conjugated and only the rest is read. `kind` is the title's kind hint
    (`TitleParts.kind`): a noun-phrase title of a fix is fixed ("FIX BEFT example dataset"
    → "fixes BEFT example dataset"), not added.
    """
    text = re.sub(r"\s+", " ", subject).strip().rstrip(".").strip()
    # "Rename `A` -> `B`", "Bump X 1.2 → 1.3": an arrow says "to"
    text = re.sub(r"\s(?:-+>|→|=>)\s", " to ", text)
    # "Deprecate X, replaced with new `Y`": a participle with no subject once conjugated
    text = _REPLACED_WITH.sub(lambda m: " in favour of " + ("a new " if m[1] else ""), text)
    if "; " in text:
        return _listed(text, verb, kind)
    fixing = verb == "fix" or (kind == "fix" and not verb)
    if fixing and (broken := _NOT_WORKING.match(text)):
        # "Fix pager not working on Windows": the fix makes the pager work there
        return join("makes", broken["what"], "work" + broken["rest"])
    if fixing and (undone := _not_doing(text)):
        return undone
    if kind == "fix" and not verb and _ERROR_ON.match(text):
        # "fix: error at compile time on duplicate tags": the imperative "error", as in
        # "warn on X"; the change adds the error, which "fixes error …" would invert.
        return join("raises an error", text.split(" ", 1)[1])
    words = text.split(" ") if text else []
    if kind == "fix" and not verb and len(words) > 2 and words[-1].lower() in ("fix", "fixes"):
        words = words[:-1]  # "`{#await}` and async dependencies fixes": the fixes are ours
    negated = negation_length(words) if not verb else 0
    if negated and (stopped := leading_verb(words, negated, loose=True)):
        return join("stops", gerund(stopped.lemma), " ".join(words[stopped.end :]))
    if negated < len(words) and negated and words[negated].isalpha() and words[negated].islower():
        # "fix: don't error on `{type}`": only a verb follows "don't", though the lexicon
        # knows "error" as a noun alone
        return join("stops", gerund(words[negated]), " ".join(words[negated + 1 :]))
    # "Issues with X" names the trouble; after a verb ("raise" of "raise error when X"),
    # the trouble is the verb's object
    if (kind == "fix" and not verb and names_trouble(text)) or (kind == "deprecation" and not verb):
        return noun_phrase(coordinated(words).split(" "), kind)
    if kind == "fix" and not verb and _names_a_compound_fault(words):
        return noun_phrase(coordinated(words).split(" "), kind)  # "route mismatch using …"
    if kind == "fix" and (fault := fault_statement([verb, *words] if verb else words)):
        return fault
    if not verb and (inability := _inability(text)):
        # "Astro unable to handle X", "parser fails to read Y": a bug, which the change fixes
        what = "being unable to" if inability["how"].lower() != "fails to" else "failing to"
        return join("fixes", _lowered(inability["subject"]), what, inability["rest"])
    if verb == "fix" and (fault := fault_statement(words, negated_only=True)):
        return fault  # "Fix X didn't raise on Y": the fault follows the verb
    # "Fix `svd(…)` returns X", and a fix's "`svd(…)` returns X" alone
    coded = _CODE_THEN_VERB.match(text) if verb == "fix" or (kind == "fix" and not verb) else None
    if coded and verb_form(coded["verb"]) == "VBZ" and (lemma := verb_lemma(coded["verb"])):
        # "Fix `svd(…)` returns non-unitary `vh`": code, then what it wrongly does
        return join("fixes", coded["code"], gerund(lemma), coded["rest"])
    # "resolved build options should be kept": a past participle opens a subject, not a verb.
    past = not verb and words and verb_form(words[0]) in ("VBD", "VBN")
    if past and (own := own_subject(words, guess_verb=False)):
        return own
    if verb:
        words = _without_stray_of(verb, words)
        if verb in ("make", "let", "help"):
            words = _bare_infinitive(words)
        maturity = len(words) > 1 and words[-1].lower() in _MATURITY
        if verb == "promote" and maturity and words[-2].lower() not in ("to", "as"):
            words = [*words[:-1], "to", words[-1]]  # "Promote X stable": to stable
        return join(third_person(verb), coordinated(words))
    if not words:
        return "makes an untitled change"
    adverbs = 0
    while adverbs < len(words) - 1 and is_adverb(words[adverbs]):
        adverbs += 1
    found = None if noun_list(words) else leading_verb(words, adverbs, loose=bool(adverbs))
    if found is None and adverbs:
        adverbs, found = 0, leading_verb(words, 0)
    if found is not None and adverbs == 0 and not given_verb(text):
        found = None  # "Fast path for X" is no "fasts path": a noun phrase (english.clean)
    if found is not None:
        lead = " ".join(w.lower() for w in words[:adverbs])
        rest = _without_stray_of(found.lemma, words[found.end :])
        return join(lead, third_person(found.lemma), coordinated(rest))
    # A fix's title names the bug: "fix: lazy props reactivity" is no "makes lazy prop
    # reactivity", while "errors should be kept" still makes errors be kept.
    if own := own_subject(words, guess_verb=kind != "fix"):
        return own
    nominalization = len(words) > 2 and bare(words[1]).lower() == "of"
    if nominalization and not is_identifier(words[0]) and (base := derived_verb(words[0])):
        return join(third_person_of(base), " ".join(words[2:]))
    return noun_phrase(coordinated(words).split(" "), kind)


# A fix's title that says what did not work: "pager not working on Windows".
_NOT_WORKING = re.compile(
    r"^(?P<what>\S.*?)\s+(?:not\s+working|(?:does\s+not|doesn't|did\s+not|didn't)\s+work)"
    r"(?P<rest>(?:\s.*)?)$",
    re.I,
)
# "X not raising on Y", "X doesn't raise on Y": what a thing failed to do.
_NOT_DOING = re.compile(
    r"^(?P<what>\S.*?)\s+(?:not\s+(?P<gerund>[a-z]+ing)"
    r"|(?:(?:does|did)\s+not|doesn't|didn't)\s+(?P<verb>[a-z]+))\b(?P<rest>.*)$"
)


def _not_doing(text: str) -> str | None:
    """A fix's title that says what a thing did not do, as what the fix makes it do: "lazy
    concat not raising on mismatching heights" makes lazy concat raise on them. None when
    the words before "not" are no thing ("Do not forward X"), or for "not being"."""
    match = _NOT_DOING.match(text)
    if match is None or match["what"].split()[0].lower() in ("do", "does", "did", "should"):
        return None
    if match["gerund"]:
        lemma = verb_lemma(match["gerund"]) if verb_form(match["gerund"]) == "VBG" else None
    else:
        lemma = verb_lemma(match["verb"]) or match["verb"]
    if lemma is None or lemma == "be":
        return None
    return join("makes", match["what"], lemma + match["rest"])


# Verbs "of" may follow: "dispose of X", "warn of Y".
_VERBS_OF = frozenset(
    {"think", "consist", "dispose", "approve", "warn", "know", "speak", "hear", "complain"}
)


def _without_stray_of(lemma: str, words: list[str]) -> list[str]:
    """The object of `lemma` without the "of" a noun left behind ("Simplify of calling
    functions" simplifies calling functions), unless the verb takes one ("dispose of")."""
    stray = words and words[0].lower() == "of" and lemma not in _VERBS_OF
    return words[1:] if stray else words


_MATURITY = frozenset({"stable", "beta", "ga", "experimental", "default"})
_CODE_THEN_VERB = re.compile(r"^(?P<code>`[^`]+`)\s+(?P<verb>[a-z]+)\s+(?P<rest>\S.*)$")


def _bare_infinitive(words: list[str]) -> list[str]:
    """The words after "make", "let" or "help" with the verb of their object in its bare
    form: "Make `resets()` function considers …" makes the function consider it."""
    for at, word in enumerate(words[:5]):
        if at == 0 or is_identifier(word) or not word.islower():
            continue
        before = bare(words[at - 1]).lower()
        if before in RELATIVES | CONJUNCTIONS | {"sure", "it"} or verb_form(word) == "VBD":
            return words
        if verb_form(word) == "VBZ" and "NOUN" not in parts_of_speech(bare(word).lower()):
            lemma = verb_lemma(word)
            return [*words[:at], lemma, *words[at + 1 :]] if lemma else words
    return words


# A title that states what something cannot do: "Astro unable to handle X", "Parser
# cannot read Y", "X fails to Z".
_INABILITY = re.compile(
    r"^(?P<subject>(?:\S+\s+){0,5}?\S+)\s+(?:is\s+|are\s+)?"
    r"(?P<how>unable\s+to|cannot|can't|can not|fails\s+to)\s+(?:properly\s+)?(?P<rest>.+)$",
    re.I,
)


def _names_a_compound_fault(words: list[str]) -> bool:
    """True for a fix's title that opens with a noun before a noun of trouble ("route
    mismatch …", "chunk overflow on …"), where the first word is no verb of change ("Fix
    error …", "Handle error …" are verbs)."""
    if len(words) < 2:
        return False
    first = bare(words[0]).lower()
    trouble = noun_lemma(bare(words[1]).lower())
    return (
        first not in CHANGE_VERBS and "NOUN" in parts_of_speech(first) and trouble in PROBLEM_NOUNS
    )


def fit_inability(text: str, *, max_words: int) -> str | None:
    """A title that says what something cannot do, cut to about `max_words` words after
    its verb, never before it: "Astro is unable to properly handle Svelte 5 snippet props"
    cut to "Astro is unable" read as a change that makes Astro unable. None for a title
    of another shape."""
    found = _inability(text)
    if found is None:
        return None
    head = text[: found.start("rest")].split()
    rest = found["rest"].split()
    return " ".join(
        [*head, *shorten(" ".join(rest), max_words=max(4, max_words - len(head))).split()]
    )


def _inability(title: str) -> re.Match[str] | None:
    """The match of a title that says what something cannot do (`_INABILITY`), not of one
    that opens with a verb ("Add an option users cannot set twice"); else None."""
    first = bare(title.split(" ", 1)[0]).lower() if title.strip() else ""
    return None if first in CHANGE_VERBS | TITLE_VERBS else _INABILITY.match(title)


def _lowered(subject: str) -> str:
    """A title's opening subject inside a sentence: its first word lowercase when it is an
    ordinary one ("Parser" → "parser"), a name's case kept ("Astro")."""
    first, _, rest = subject.partition(" ")
    if common_opener(first, alone=False):
        first = first[0].lower() + first[1:]
    return join(first, rest)


def _listed(text: str, verb: str | None, kind: str | None) -> str:
    """A title that lists changes with semicolons, as one clause: "Drop X; gate Y on Z" →
    "drops X and gates Y on Z". A part with no verb of its own that mirrors the first part
    takes its verb, which the title left out: "Highlight X as functions; Y as modifiers" →
    "highlights X as functions and Y as modifiers", not "… and adds Y as modifiers"."""
    first, *rest = (part.strip() for part in text.split("; ") if part.strip())
    shared, named = (verb, first) if verb else split_verb(first)
    clauses = [clause(first, verb=verb, kind=kind)]
    for part in rest:
        if shared and split_verb(part)[0] is None and _mirrors(part, named):
            said = clause(part, verb=shared)
            clauses.append(said.split(" ", 1)[1] if " " in said else said)
        else:
            clauses.append(clause(part))
    return join_words([c.rstrip(",") for c in clauses])


def _mirrors(part: str, named: str) -> bool:
    """True when `part` is built as `named` (what the first part's verb takes) is: the same
    preposition follows what each names ("X as functions", "Y as modifiers")."""

    def preposition(words: list[str]) -> str | None:
        return next((w.lower() for w in words[1:] if w.lower() in PREPOSITIONS), None)

    found = preposition(part.split())
    return found is not None and found == preposition(named.split())


# Verb → nominal form, used to turn "serialize XNNPACK execution" into "XNNPACK serialization".
# Derivation is outside what an inflection lexicon knows ("fix" is not "fixation"), so the
# nominals that read well in a headline are listed.
NOMINALS = {
    "add": "addition",
    "serialize": "serialization",
    "centralize": "centralization",
    "enable": "enablement",
    "split": "split",
    "update": "update",
    "upgrade": "upgrade",
    "bump": "bump",
    "pin": "pin",
    "migrate": "migration",
    "refactor": "refactor",
    "remove": "removal",
    "replace": "replacement",
    "convert": "conversion",
    "integrate": "integration",
    "optimize": "optimization",
    "quantize": "quantization",
    "validate": "validation",
    "fuse": "fusion",
    "decompose": "decomposition",
    "register": "registration",
}

# Head nouns too generic to keep after nominalizing ("XNNPACK execution serialization").


# A fix's title that opens with a plural noun of trouble: "Issues with X", "Errors in Y".
_BUG_NOUN = re.compile(
    r"^(issues?|problems?|errors?|bugs?|failures?|crash(es)?)\s+(with|in|on|when|while|if|for)\b",
    re.I,
)


def names_trouble(title: str) -> bool:
    """True for a title that opens with a plural noun of trouble ("Issues with X"): of a
    fix, it says what was fixed, and its first word is no verb."""
    return _BUG_NOUN.match(title) is not None


def split_kind_verb(subject: str, kind: str | None) -> tuple[str | None, str]:
    """`split_verb`, knowing the title's kind: a fix's "Issues with X" opens with no verb,
    nor does a deprecation's "string APIs" unless a verb of change opens it."""
    if (kind == "fix" and names_trouble(subject)) or _inability(subject):
        return None, subject  # "Issues with X", "Widgets unable to Y": no verb opens it
    if fix_for := _FIX_FOR.match(subject):
        return "fix", fix_for["what"]  # "Fix for resets in anchored" fixes them
    if proposed := _PROPOSAL.match(subject):
        rest = subject[proposed.end() :]
        if setting := _SETTING_FOR.match(rest):
            # "Propose disabling flushing flag" adds a flag for it; flushing goes on
            return None, f"{setting['kind']} for {setting['what']}"
        # A merged proposal is done: "Propose X" does X
        return split_kind_verb(rest, kind)
    verb, rest = split_verb(subject)
    if kind == "fix" and _names_a_compound_fault(subject.split(" ")):
        return None, subject  # a fix's "route mismatch", "chunk overflow": a noun compound
    if verb is not None and not given_verb(subject):
        return None, subject  # "Image generation results": a noun phrase (`clean.given_verb`)
    # "DEP: Undo deprecation for X", "DEP: narrow the deprecation": the verb says what is done
    # to a deprecation, and stays
    retold = "deprecat" in rest.lower()
    if kind == "deprecation" and verb not in CHANGE_VERBS | {"expire", None} and not retold:
        return None, subject  # "DEP: string APIs" deprecates string APIs; it "strings" nothing
    if verb == "add" and _FOR_REMOVAL.search(rest):
        return "mark", rest  # "Add X for removal in 10" adds nothing: it marks X for removal
    return verb, rest


_FIX_FOR = re.compile(r"^(?:a\s+)?(?:fix|fixes|workaround)\s+for\s+(?P<what>\S.*)$", re.I)
# "disabling flushing flag": a setting named by what it does
_SETTING_FOR = re.compile(
    r"^(?P<what>[a-z]+ing\s+.+?)\s+(?P<kind>flag|option|parameter|setting|switch)$", re.I
)
_PROPOSAL = re.compile(r"^(?:propose|proposal\s*:|rfc\s*:)\s+(?=\S)", re.I)
_FOR_REMOVAL = re.compile(r"\bfor\s+(removal|deprecation)\s+in\b", re.I)


# Nouns a headline cannot end on once their phrase is cut: "adds QNN backend support".
_EMPTY_WITHOUT_COMPLEMENT = frozenset({"support", "supports", "compatibility", "handling"})


def nominalize(title: str) -> str | None:
    """A short noun phrase for a change, or None when the nominal table does not cover it.

    "Globally serialize XNNPACK execution, add logging" → "XNNPACK serialization".
    """
    words = first_clause(title).split()
    while words and is_adverb(words[0]):
        words = words[1:]
    if not words:
        return None
    verb, rest = split_verb(" ".join(words))
    if verb is None or verb not in NOMINALS or not rest:
        return None
    obj = rest.split()
    if len(obj) > 1 and obj[-1].lower() in GENERIC_HEADS:
        obj = obj[:-1]
    if len(obj) > 4 or any(w.lower() in PREPOSITIONS for w in obj):
        return None  # "ruff linting in test_linalg.py enablement" is no noun phrase
    return f"{' '.join(obj)} {NOMINALS[verb]}"


def first_clause(text: str) -> str:
    """The text up to its first comma, semicolon, dash or parenthesis."""
    return re.split(r",\s|;\s|\s[-–—]\s|\s\(", text, maxsplit=1)[0].strip()


_AUXILIARIES = AUXILIARIES | {"get", "gets", "got"}


# Relative pronouns that open a clause with a verb of its own ("a tag whose expression ends
# with …"); "that" is left out, as often a determiner ("that option").
_CLAUSE_RELATIVES = frozenset({"whose", "which", "who", "whom"})


# Words that narrow what a clause claims: dropped, the claim says more than the title
# ("for better performance | on free-threading" said it of every build).
_LIMITING = frozenset(
    {"without", "unless", "except", "only", "not", "never", "outside", "on", "under"}
)


def shorten(text: str, *, max_words: int) -> str:
    """The first clause of `text`, cut to at most `max_words` words without a dangling joiner."""
    whole = first_clause(text).split()
    if len(whole) <= max_words:
        return " ".join(whole)
    # One word short of its end, a phrase is kept whole: a cut there only strands a word
    # ("… default factories taking validated").
    if len(whole) == max_words + 1 and not any(w.lower() in SUBORDINATORS for w in whole[3:]):
        return " ".join(whole)
    words = whole[:max_words]
    # What limits the claim ("… when `f()` is called | without a unit") is never cut off: the
    # cut would say it of every call. A few words more keep it; else the clause it limits goes.
    if any(w.lower() in _LIMITING for w in whole[max_words : max_words + 2]):
        if len(whole) <= max_words + 4:
            return " ".join(whole)
        limited = max((i for i, w in enumerate(words) if w.lower() in SUBORDINATORS), default=0)
        if limited >= 2:
            words = words[:limited]
    # A relative or subordinate clause a few words from its end is kept whole ("… on a tag
    # whose expression ends | with a trailing slash" said nothing of the tag; "binding when
    # strictPort is set but wildcard port | is in use" said the opposite).
    opens_clause = any(
        w.lower() in _CLAUSE_RELATIVES or (w.lower() in SUBORDINATORS and i >= 1)
        for i, w in enumerate(words)
        if i >= 3 or w.lower() in SUBORDINATORS
    )
    if opens_clause and len(whole) <= max_words + 3:
        return " ".join(whole)
    # A subordinate or relative clause cut short says the opposite of nothing ("… if
    # `pre_slice` is"): the cut drops it whole.
    opener = max(
        (
            i
            for i, w in enumerate(words)
            if (w.lower() in SUBORDINATORS and i >= 1)
            or (w.lower() in _CLAUSE_RELATIVES and i >= 3)
        ),
        default=None,
    )
    if opener is not None:
        words = words[:opener]
    elif whole[max_words].lower() not in PHRASE_JOINERS:
        # The cut falls inside a phrase ("… leaks in database/iceberg | tests"): drop the
        # phrase whole, back to its preposition, when enough is left to say something.
        phrase = max((i for i, w in enumerate(words) if w.lower() in PHRASE_JOINERS), default=0)
        # … but "support for X" without X says nothing: its complement is the news.
        if phrase >= 3 and words[phrase - 1].lower() not in _EMPTY_WITHOUT_COMPLEMENT:
            words = words[:phrase]
    # Nor a word that points on to what the cut dropped: a joiner, a particle ("… to their
    # own files out"), a participle after a noun ("… signature used"; "should be kept" ends)
    while len(words) > 2 and (
        words[-1].lower() in PHRASE_JOINERS | PREPOSITIONS | PARTICLES | SUBORDINATORS | RELATIVES
        or (
            words[-1].islower()
            and verb_form(words[-1]) in ("VBN", "VBD")
            and words[-2].lower() not in _AUXILIARIES
        )
    ):
        words.pop()
    # Nor a purpose cut before its object: "… out of interfaces to shrink" (binary size)
    if len(words) > 4 and words[-2].lower() == "to" and is_base_verb(words[-1]):
        words = words[:-2]
    return " ".join(words)
