"""Small word tables that turn commit-title imperatives into news English (rule N6).

"Add X" → "adds X", "Back out X" → "backs out X"; "serialize X execution" → "X serialization"
where the nominal table has the verb. Tables are deliberately small and explicit: a title
whose first word is not a known verb is reported with "lands" instead of a guessed verb.
"""

from __future__ import annotations

import re

# Imperative → third person singular, for verbs whose regular form is not enough or that
# appear as multi-word verbs. Everything in VERBS is conjugated by `third_person`.
_IRREGULAR = {"do": "does", "go": "goes", "undo": "undoes", "redo": "redoes"}
_PHRASAL = ("back out", "clean up", "speed up", "set up", "roll back", "opt in", "opt out")

VERBS = frozenset(
    [
        "add",
        "modernise",
        "modernize",
        "adjust",
        "align",
        "allow",
        "apply",
        "avoid",
        "backport",
        "block",
        "bump",
        "build",
        "cache",
        "cap",
        "change",
        "check",
        "clean",
        "collapse",
        "consolidate",
        "convert",
        "correct",
        "create",
        "decompose",
        "decouple",
        "default",
        "define",
        "delete",
        "deprecate",
        "deselect",
        "disable",
        "document",
        "drop",
        "dump",
        "emit",
        "enable",
        "enforce",
        "ensure",
        "exclude",
        "expand",
        "expose",
        "extend",
        "extract",
        "fix",
        "force",
        "fuse",
        "gate",
        "generalize",
        "generate",
        "guard",
        "handle",
        "harden",
        "implement",
        "import",
        "improve",
        "include",
        "increase",
        "initialize",
        "install",
        "integrate",
        "introduce",
        "isolate",
        "keep",
        "land",
        "limit",
        "lower",
        "make",
        "mark",
        "materialize",
        "merge",
        "migrate",
        "minimize",
        "mitigate",
        "move",
        "optimize",
        "pass",
        "pin",
        "plumb",
        "port",
        "preserve",
        "prevent",
        "print",
        "propagate",
        "prune",
        "quantize",
        "raise",
        "re-enable",
        "refactor",
        "refresh",
        "register",
        "reject",
        "relax",
        "reland",
        "relocate",
        "remove",
        "rename",
        "reorder",
        "repair",
        "replace",
        "report",
        "require",
        "resolve",
        "restore",
        "restrict",
        "retry",
        "reuse",
        "revert",
        "rework",
        "rewrite",
        "route",
        "run",
        "seed",
        "select",
        "serialize",
        "set",
        "share",
        "simplify",
        "skip",
        "split",
        "stabilize",
        "standardize",
        "stop",
        "store",
        "streamline",
        "support",
        "suppress",
        "switch",
        "sync",
        "tighten",
        "track",
        "turn",
        "unblock",
        "unify",
        "update",
        "upgrade",
        "upload",
        "use",
        "validate",
        "verify",
        "wire",
        "wrap",
        "do",
        "go",
        "undo",
        "redo",
        "deduplicate",
        "delay",
        "detect",
        "disallow",
        "fold",
        "hoist",
        "inline",
        "lift",
        "load",
        "parse",
        "patch",
        "reduce",
        "rebase",
        "release",
        "reset",
        "return",
        "scale",
        "show",
        "speed",
        "start",
        "teach",
        "test",
        "bound",
        "centralize",
        "reapply",
    ]
)

# Verb → nominal form, used to turn "serialize XNNPACK execution" into "XNNPACK serialization".
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
_GENERIC_HEADS = frozenset({"execution", "support", "handling", "logic", "code", "usage"})
_ADVERBS = frozenset(
    {"globally", "properly", "correctly", "explicitly", "always", "temporarily", "partially"}
)


def third_person(verb: str) -> str:
    """Conjugate an imperative verb (possibly phrasal) into the third person singular."""
    words = verb.split()
    head = words[0].lower()
    if head in _IRREGULAR:
        conjugated = _IRREGULAR[head]
    elif re.search(r"(s|x|z|ch|sh)$", head):
        conjugated = head + "es"
    elif re.search(r"[^aeiou]y$", head):
        conjugated = head[:-1] + "ies"
    else:
        conjugated = head + "s"
    return " ".join([conjugated, *words[1:]])


def split_verb(text: str) -> tuple[str | None, str]:
    """Split a title into (imperative verb, rest); verb is None when it does not start with one.

    Gerunds and past forms in titles ("Adding X", "Fixed Y") are accepted as their base verb.
    """
    lowered = text.lower()
    for phrase in _PHRASAL:
        if lowered.startswith(phrase + " "):
            return phrase, text[len(phrase) + 1 :].strip()
    first, _, rest = text.partition(" ")
    word = first.lower().rstrip(":,")
    for candidate in _base_forms(word):
        if candidate in VERBS:
            return candidate, rest.strip()
    return None, text.strip()


def _base_forms(word: str) -> list[str]:
    forms = [word]
    if word.endswith("ing"):
        forms += [word[:-3], word[:-3] + "e"]
    if word.endswith("ed"):
        forms += [word[:-2], word[:-1], word[:-3] if word[-3:-2] == word[-4:-3] else word[:-2]]
    if word.endswith("es"):
        forms += [word[:-2], word[:-1]]
    elif word.endswith("s"):
        forms.append(word[:-1])
    return forms


def nominalize(title: str) -> str | None:
    """A short noun phrase for a change, or None when the small table does not cover it.

    "Globally serialize XNNPACK execution, add logging" → "XNNPACK serialization".
    """
    clause = first_clause(title)
    words = clause.split()
    while words and words[0].lower() in _ADVERBS:
        words = words[1:]
    if not words:
        return None
    verb, rest = split_verb(" ".join(words))
    if verb is None or verb not in NOMINALS or not rest:
        return None
    obj = rest.split()
    if len(obj) > 1 and obj[-1].lower() in _GENERIC_HEADS:
        obj = obj[:-1]
    if len(obj) > 4:
        return None
    return f"{' '.join(obj)} {NOMINALS[verb]}"


def first_clause(text: str) -> str:
    """The text up to its first comma, semicolon, dash or parenthesis."""
    return re.split(r",\s|;\s|\s[-–—]\s|\s\(", text, maxsplit=1)[0].strip()


def shorten(text: str, *, max_words: int) -> str:
    """The first clause of `text`, cut to at most `max_words` words without a dangling joiner."""
    words = first_clause(text).split()
    if len(words) <= max_words:
        return " ".join(words)
    words = words[:max_words]
    while words and words[-1].lower() in {
        "and",
        "or",
        "to",
        "for",
        "of",
        "in",
        "on",
        "with",
        "the",
        "a",
        "an",
        "from",
        "by",
    }:
        words.pop()
    return " ".join(words)
