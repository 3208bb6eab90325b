"""What a single word of a title is, asked of lemminflect's English lexicon.

lemminflect knows the lemmas and inflections of about 100,000 English words by part of
speech; these helpers add the few closed word classes a lexicon of open-class words has no
entry for (particles, prepositions, modals, determiners) and the shape of identifiers, so
that `digest.english.clauses` can tell "Ignore malformed scripts" (a verb first) from "Python 3.15
wheels" (a name first).
"""

from __future__ import annotations

import re
from functools import lru_cache

from digest.english import lexicon


def words(text: str) -> frozenset[str]:
    """A word class written as one space-separated string."""
    return frozenset(text.split())


# Adverb particles that make a phrasal verb with the verb before them ("back out", "set up").
PARTICLES = frozenset({"up", "out", "back", "down", "off", "away", "over"})
# "in"/"on" make a phrasal verb only when nothing or one of these follows ("opt in to X").
LOOSE_PARTICLES = frozenset({"in", "on"})
LOOSE_PARTICLE_FOLLOWERS = frozenset({"", "to", "for", "by", "when", "with"})
PREPOSITIONS = words(
    "to for of in on with at from by into onto via over under about across after before "
    "between through during without within against per like than as inside outside above "
    "below behind beyond along around among amongst toward towards upon throughout beneath"
)
CONJUNCTIONS = frozenset({"and", "or", "but", "nor", "+", "&", "/", "-", "–", "—", "so"})
DETERMINERS = words("the a an all each every this these those that any some its their both no our")
# Words that open a subordinate clause ("… if `pre_slice` is", "X fails when Y").
SUBORDINATORS = frozenset(
    {"if", "when", "unless", "until", "once", "because", "since", "while", "whereas", "so"}
)
# Relative pronouns and adverbs: a clause opens with one ("… that fails", "… where it hangs").
RELATIVES = words("that which who where")
# The articles and the determiners a noun follows at once ("the", "its", "each").
ARTICLES = words("the a an this these those its their each every")
# Negated forms of "do": "doesn't" before a verb makes a statement of a fault.
NEGATED_DO = words("didn't doesn't don't")
# Words a phrase goes on with: a cut after one of them leaves the phrase open.
PHRASE_JOINERS = words("and or to for of in on with the a an from by")
# Adverbs a title opens with before its verb ("Only deepcopy X", "Always rechunk Y").
ADVERBS = words("only always also just still now explicitly early")
MODALS = frozenset({"should", "must", "can", "will", "would", "may", "might", "shall", "could"})
# The verbs that help another: a participle after one ends a phrase ("should be kept").
AUXILIARIES = MODALS | frozenset(
    {"is", "are", "was", "were", "be", "been", "being", "has", "have", "had"}
)
NEGATIONS = ("don't", "do not", "dont", "never", "no longer", "doesn't", "does not", "cannot")
# Words that open a noun-phrase title and are ordinary words, never names: lowercased.
OPENERS = words(
    "new initial basic better more most minor small further additional improved faster full "
    "generic misc miscellaneous various several multiple extra first final per all some many "
    "custom manual optional experimental preliminary partial proper simple simpler fast quick "
    "lazy dark"
)
# Closed compounds that titles use as verbs ("Cleanup X" cleans up X); a compound the
# lexicon does not know at all ("Fallback", "Fixup", "Backout") is read as verb+particle too.
VERBAL_COMPOUNDS = frozenset({"cleanup", "setup", "speedup", "rollback", "backup"})
# Prefixes that keep a hyphenated word a verb when its last part is one ("re-land", "auto-route").
VERB_PREFIXES = words(
    "re un de pre co auto cross self over under mis multi double right bulk force lazy "
    "hot soft hard fast dry"
)
# Head nouns of titles that are themselves a change ("MoE prefill perf improvement").
CHANGE_NOUNS = words(
    "fix improvement cleanup update refactor refactoring tweak change enhancement optimization "
    "optimisation hardening speedup rework polish adjustment workaround bump upgrade tidy-up "
    "touch-up"
)
# Verbs that titles use to say what a change does: after "and" or a comma they are verbs
# whatever else the lexicon knows them as ("and fix pack build", "and regenerate X").
CHANGE_VERBS = words(
    "add fix update remove use move make enable disable bump drop rename replace improve "
    "refactor migrate regenerate deprecate expose introduce implement handle skip allow "
    "avoid raise switch wire reduce increase simplify clean adjust restore revert reland "
    "delete extend rewrite correct prevent ensure install upgrade downgrade register "
    "consolidate unify split merge document sync vendor pin unpin regen rework tune "
    "validate gate export"
)
# Verbs that give users something new (an item may ask them to try it).
ADDING_VERBS = words("add introduce expose support implement enable")
# Verbs of programming that lemminflect's lexicon lacks, or knows only as nouns: "Sync X",
# "Vendor X", "Backport X" open a title with a verb.
TECH_VERBS = words(
    "sync dedupe dedup backport unskip xfail typecheck autofix prefetch rebase untrack shard "
    "debounce symlink refactor hardcode upstream tokenize memoize unset"
)
# Verbs as much nouns as verbs that open titles as verbs ("Support X", "Change Y to Z",
# "Guard nil `x`"): a title that opens with any other such word before a noun is a noun
# phrase ("Image generation results", "Chunk overflow on X", "Option to seed Y").
TITLE_VERBS = words(
    "support change check guard turn print report filter clip upload mention read escape highlight "
    "preserve serve reject respect forward honor honour release bundle package publish target "
    "route mirror benchmark profile cache record track log load store map list sort test lint type copy "
    "limit mark name number order parse patch pass pause point post process query queue "
    "rate reset retry return scan schedule search set show sign skip stream start stop "
    "swap tag trace trigger trim watch wrap bound block build call cap catch clear close "
    "coerce compile count cover cut debug default delay display dump emit error exit "
    "expect fetch flag flatten flush force format free group hash hide hint hook host "
    "import index inline join key label launch lock match merge mock mount move note open "
    "pack pad pin plan poll port probe prompt pull push quote raise range reorder reply "
    "request resize restart resolve run save scope seed select send shape share shift size "
    "slice spawn split stage stub style sum time toggle touch trust type unlock use view "
    "walk wire work yield zero address offer pick retain reuse sample score tweak overhaul surface"
)
_SOLID_PREFIXES = ("pre", "re", "un", "de", "co", "auto", "over", "under", "mis", "multi")
_OOV_VERB_SUFFIX = re.compile(r"[a-z]{3,}(ify|ize|ise)$")
# Characters no word of prose has: code, paths, versions, call parentheses.
IDENTIFIER_CHARS = re.compile(r"[`_./()\[\]{}<>:=#@$\\|*0-9]")
_CAMEL = re.compile(r"^.+[A-Z]")


