"""What the tags and prefixes of a title say, read by their shape (N2).

Two conventions besides conventional commits say what kind of change a title is:

- upper-case type words, the numpy/scipy/pandas/peft habit: "ENH: Add X", "TST FIX Make
  Y pass", "[DOC] Explain Z", "BUG, TST: …". `type_prefix` takes a run of them off the
  front of a title and gives back the conventional-commit kinds they stand for. A type
  word that is also an ordinary acronym (CI, API, DOC, PERF, …) counts only before a colon,
  another type word or a capitalised verb ("CI Move slow tests" is a CI change, "CI jobs
  for X" is about CI jobs).
- a tag or prefix that names a product or crate living in the repository (`[ty]`,
  `uv-resolver:`, `fix(create-vite):`). `is_product_tag` says whether a tag has a
  product's shape: written lower-case, a name the English lexicon does not know or a
  crate-like compound ("polars-plan", "ruff_linter") with such a part, and no type,
  noise or generic technical word ("docs", "parser", "css", "cli"). `product_in_paths`
  confirms a product from the files a change touches, for a composer that wants evidence.

`is_commit_type` says whether a word names a kind of work (feat, fix, refactor, deprecate,
security, perf, typing, chore, …, in any case): such a word is never a place a reader
follows (`digest.reading.topics`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from digest.config import PACKAGE_FOLDERS
from digest.english.words import is_base_verb, looks_like_new_verb, parts_of_speech, words

# Upper-case type words and the conventional-commit kind each stands for.
TYPE_WORDS = {
    "FEAT": "feat",
    "FEATURE": "feat",
    "ENH": "feat",
    "NEW": "feat",
    "FIX": "fix",
    "BUG": "fix",
    "BUGFIX": "fix",
    "HOTFIX": "fix",
    "BF": "fix",
    "TST": "test",
    "TEST": "test",
    "TESTS": "test",
    "DOC": "docs",
    "DOCS": "docs",
    "MAINT": "chore",
    "MNT": "chore",
    "CHORE": "chore",
    "STY": "style",
    "STYLE": "style",
    "TYP": "typing",
    "CI": "ci",
    "PERF": "perf",
    "API": "api",
    "BLD": "build",
    "BUILD": "build",
    "DEP": "deprecation",
    "DEPR": "deprecation",
    "REL": "release",
    "SEC": "security",
    "REF": "refactor",
    "REFACTOR": "refactor",
    "BENCH": "bench",
    "REV": "revert",
    "REVERT": "revert",
}
# Type words that open no noun phrase of their own: they are a type word even with no colon.
STRICT_TYPE_WORDS = words("FEAT ENH TST MAINT MNT BLD STY TYP BF DEPR BUGFIX HOTFIX CHORE FIX BUG")
# Type words that are also areas a reader follows: kept as tags besides giving the kind.
AREA_TYPES = words("CI DOC DOCS")
# Type words that are no English word, so also read in any case ("Enh add X", "tst: Y").
_ABBREVIATED_TYPES = words("ENH TST MNT MAINT BLD STY TYP DEPR")
_TYPE_TOKEN = re.compile(
    r"\[(?P<bracketed>[A-Z]{2,8})\]\s*|(?P<word>[A-Z]{2,8})(?P<sep>\s*[:,/&+|]\s*|\s+|$)"
)
_NEXT_TYPE = re.compile(r"\[?([A-Z]{2,8})\b")


def type_prefix(text: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """(kinds, area tags, rest) for a title that opens with type words, else ((), (), text).

    "TST FIX Make GPU test pass" → (("test", "fix"), (), "Make GPU test pass");
    "CI: Cache pip" → (("ci",), ("CI",), "Cache pip").
    """
    found: list[str] = []
    first, _, after = text.partition(" ")
    word = first.rstrip(":,")
    if word.upper() in _ABBREVIATED_TYPES and not word.isupper() and after:
        text = f"{first.upper()} {after}"  # "Enh add default target modules": ENH
    at = 0
    while match := _TYPE_TOKEN.match(text, at):
        word = match["bracketed"] or match["word"]
        if word not in TYPE_WORDS:
            break
        rest = text[match.end() :]
        separator = (match["sep"] or "").strip()
        colon = match["word"] is not None and separator == ":"
        next_type = _NEXT_TYPE.match(rest)
        stacked = next_type is not None and next_type[1] in TYPE_WORDS
        if match["word"] is not None and not colon:
            following = rest.split(" ", 1)[0]
            verb = following[:1].isupper() and following[1:].islower() and is_base_verb(following)
            spaced = not separator and (word in STRICT_TYPE_WORDS or verb)
            if not (stacked or spaced or (separator == "," and word in STRICT_TYPE_WORDS)):
                break
        found.append(word)
        at = match.end()
        if colon:
            break
    rest = text[at:].strip()
    if not found or not rest:
        return (), (), text
    kinds = tuple(dict.fromkeys(TYPE_WORDS[w] for w in found))
    return kinds, tuple(w for w in found if w in AREA_TYPES), rest


# Words that name a kind of work, by topic key: every type word and the kind it stands for,
# conventional-commit types, and the words projects write for them in a prefix or a tag
# ("[SECURITY]", "Deprecate:", "Enhancement:"). CI is an area a reader follows, and docs
# and tests are container folders already (`config.CONTAINER_FOLDERS`); "API" names an
# API as often as a kind of change.
COMMIT_TYPES = (
    frozenset(w.lower() for w in TYPE_WORDS)
    | frozenset(TYPE_WORDS.values())
    | words(
        "feature features fixes fixed bugs bugfixes deprecate deprecated deprecations "
        "deprecation depr enhancement enhancements enhance improvement improvements improve "
        "refactoring refactors cleanup change changes breaking performance security typing "
        "chore chores maintenance misc wip deps dependencies release releases revert reverts "
        "style lint"
    )
) - {"ci", "doc", "docs", "api"}


def is_commit_type(word: str) -> bool:
    """True when `word` names a kind of work rather than a part of a project ("Refactor",
    "SECURITY", "deprecate", "TYP"), in any case; "CI" names an area."""
    return re.sub(r"[^a-z0-9]+", "", word.lower()) in COMMIT_TYPES


# Lower-case technical words that name an area, a format or a platform, never a product.
GENERIC_TAGS = words(
    "docs doc readme changelog ci cd cli ui ux api apis io sdk ffi jit gc lsp vm wasm js ts "
    "css html json yaml toml xml sql http https grpc rpc tcp udp ssr hmr dev deps dx gpu cpu "
    "npu tpu cuda rocm mps simd utils util lib libs linter lint plugins config "
    "tooling infra perf test tests typing types examples example bench benchmarks internal "
    "misc core common shared python rust go node deno bun docker nix windows macos linux "
    "android ios arm x86 wip ez codegen ops op codec"
)
_PRODUCT_SHAPE = re.compile(r"^[a-z][a-z]*(?:[-_][a-z][a-z0-9]*)*$")


def is_product_tag(tag: str, *, prefix: bool = True) -> bool:
    """True when `tag` reads as the name of a product or crate (see the module docstring).

    `prefix` says the tag stands on its own (`[tag]`, `tag:`), where a compound of ordinary
    words is a crate ("polars-plan:") and a single word is a product when it is no English
    word nor one derived from one ("ty", not "optimizer"); a conventional-commit scope
    ("fix(glob-import):", "fix(optimizer):") names a crate only when it is a compound with a
    part that is no English word ("create-vite").
    """
    if not _PRODUCT_SHAPE.match(tag) or len(tag) < 2 or tag in GENERIC_TAGS:
        return False
    parts = re.split(r"[-_]", tag)
    if len(parts) == 1:
        return prefix and not is_ordinary_word(tag)
    if parts[0] in GENERIC_TAGS:
        return False
    return prefix or any(not parts_of_speech(p) and p not in GENERIC_TAGS for p in parts)


def is_ordinary_word(word: str) -> bool:
    """True for an English word, or one derived from a word the lexicon knows
    ("optimizer" of "optimize", "partitioner", "quantized" of a verb in -ize)."""
    if parts_of_speech(word) or looks_like_new_verb(word):
        return True
    for suffix in ("ers", "er", "ors", "or", "ed", "ing", "es", "s"):
        stem = word.removesuffix(suffix)
        if stem != word and len(stem) >= 3:
            for base in (stem, stem + "e"):
                if parts_of_speech(base) or looks_like_new_verb(base):
                    return True
    return False


def reads_as_word(word: str) -> bool:
    """True for an English word of three letters or more, one derived from one ("optimizer",
    "reactivity"), or two such words run together ("runtime", "threadpool"): a word a story
    may capitalise as a name ("Compiler"), where any other keeps its case ("promql")."""
    word = word.lower()
    if len(word) < 3 or not word.isalpha():
        return False
    if is_ordinary_word(word) or is_ordinary_word(re.sub(r"ivity$", "ive", word)):
        return True
    return any(
        is_ordinary_word(word[:i]) and is_ordinary_word(word[i:]) for i in range(3, len(word) - 2)
    )


def first_product(tags: Iterable[tuple[str, bool]]) -> str | None:
    """The first of (tag, is a prefix) that has a product's shape, as the project writes it."""
    return next((t for t, prefix in tags if is_product_tag(t, prefix=prefix)), None)


def product_in_paths(product: str, paths: Iterable[str]) -> bool:
    """True when a changed file lives in the product's own package: a top-level folder, or a
    folder under a package container (crates/, packages/, …), named for it ("crates/ty",
    "crates/ty_python_semantic", "packages/create-vite", "polars-plan/")."""
    key = product.lower().replace("-", "_")
    for path in paths:
        parts = path.lower().replace("-", "_").split("/")
        candidates = [parts[0]] if len(parts) > 1 else []
        if len(parts) > 2 and parts[0] in PACKAGE_FOLDERS:
            candidates.append(parts[1])
        if any(c == key or c.startswith(key + "_") for c in candidates):
            return True
    return False
