"""Titles that are a noun phrase, read as the clause an editor writes for them.

"Python 3.15 wheels for macOS" adds them, "MoE prefill perf improvement" brings one,
"Integer overflow in X" and "Broken links in the README" are fixed. The first word of
the phrase loses its title case when it is an ordinary word ("Dark mode" → "dark mode",
"Multi-GPU support" → "multi-GPU support"); a name keeps it ("Python 3.15 wheels").
"""

from __future__ import annotations

from digest.english.words import (
    CHANGE_NOUNS,
    CONJUNCTIONS,
    OPENERS,
    PREPOSITIONS,
    bare,
    is_identifier,
    join,
    noun_lemma,
    parts_of_speech,
    words,
)

# Head nouns that name a problem: a title that is only the problem is a fix of it.
# Head nouns that name a fault: "fixes a memory leak", "fixes a bug with X".
FAULT_NOUNS = words("bug crash leak race deadlock regression typo segfault hang overflow underflow")
PROBLEM_NOUNS = FAULT_NOUNS | words(
    "vulnerability error failure warning breakage flake flakiness mismatch issue problem"
)
# First words of the compounds that name a memory fault ("Integer overflow", "Memory leak",
# "Null pointer dereference"): ordinary words, never a name, whatever else the lexicon says.
FAULT_MODIFIERS = words("integer memory buffer heap stack null pointer")
# Adjectives that name a fault: a title that opens with one names a problem ("Broken links").
FAULT_ADJECTIVES = words(
    "missing incorrect wrong broken invalid bad duplicate stale inconsistent misleading "
    "flaky spurious outdated dangling"
)
# First parts of compounds that are adjectives, never verbs ("multi-turn", "cross-platform").
ADJECTIVE_PREFIXES = words(
    "multi cross self single dual zero non long short high low full half end first third "
    "in out off on per post sub"
)


# Nouns that take no article in the singular when they name an amount of something.
MASS_NOUNS = words(
    "support coverage documentation docs information infrastructure tooling data metadata "
    "telemetry guidance code software hardware functionality logic behavior behaviour "
    "compatibility interoperability parallelism concurrency performance security safety "
    "validation handling logging tracing testing caching linting typing packaging "
    "configuration evidence feedback progress research work traffic storage memory "
    "observability visibility instrumentation automation governance access usage "
    "precision quantization serialization deserialization compilation inference training "
    "ci cd ui ux api io"
)
# Heads that read better with "the": "adds the ability to resume", not "an ability".
DEFINITE_HEADS = words("ability possibility capability")
# Most nouns in -tion/-sion name a process here ("adds KV cache compression"); these name a thing.
COUNT_ION_NOUNS = words(
    "option function section version extension region session implementation definition "
    "exception condition assertion question collection annotation transition partition "
    "position migration action connection instruction application operation expression "
    "permission notification description regression"
)
# Heads too vague to stand alone: "improves the execution" says nothing without its object.
GENERIC_HEADS = words("execution support handling logic code usage")


# What a test change adds when its title names it ("test: more coverage for the parser").
_TEST_NOUNS = frozenset(
    {"test", "coverage", "case", "fixture", "snapshot", "assertion", "check", "benchmark"}
)


def noun_phrase(words_: list[str], kind: str | None = None) -> str:
    """A noun-phrase title as a clause: "adds …", "brings …" for a change, "fixes …" a problem
    or what a fix (`kind` "fix", from "FIX X" or "fix: X") names ("FIX BEFT example dataset");
    a test's (`kind` "test") subject is what it tests, a deprecation's what it deprecates."""
    head = words_[-1]
    for index, word in enumerate(words_):
        lowered = bare(word).lower()
        if index and (lowered in PREPOSITIONS or lowered in CONJUNCTIONS):
            head = words_[index - 1]
            break
        if word[-1] in ",;:":
            head = word
            break
    head_noun = noun_lemma(head)
    if head_noun.endswith("s") and head_noun[:-1] in CHANGE_NOUNS:
        head_noun = head_noun[:-1]  # "tidy-ups", which the lexicon does not know
    verb = "adds"
    if head_noun in CHANGE_NOUNS:
        # "makes minor tidy-ups", "brings a rework of X"
        verb = "makes" if bare(head).lower() != head_noun else "brings"
    problem = head_noun in PROBLEM_NOUNS or bare(words_[0]).lower() in FAULT_ADJECTIVES
    if problem or (kind == "fix" and head_noun not in CHANGE_NOUNS):
        verb = "fixes"
    elif kind == "test" and head_noun not in _TEST_NOUNS:
        verb = "tests"  # "test(css): sass prefix import on Windows" adds a test, not an import
    elif kind == "deprecation":
        verb = "deprecates"  # "deprecate: string-based nodeid APIs" adds nothing
    first = words_[0]
    if common_opener(first, alone=len(words_) == 1):
        words_ = [first[0].lower() + first[1:], *words_[1:]]
    return join(verb, " ".join(words_))


def common_opener(word: str, *, alone: bool = False) -> bool:
    """True for a capitalised ordinary word that opens a noun phrase ("New", "Support",
    "Broken", "Multi-GPU"). A word the lexicon knows only as a noun, or as a noun and an
    adjective, may be a name ("Python", "Rayon", "Android") and keeps its capital."""
    if not word[:1].isupper() or alone:
        return False
    head, dash, _ = bare(word).partition("-")
    if dash and head[1:].islower() and head.lower() in ADJECTIVE_PREFIXES:
        return True  # "Multi-GPU", "Cross-compilation", "Long-context"
    if is_identifier(word) or not word[1:].islower():
        return False
    lowered = bare(word).lower()
    pos = parts_of_speech(lowered)
    if dash and all(parts_of_speech(part) for part in lowered.split("-")):
        return True  # "Retrieval-augmented", "Hard-coded"
    return (
        lowered.split("-")[0] in OPENERS
        or (bool(pos) and pos <= {"ADJ", "ADV"})
        or {"NOUN", "VERB"} <= pos
        or "VERB" in pos  # a participle as an adjective: "Fused quant kernel", "Encoded URLs"
        or lowered in FAULT_ADJECTIVES
        or lowered in FAULT_MODIFIERS
        or noun_lemma(lowered) in PROBLEM_NOUNS  # "Errors in the parser", "Crash on exit"
    )


def possessive(name: str) -> str:
    """`name` owning what follows: "ExecuTorch's", "Widgets'" (a name that ends in "s"
    takes the apostrophe alone)."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"
