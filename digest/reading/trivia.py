"""Trivia: a change a story counts instead of telling ("makes three documentation and lint
changes"): documentation wording, typos, lint and formatting passes, updates of the
linters and formatters themselves, and housekeeping files (owners, ignore lists, licences,
templates, lockfiles, the package manager's settings, the people page).
"""

from __future__ import annotations

import re

from digest.reading.topics import is_ci_path, is_doc_path

# ---------------------------------------------------------------- trivia

# Titles of changes that touch words, not behaviour: typos, grammar, docstrings, lint and
# formatting ("Fix docstring typo", "Apply lintrunner auto-fixes", "Format X with cmake-format").
_WORDING = re.compile(
    r"\b(typos?|spelling|misspell\w*|grammar|punctuation|wording|docstrings?|duplicated\s+word)\b"
    r"|\bduplicated\s+\S+\s+in\b.*\bcomments?\b|^(documentation|docs?)\b"
    # links to the docs, wherever they are written: "Update documentation links"
    r"|\b(documentation|docs?)\s+(links?|urls?)\b|\b(broken|dead|outdated)\s+(links?|urls?)\b"
    # what the code says of itself: "Update comments", "Add TODOs for X", "Clarify a comment"
    r"|^(add|update|fix|clarify|improve|clean\s+up|remove)\s+(\w+\s+)?(code\s+)?"
    r"(comments?|todos?|fixmes?)(?=\s*$|\s+(in|for|on|of|about|to|and|around)\b)",
    re.I,
)
_LINTING = re.compile(
    r"\blint(s|ing|er|ers|runner)?\b|\b[\w-]*-format\b|\bformatting\b|^(re)?format\b|\bcodemod\b"
    # how the source is written down, not what it does: "Replace CRLF with LF in f2py"
    r"|\bline[- ]endings?\b|\bCRLF\b|\b(with|to)\s+LF\b|\btrailing\s+whitespace\b",
    re.I,
)
# Linters, formatters and type checkers: updating one changes how code is written, never
# what it does ("Upgrade ruff 0.15.12", "Bump prettier and reformat"). Names of tools
# used across ecosystems, not of any one repository.
DEV_TOOLS = [
    "ruff",
    "black",
    "isort",
    "flake8",
    "pylint",
    "mypy",
    "pyright",
    "pyre",
    "pre-commit",
    "prettier",
    "eslint",
    "biome",
    "oxlint",
    "oxfmt",
    "dprint",
    "stylelint",
    "clippy",
    "rustfmt",
    "clang-format",
    "clang-tidy",
    "gofmt",
    "golangci-lint",
    "typos",
    "codespell",
    "cspell",
    "markdownlint",
    "shellcheck",
    "actionlint",
    "yamllint",
    "cppcheck",
    "cpplint",
    "pyflakes",
    "pydocstyle",
    "hadolint",
    "buildifier",
    "ktlint",
    "swiftlint",
]
_TOOL_UPDATE = re.compile(
    r"^(?:upgrade|update|bump|pin|unpin|migrate to|switch to|enable|disable|configure|apply|run)"
    r"\s+(?:to\s+)?"
    r"(?:the\s+)?`?(?:" + "|".join(map(re.escape, DEV_TOOLS)) + r")`?\b",
    re.I,
)
# What a linter or type checker reports, silenced: "Fix Clippy 0.1.95 warnings", "Resolve mypy
# errors", "Fix compiler warnings". The code does what it did.
_TOOL_FINDINGS = re.compile(
    r"^(?:fix(?:es|ed)?|silence[sd]?|address(?:es|ed)?|resolve[sd]?|suppress(?:es|ed)?"
    r"|clean\s+up)\s+(?:new\s+|the\s+|all\s+|some\s+|remaining\s+)?"
    r"(?:`?(?:" + "|".join(map(re.escape, DEV_TOOLS)) + r")`?(?:\s+v?[\d.]+)?|compiler"
    # a compiler's classes of warning: "fix implicit conversion warnings"
    r"|implicit[- ]conversions?|sign[- ](?:compare|comparison|conversion)|shadow(?:ing)?"
    r"|unused[- ](?:variables?|parameters?|functions?|results?)|missing[- ]prototypes?"
    r"|maybe[- ]uninitiali[sz]ed|deprecated[- ]declarations?)"
    r"\s+(?:warnings?|errors?|lints?|findings?|complaints?)\b",
    re.I,
)
# Files of the repository's housekeeping: owners, ignore lists, licences, templates, people.
_HOUSEKEEPING_PATH = re.compile(
    r"(^|/)(CODEOWNERS|\.gitignore|\.gitattributes|\.mailmap|\.editorconfig|LICEN[CS]E[^/]*"
    r"|AUTHORS[^/]*|CONTRIBUTORS[^/]*|CONTRIBUTING[^/]*|people\.ya?ml"
    # lockfiles alone: a dedupe or refresh changes what is installed for no user
    r"|pnpm-lock\.yaml|package-lock\.json|yarn\.lock|bun\.lockb?|Cargo\.lock|uv\.lock|poetry\.lock"
    r"|Gemfile\.lock|go\.sum"
    # the package manager's and toolchain's own settings
    r"|\.npmrc|\.yarnrc(\.yml)?|pnpm-workspace\.yaml|\.nvmrc|\.node-version|\.python-version"
    r"|rust-toolchain(\.toml)?"
    # linters', formatters' and checkers' own settings: how the code is checked, not what runs
    r"|deny\.toml|\.?clippy\.toml|\.?rustfmt\.toml|\.?ruff\.toml|\.pre-commit-config\.ya?ml"
    r"|\.eslintrc[^/]*|eslint\.config\.[cm]?[jt]s|\.prettierrc[^/]*|\.prettierignore"
    r"|prettier\.config\.[cm]?js|biome\.jsonc?|\.golangci\.ya?ml|\.flake8|mypy\.ini"
    r"|pyrefly\.toml|\.clang-format|\.clang-tidy|_?typos\.toml|\.?codecov\.ya?ml"
    # the release tooling's own settings: how a release is cut, not what it ships
    r"|release-plz\.toml|\.?release-please[^/]*\.json|cliff\.toml|\.goreleaser\.ya?ml"
    r"|\.changeset/config\.json)$"
    r"|^\.github/(ISSUE_TEMPLATE|PULL_REQUEST_TEMPLATE|FUNDING)",
    re.I,
)


