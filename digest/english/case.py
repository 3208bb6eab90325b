"""Headline case: upper case for words, the case of its name for code."""

from __future__ import annotations

import re
from collections.abc import Callable

from digest.english.words import words

# A token of code: a span in backticks, or a word with the marks only code has (snake_case,
# a path, a generic `From<OwnedFd>`, `a::b`, `call()`, `module.attr`, a `--flag`, camelCase).
_CODE_TOKEN = re.compile(
    r"`[^`]*`(?:'?s\b)?"  # with its plural or possessive: "`strided_loop`s", not "…`S"
    r"|(?<![\w`])(?:--?[a-z][\w-]*"
    r"|[A-Za-z_]\w*<[^<>\n]{0,30}(?:<[^<>\n]{0,30}>)?[^<>\n]{0,30}>(?:::\w+|\(\))*"
    r"|[\w.-]*\w/[\w./-]*\w|[\w.-]*_[\w.-]*\w|\w+(?:::\w+)+(?:\(\))?|\w+\(\)"
    r"|[A-Za-z][A-Za-z0-9]+\.[a-z_]\w+(?:\.\w+)*|[a-z]+[a-z0-9]*[A-Z][a-z]\w*"
    # a class in a lower-case module ("nn.Parameter", "pl.DataFrame"), a rooted path ("/@fs/")
    r"|[a-z][a-z0-9_]*\.[A-Z]\w+|/@?[\w.-]+/[\w./@-]*"
    # a version with a pre-release tag ("2.14.0a1", "5.0.0-beta.2"), whose letters are part
    # of the number: "2.14.0A1" is no version
    r"|v?\d+(?:\.\d+)+(?:-?(?:a|b|rc|alpha|beta|dev|post|pre)\.?\d*)(?![\w.]))"
)


# A compound name of code: two or more capitalised words run together ("ServiceAccountKey",
# "PrivateKey", "FetchState"), which a headline upper-cases past reading.
_COMPOUND = re.compile(r"(?<![\w`])[A-Z][a-z]+(?:[A-Z][a-z0-9]+)+(?![\w`])")


def headline_case(text: str, *, compounds: bool = False) -> str:
    """`text` upper-cased for a headline, except code: backtick spans and identifier-like
    tokens keep the case that is part of their name ("PROACTIVE_CAPACITY" stays
    "proactive_capacity", "From<OwnedFd>", "src/cli/main.rs", "torch.compile", "camelCase").
    Ordinary names and acronyms are upper-cased as headline style wants ("ExecuTorch"),
    unless `compounds` keeps the case of words run together ("ServiceAccountKey"), as for
    what a change did, whose names are code more often than brands."""
    return _outside(_CODE_TOKEN, text, lambda words: _upper(words, compounds))


def _upper(text: str, compounds: bool) -> str:
    return _outside(_COMPOUND, text, str.upper) if compounds else text.upper()


def _outside(pattern: re.Pattern[str], text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to what lies between the matches of `pattern`, the
    matches kept as they are."""
    out: list[str] = []
    at = 0
    for match in pattern.finditer(text):
        out += [change(text[at : match.start()]), match.group(0)]
        at = match.end()
    out.append(change(text[at:]))
    return "".join(out)


# Technical abbreviations prose writes in capitals, whatever case a title gave them ("fix(ssr):
# … hmr update" reads "SSR", "HMR"); a plural keeps its lower-case "s" ("APIs").
_ACRONYMS = words(
    "api cli cpu gpu npu tpu css html http https json yaml toml xml url uri sql csv dns tls "
    "ssl ssh ssr hmr esm cjs ui ast jit ffi abi oom lru svg pdf cuda simd ci sdk lsp rpc tcp "
    "udp ascii"
)
# A word on its own: not part of a name, path, flag or code span ("ci-infra", "api.ts", "`ui`").
_ACRONYM = re.compile(r"(?<![\w.\-/@`'])([a-z]+)(?![\w\-/@`':]|\.\w)")


def acronym_case(text: str) -> str:
    """`text` with each technical abbreviation in capitals ("hmr update" → "HMR update",
    "apis" → "APIs"); code spans and identifiers keep their case."""

    def upper(match: re.Match[str]) -> str:
        word = match[1]
        if word in _ACRONYMS:
            return word.upper()
        if word.endswith("s") and word[:-1] in _ACRONYMS and len(word) > 3:
            return word[:-1].upper() + "s"
        return word

    return _outside(_CODE_TOKEN, text, lambda words: _ACRONYM.sub(upper, words))