def join(*parts: str) -> str:
    """The non-empty parts, joined by spaces."""
    return " ".join(p for p in parts if p).strip()


def bare(word: str) -> str:
    """The word without the punctuation that may cling to it in a title ("fix:", "(ops),")."""
    return word.strip(",;:!?\"'“”‘’()")


@lru_cache(maxsize=8192)
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    return lexicon.all_lemmas(word)


def parts_of_speech(word: str) -> frozenset[str]:
    """The lexicon's parts of speech for `word` (NOUN, VERB, ADJ, ADV, …); empty when unknown."""
    return frozenset(_lemmas(bare(word).lower()))


def is_identifier(word: str) -> bool:
    """True for code, paths, versions, acronyms and CamelCase names: words never inflected."""
    word = bare(word)
    if not word:
        return True
    if IDENTIFIER_CHARS.search(word):
        return True
    letters = word.replace("-", "").replace("'", "")
    if len(letters) >= 2 and letters.isupper():
        return True
    return bool(_CAMEL.match(word.split("-")[0])) or not word[0].isalpha()


@lru_cache(maxsize=16384)
def verb_lemma(word: str) -> str | None:
    """The base verb `word` is a form of ("fixed" → "fix"), by the lexicon; None if none.

    A word the lexicon lacks is a form of a new verb when its lemma by lemminflect's rules
    looks like one ("relands" → "reland", "sympifies" → "sympify").
    """
    word = bare(word).lower()
    lemmas = _lemmas(word).get("VERB") or _lemmas(word).get("AUX")
    if lemmas:
        return lemmas[0]
    if word in TECH_VERBS:
        return word
    for suffix in ("ing", "ed", "s", "es"):
        stem = word.removesuffix(suffix)
        for lemma in (stem, stem + "e"):
            if stem != word and lemma in TECH_VERBS and word in _forms_of(lemma):
                return lemma
    if not word.isalpha():
        return None
    for lemma in lexicon.all_lemmas_oov(word, "VERB").get("VERB", ()):
        if lemma in TECH_VERBS or (
            not _lemmas(word) and lemma != word and looks_like_new_verb(lemma)
        ):
            return lemma
    return None