def is_housekeeping_path(path: str) -> bool:
    """True for a file of the repository's housekeeping: owners, ignore lists, licences,
    templates, lockfiles, and the settings of its linters, package manager and release tools."""
    return _HOUSEKEEPING_PATH.search(path) is not None


# One branch merged into another ("Merge main into next", "Merge branch 'main' into next"):
# its changes landed, and are told, where they were made; the merge itself is plumbing.
_BRANCH_MERGE = re.compile(
    r"^merge\s+(remote-tracking\s+branch|branch)\s+['\"`]?[\w./:-]+['\"`]?(\s+of\s+\S+)?"
    r"(\s+into\s+['\"`]?[\w./-]+['\"`]?)?\s*$"
    r"|^merge\s+['\"`]?[\w./-]+['\"`]?\s+into\s+['\"`]?[\w./-]+['\"`]?\s*$",
    re.I,
)


def trivia_kind(subject: str, paths: list[str], *, docs_only: bool) -> str | None:
    """What kind of trivia a change is ("docs", "lint", "housekeeping"), or None for real work.

    Trivia is a documentation-only change, a typo, grammar or docstring fix, a lint or
    formatting pass, or a change to housekeeping files only (owners, ignore lists, licences,
    templates, the people page). A long window counts it instead of telling it.
    """
    words = re.sub(r"`[^`]*`", " ", subject)  # a code span names code: `grammar` is no grammar
    if _LINTING.search(words) or _TOOL_UPDATE.search(words) or _TOOL_FINDINGS.search(words):
        return "lint"
    if docs_only or _WORDING.search(words):
        return "docs"
    if _BRANCH_MERGE.match(subject.strip()):
        return "housekeeping"
    kept = [bool(_HOUSEKEEPING_PATH.search(p)) for p in paths]
    # Housekeeping files, with the docs or CI settings that go with them.
    if any(kept) and all(
        k or is_doc_path(p) or is_ci_path(p) for k, p in zip(kept, paths, strict=True)
    ):
        return "housekeeping"
    if paths and all(is_doc_path(p) for p in paths):
        return "housekeeping"
    return None