def is_base_verb(word: str) -> bool:
    """True when `word` is the base (imperative) form of a verb the lexicon knows."""
    return verb_lemma(word) == bare(word).lower()


def verb_form(word: str) -> str | None:
    """Which form of a known verb `word` is: "VB", "VBZ", "VBD", "VBG" or None."""
    lemma = verb_lemma(word)
    if lemma is None:
        return None
    lowered = bare(word).lower()
    if lowered == lemma:
        return "VB"
    forms = inflections(lemma)
    for tag in ("VBZ", "VBG", "VBD", "VBN"):
        if lowered in forms.get(tag, ()):
            return "VBD" if tag == "VBN" else tag
    return None


def _forms_of(lemma: str) -> set[str]:
    return {form for forms in inflections(lemma).values() for form in forms}


@lru_cache(maxsize=4096)
def inflections(lemma: str) -> dict[str, tuple[str, ...]]:
    """Every inflection of the verb `lemma`, by tag (VBD, VBN, VBZ, …)."""
    return lexicon.all_inflections(lemma, "VERB")


def looks_like_new_verb(word: str) -> bool:
    """True for a word the lexicon lacks that English makes verbs of: "sympify", "tensorize",
    or a verb with a prefix written solid ("precompute", "unpin")."""
    lowered = bare(word).lower()
    if parts_of_speech(lowered) or not lowered.isalpha():
        return False
    if _OOV_VERB_SUFFIX.match(lowered):
        return True
    return any(
        lowered.startswith(prefix)
        and len(lowered) - len(prefix) >= 3
        and is_base_verb(lowered[len(prefix) :])
        for prefix in _SOLID_PREFIXES
    )


def inflect(lemma: str, tag: str) -> str:
    """`lemma` in the form `tag` (VBZ, VBG, …); for words the lexicon lacks, by its rules."""
    head, dash, tail = lemma.rpartition("-")
    if dash and head:
        return f"{head}-{inflect(tail, tag)}"
    forms = lexicon.inflection(lemma, tag)
    return forms[0] if forms else lemma


def third_person_of(lemma: str) -> str:
    """The third person singular present of a base verb: "fix" → "fixes", "do" → "does"."""
    return inflect(lemma, "VBZ")


def noun_lemma(word: str) -> str:
    """The singular of a noun the lexicon knows ("improvements" → "improvement"), else the word."""
    lemmas = _lemmas(bare(word).lower()).get("NOUN")
    return lemmas[0] if lemmas else bare(word).lower()


def split_compound_verb(word: str) -> tuple[str, str] | None:
    """("clean", "up") for "Cleanup", ("fall", "back") for "Fallback"; None for other words."""
    lowered = bare(word).lower()
    if "-" in lowered:
        head, _, tail = lowered.partition("-")
        if tail in PARTICLES and is_base_verb(head):
            return head, tail
        return None
    if parts_of_speech(lowered) and lowered not in VERBAL_COMPOUNDS:
        return None
    for particle in sorted(PARTICLES, key=len, reverse=True):
        head = lowered.removesuffix(particle)
        if head != lowered and len(head) >= 3 and is_base_verb(head):
            return head, particle
    return None


def prefixed_verb(word: str) -> str | None:
    """The lemma of a hyphenated verb such as "Re-land" or "auto-routes"; None otherwise."""
    lowered = bare(word).lower()
    prefix, dash, rest = lowered.partition("-")
    if not dash or prefix not in VERB_PREFIXES or "-" in rest:
        return None
    lemma = verb_lemma(rest)
    return f"{prefix}-{lemma}" if lemma else None


def derived_verb(noun: str) -> str | None:
    """The verb a nominalization comes from: "Addition" → "add", "Removal" → "remove"."""
    lowered = bare(noun).lower()
    for suffix, ending in (
        ("ification", "ify"),  # "Simplification" → "simplify"
        ("ition", ""),
        ("ation", "e"),
        ("ation", ""),
        ("tion", "e"),
        ("ion", "e"),
        ("ion", ""),
        ("al", "e"),
        ("al", ""),
        ("ment", ""),
    ):
        if lowered.endswith(suffix) and "NOUN" in parts_of_speech(lowered):
            stem = lowered[: -len(suffix)] + ending
            if len(stem) >= 3 and is_base_verb(stem):
                return stem
    return None


# Words too common to tell two titles apart (`digest.english.similarity`).
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "with",
        "also",
        "alongside",
        "after",
        "new",
        "now",
        "their",
        "while",
        "which",
        "who",
        "will",
        "than",
        "then",
    ]
)
