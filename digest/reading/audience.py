"""Who a change reaches: is it internal, a security fix, or housekeeping?

A change is *internal* when it says it changes no behaviour (a conventional `refactor:`,
`style:`, `test:` or `ci:`, or a description that says users see no change: "No functional
change", "these should never surface to the user") or every path it touches is tests (`topics.is_test_path`), CI
(`topics.is_ci_path`), the project's internal folders (`Project.internal_folders`:
tooling, scripts, examples; `extra_internal_folders`: its own, such as a benchmark suite)
or documentation around them; users never run it. A project whose users are its
maintainers (`Project.audience = "maintainers"`) has no internal changes: its CI is its
product.

A *security fix* says so: an advisory merged from a private fork ("Merge commit from
fork", how GitHub lands a security-advisory fix), a GHSA or CVE id, a `security` label
or conventional scope, or the name of a flaw class (path traversal, XSS, prototype
pollution, ReDoS, DOM clobbering, "vulnerability") or of a memory-safety flaw (an
out-of-bounds read, a buffer overflow, a use after free). An integer overflow is one only
where it guards memory (a size, bounds, an offset or an allocation) or the project's own
words say what an attacker could do with it ("a malicious file", "crafted input"): an
integer overflow in arithmetic is a wrong result, not a hole.

*Housekeeping* is counted, never told: release notes and changelogs, translations, the
people, sponsor and contributor pages.
"""

from __future__ import annotations

import re
from functools import lru_cache

from digest.config import Project, topic_key
from digest.model import Activity
from digest.reading.titles import split_title
from digest.reading.topics import is_build_path, is_ci_path, is_doc_path, is_test_path
from digest.reading.trivia import is_housekeeping_path

# ---------------------------------------------------------------- internal

# Conventional types and upper-case prefixes of work users never run or see.
_INTERNAL_KINDS = frozenset(
    {"test", "tests", "testing", "tst", "ci", "bench", "benchmark", "benchmarks"}
)
# A title about the test suite itself: "Fix Cadence test failures", "Skip flaky test_x",
# "Fully resolve remaining leaks in database tests".
_ABOUT_TESTS = re.compile(
    r"^(\w+ly\s+)?(fix|resolve|close|silence|suppress|skip|xfail|mark|disable|re-?enable"
    r"|unskip|deflake|stabili[sz]e)\b"
    r"[^.]*\b(tests?|test failures?|test suite|flaky)\b(?!\s+(helpers?|utilit))"
    # "add tests for conj", "Add more unit tests for X"
    r"|^add\w*\s+((more|missing|some|new|unit|regression|integration)\s+)*tests?\b",
    re.I,
)
# A title that says the code was reworked, not what users get: "Refactor fixture closure
# computation", "Clean up unused imports", "Simplify X".
_REVIEW = re.compile(
    r"\b(review|pr)\s+(feedback|comments?|findings|suggestions|nits?|rounds?)\b|suggestions", re.I
)
_REWORKED = re.compile(
    r"^((minor|small|some|more|further|general|code|misc\w*)\s+)*"
    r"(refactor\w*|clean\s*up|cleanup|tidy|simplif(y|ies)|reorgani[sz]e"
    r"|restructure"
    # code moved within the code: "Inline `set_default`", "Extract X into a helper"
    r"|inline(?!\s+(styles?|scripts?|css|svgs?|images?|elements?|code|math|comments?|hints?"
    r"|snapshots?|assets?)\b)"
    r"|extract\s+\S+(\s+\S+)?\s+(into|to)\s+((a|an|the|its\s+own)\s+)?(shared\s+)?"
    r"(helpers?|functions?|methods?|modules?|class(es)?|files?|utils?|utilities|common)\b"
    # code the project no longer needs: "Remove unused parameter `x`", "Drop dead code"
    r"|(remove|drop|delete)\s+(the\s+)?(unused|unnecessary|unneeded|dead|redundant"
    r"|duplicated?|obsolete|leftover|stale)\s"
    # unless what goes is something users type or set
    r"(?![^.]*\b(options?|flags?|settings?|endpoints?|commands?|config\w*)\b)"
    # a round of review ("Address review feedback on X", "PR comments"): whatever it
    # changed, its title tells a reader nothing they can use
    r"|(address|apply|incorporate|resolve|handle|fix)\w*\s+"
    r"((the|more|remaining|pr|code|some|first|second|third|another|last)\s+)*"
    r"(review(er)?s?|pr)\s+(feedback|comments?|findings|suggestions|nits?|rounds?)"
    r"|apply(ing)?\s+(the\s+)?(code\s+)?suggestions?\b"
    r"|(pr|review)\s+(comments|feedback|nits|suggestions)$)\b",
    re.I,
)
# An entry for the release notes: a changeset or a news fragment (towncrier) says users
# will read of the change, whatever its title's type.
_NEWS_FOLDER = r"(^|/)(changelog|changelog\.d|changes|upcoming_changes|newsfragments|news)/"
_RELEASE_NOTE = re.compile(
    rf"(^|/)\.changeset/(?!README)[^/]+\.md$|{_NEWS_FOLDER}[^/]+\.(rst|md|txt)$", re.I
)
# A news fragment's type, as towncrier names it: "changelog/14533.breaking.rst".
_FRAGMENT_TYPE = re.compile(
    rf"{_NEWS_FOLDER}[^/]*?\.(?P<type>[a-z_]+)(\.\d+)?\.(rst|md|txt)$", re.I
)


def fragment_types(activity: Activity) -> frozenset[str]:
    """The types of the news fragments the change adds ("breaking", "deprecation",
    "bugfix"): how the project itself files the change for its release notes."""
    return frozenset(
        match["type"].lower()
        for f in activity.files
        if f.status != "D" and (match := _FRAGMENT_TYPE.search(f.path))
    )


# Running the project's own tests where they did not run: "Run RISC-V tests with multiple
# RVV QEMU configurations", "Enable backend test suite + x86 CI". Where CI is the product
# (a maintainers' project) where tests run is its news, so this reads only for users.
# A change that says it lives in CI: "… in CI", "… on the CI", "… for CI runs".
_IN_CI = re.compile(r"\b(?:in|on|for) (?:the )?CI\b")
_RUNS_TESTS = re.compile(
    r"^(\w+ly\s+)?(run|enable)\s+[^.]*\b(tests|test suite|test jobs?)\b"
    # an empty commit that runs CI again: "Retrigger CI", "Re-run the checks"
    r"|^(re-?trigger|re-?run|kick|restart)\s+(the\s+)?(ci|build|checks?|tests|pipeline|workflows?)\b",
    re.I,
)
# A setting of the test suite itself: "Increase load test timeout to 2 hours".
_TEST_SETTING = re.compile(
    r"\b(load[- ]|unit[- ]|integration[- ]|smoke[- ])?tests?\s+"
    r"(timeouts?|tolerances?|retr(y|ies)|shards?|shard\s+counts?|seeds?|parallelism)\b",
    re.I,
)
# Conventional types that say behaviour did not change.
_UNCHANGED_KINDS = frozenset({"refactor", "style"})
# A description's word that users see no change: "No functional changes.", "these should
# never surface to the user", "purely internal". Not one that says where or for whom
# ("no behaviour change by default", "no functional change for existing users"): a change
# that others do see.
_UNSEEN = re.compile(
    r"\bno\s+(user[- ]facing|user[- ]visible|functional|functionality|behaviou?r(al)?|runtime)"
    r"\s+changes?\b(?!\s+(for|to|when|if|unless|except|by|in|on|outside)\b)"
    r"|\b(should|will|does|do)\s+(never|not)\s+(surface|be\s+visible|affect)\s+(to\s+)?"
    r"(the\s+)?(end\s+)?users?\b"
    r"|\bpurely\s+(an?\s+)?internal\b|\b(not|isn't|is\s+not)\s+user[- ]facing\b",
    re.I,
)


@lru_cache(maxsize=65536)
def in_folders(path: str, folders: frozenset[str]) -> bool:
    """True when a folder of `path` is one of `folders` (names, or their topic keys)."""
    return any(topic_key(part) in folders or part in folders for part in path.split("/")[:-1])


def is_internal_path(path: str, project: Project) -> bool:
    """True for a path users never run: tests, CI, a hidden file or folder at the top of
    the tree (an editor's, a bot's or a hook's settings: `.vscode/`, `.husky/`), or one of
    the project's internal folders."""
    folders = _internal_keys(project)
    hidden = path.startswith(".")
    return hidden or is_test_path(path) or is_ci_path(path) or in_folders(path, folders)


def is_internal_folder(name: str, project: Project) -> bool:
    """True when `name` is one of the project's internal folders ("scripts",
    "method_comparison"): no place a reader follows."""
    folders = _internal_keys(project)
    return name in folders or topic_key(name) in folders


def _internal_keys(project: Project) -> frozenset[str]:
    """The project's internal folders, the defaults and its own, as names and topic keys."""
    return _folder_keys(project.internal_folders + project.extra_internal_folders)


@lru_cache(maxsize=64)
def _folder_keys(folders: tuple[str, ...]) -> frozenset[str]:
    return frozenset(folders) | {topic_key(f) for f in folders}


def has_release_note(activity: Activity) -> bool:
    """True when the change writes its own entry for the release notes (a changeset, a
    news fragment): the project says its users will read of it."""
    # Every branch of _RELEASE_NOTE spells "change" or "news": looked for first, it spares
    # the pattern nearly every path.
    return any(
        ("change" in (low := f.path.lower()) or "news" in low) and _RELEASE_NOTE.search(f.path)
        for f in activity.files
    )


def _says_unseen(body: str) -> bool:
    """True when the description says no user sees the change (`_UNSEEN`), of the whole
    change: not in a list item, which speaks of one part ("- **Float**: byte-identical. No
    behaviour change.")."""
    for match in _UNSEEN.finditer(body[:3000]):
        line = body[body.rfind("\n", 0, match.start()) + 1 : match.start()].lstrip()
        if not re.match(r"([-*+]|\d+[.)])\s", line):
            return True
    return False


def is_internal(activity: Activity, project: Project) -> bool:
    """True when no user of the project sees the change (see the module docstring)."""
    parts = split_title(activity.title)
    about_tests = bool(_ABOUT_TESTS.match(parts.subject) or _TEST_SETTING.search(parts.subject))
    if project.audience == "maintainers":
        # CI is the product; its own tests are still no one's news.
        paths = [f.path for f in activity.files]
        return about_tests or (bool(paths) and all(is_test_path(p) for p in paths))
    kind = parts.kind
    if kind != "feat" and _says_unseen(activity.body):
        return True  # its author says no user sees it, whatever note it writes
    if has_release_note(activity):
        return False
    first = activity.title.split(maxsplit=1)[0].rstrip(":").lower() if activity.title else ""
    # "TST FIX …", "FIX CI …": any type word of tests, CI or benchmarks says so.
    if kind in _UNCHANGED_KINDS or _INTERNAL_KINDS & {kind, *parts.kinds}:
        return True
    if about_tests or _RUNS_TESTS.match(parts.subject):
        return True
    # A tag that opens with a type word of tests, CI or a rework: "CI GPU run: Remove X",
    # "[refactor] Move comparison helpers".
    quiet = _INTERNAL_KINDS | _UNCHANGED_KINDS
    if any(tag.split()[0].lower() in quiet for tag in parts.tags if tag.split()):
        return True
    if _REWORKED.match(parts.subject) and (
        kind not in ("feat", "fix") or _REVIEW.search(parts.subject)
    ):
        return True  # a rework; a round of review, whatever type its title gives it
    paths = [f.path for f in activity.files]
    if not paths:
        return kind in _INTERNAL_KINDS or first in _INTERNAL_KINDS
    if _IN_CI.search(parts.subject) and all(is_ci_path(p) or is_build_path(p) for p in paths):
        # "Use locked dependencies in CI": the title says where it runs, and the manifest
        # and lock file it touches beside the workflows are CI's tools
        return True
    internal = [is_internal_path(p, project) for p in paths]
    if all(internal):
        return True
    if any(internal) and all(
        i or is_housekeeping_path(p) for i, p in zip(internal, paths, strict=True)
    ):
        # Tests with the toolchain they run on ("use a more recent nightly for X tests":
        # `rust-toolchain` and test snapshots), or the lockfile beside them: no user runs it
        return True
    # Docs beside tests or tooling are the docs of that tooling; docs alone are docs.
    return any(internal) and all(i or is_doc_path(p) for i, p in zip(internal, paths, strict=True))


# ---------------------------------------------------------------- security

_FORK_MERGE = re.compile(r"^merge\s+(commit|branch|pull request)\b.*\bfrom\s+(a\s+)?fork\b", re.I)
_ADVISORY = re.compile(r"\b(GHSA(-[0-9a-z]{4}){3}|CVE-\d{4}-\d{4,})\b", re.I)
_FLAW = re.compile(
    r"\b(vulnerab\w*|path[- ]traversal|directory[- ]traversal|XSS|cross[- ]site\s+scripting"
    r"|prototype[- ]pollution|ReDoS|DOM[- ]clobbering|SSRF|CSRF|RCE|remote\s+code\s+execution"
    r"|code\s+injection|command\s+injection|SQL\s+injection|open\s+redirect"
    r"|security\s+(fix|advisory|issue|vulnerability)"
    # memory-safety flaws, which an untrusted input (a file, a request) can reach
    # (an identifier's underscores too: "out_of_bounds_read")
    r"|out[-_ ]of[-_ ]bounds[_\s]+(read|write|access)|(buffer|heap)[_\s]+overflows?"
    r"|use[-_ ]after[-_ ]free|double[-_ ]free|null[_\s]+(pointer[_\s]+)?dereference"
    r"|memory\s+corruption)\b",
    re.I,
)
_INTEGER_OVERFLOW = re.compile(r"\b(integer|int\d*|size|pointer)\s+overflows?\b", re.I)
# What an integer overflow guards when it is a memory-safety flaw.
_MEMORY_CONTEXT = re.compile(
    r"\b(bounds?|size\w*|offsets?|alloc\w*|buffers?|lengths?|segments?|indices|index)\b", re.I
)
# The project's own words that someone could use the bug against its users.
_THREAT = re.compile(
    r"\b(attackers?|malicious|untrusted|crafted|exploit\w*|adversar\w*|vulnerab\w*"
    r"|security\s+(fix|issue|bug|advisory|audit|finding|hardening))\b",
    re.I,
)
# "Add XSS test", "docs: explain CSRF": words about a flaw that fix none.
_NOT_A_FIX = re.compile(r"^(docs?|test|tests|ci|chore\(deps|build\(deps)", re.I)


def is_security_fix(activity: Activity, subject: str, body: str) -> bool:
    """True when the change says it fixes a security flaw (see the module docstring)."""
    title = activity.title
    if _FORK_MERGE.match(title):
        return True
    parts = split_title(title)
    if any(topic_key(x) == "security" for x in (*parts.tags, parts.kind or "", parts.scope or "")):
        # The scope names the area; a change there that loosens a check and names no flaw
        # or advisory is no fix of one: "fix(security): skip allowedDomains header check for
        # prerendered routes" silences a warning, and upgrading for it is no [immediate].
        named = _ADVISORY.search(title) or _ADVISORY.search(body) or _FLAW.search(subject)
        return named is not None or not _LOOSENS.match(subject)
    if any("security" in topic_key(label) for label in activity.labels):
        return True
    if _NOT_A_FIX.match(title):
        return False
    if _ADVISORY.search(title) or _FLAW.search(subject):
        return True
    if _INTEGER_OVERFLOW.search(subject) and (
        _MEMORY_CONTEXT.search(_INTEGER_OVERFLOW.sub(" ", subject)) or _THREAT.search(body)
    ):
        return True
    return _ADVISORY.search(body) is not None


# What loosens a check rather than closing a hole: skipping, relaxing or silencing a check,
# a validation or a warning ("skip allowedDomains header check for prerendered routes").
_LOOSENS = re.compile(
    r"^(skip|relax|silenc|suppress|loosen)\w*\s+(\S+\s+){0,4}?"
    r"(checks?|validations?|verifications?|warnings?)\b",
    re.I,
)


def advisory_of(activity: Activity) -> str | None:
    """The first security advisory (GHSA-…, CVE-…) the change's title or description names,
    in the case its registry writes it, or None."""
    found = _ADVISORY.search(activity.title) or _ADVISORY.search(activity.body)
    if found is None:
        return None
    name = found.group(0)
    return f"GHSA{name[4:].lower()}" if name.upper().startswith("GHSA") else name.upper()


def names_flaw(text: str) -> bool:
    """True when `text` names a class of flaw ("prevents XSS on …", "path traversal"): what a
    reader of a security fix most needs to hear."""
    return _FLAW.search(text) is not None


def is_fork_merge(title: str) -> bool:
    """True for "Merge commit from fork": a title that says nothing of the change."""
    return _FORK_MERGE.match(title) is not None


# The first bullet of a squashed fork merge ("* fix: move runtime properties to symbols").
_BULLET = re.compile(r"^\s*[*-]\s+(?!co-authored|signed-off|update\s)(\S.{8,120})$", re.I | re.M)


def fork_subject(activity: Activity, releases: list[Activity]) -> str | None:
    """What a fork merge fixes, in a changelog line of a release in `releases` that cites its
    sha ("- fix: prevent XSS on `hydratable` … ([`a16ebc6…`](…))"), else its body's first
    bullet; None when neither says."""
    for release in releases:
        for line in _entries(release.body):
            if activity.sha[:7] in line:
                return _entry_text(line)
    match = _BULLET.search(activity.body)
    return match.group(1).strip() if match else None


def _entries(body: str) -> list[str]:
    """The bullet entries of a changelog body, each joined onto one line."""
    entries: list[str] = []
    for line in body.splitlines():
        if re.match(r"^\s*[-*]\s+", line):
            entries.append(line.strip())
        elif entries and line.strip() and not line.lstrip().startswith("#"):
            entries[-1] += " " + line.strip()
        elif not line.strip() and entries:
            entries.append("")
    return [e for e in entries if e]


def _entry_text(line: str) -> str:
    text = re.sub(r"^[-*]\s+", "", line)
    text = re.sub(r"\s*\(\[[^\]]*\]\([^)]*\)\)\s*$", "", text)  # "([`sha`](url))"
    text = re.sub(r"\s*\(\[#\d+\]\([^)]*\)\)\s*$", "", text)
    return text.strip()


# ---------------------------------------------------------------- housekeeping

_HOUSEKEEPING_TITLE = re.compile(
    r"\b(changelog|release\s+notes|translations?|i18n|l10n|sponsors?|contributors?\s+(list|page)"
    r"|people\s+page|team\s+page)\b",
    re.I,
)
_HOUSEKEEPING_PATH = re.compile(
    r"(^|/)(CHANGELOG[^/]*|CHANGES[^/]*|HISTORY[^/]*|NEWS[^/]*|RELEASE[-_]?NOTES[^/]*)$"
    # translation files, not the code that serves them ("src/i18n/router.ts" routes)
    r"|(^|/)(locales?|i18n|l10n|translations?|lang)/([^/]+/)*[^/]+\.(json|ya?ml|po|pot|mo|md|mdx"
    r"|properties|xliff|xlf|ftl|toml|txt)$"
    # a changeset's entry, not its settings (`config.json`, pre mode's `pre.json`)
    r"|(^|/)(sponsors?|people|team|contributors)[^/]*$|(^|/)\.changeset/[^/]+\.md$",
    re.I,
)


_CHANGESET_ENTRY = re.compile(r"(^|/)\.changeset/[^/]+\.md$")
# A fix of wording or links, not of what the notes say: "fix have have typo".
_WORDING_FIX = re.compile(r"\b(typos?|spelling|grammar|wording|links?|urls?)\b", re.I)


# A version number in a documentation change's title: it writes up a release ("vite 8.1
# post", "Add On-Prem 0.5.0 release"); not who runs one ("the 3.12 release shepherd").
_RELEASE_POST = re.compile(r"(?<![\w.])v?\d+\.\d+(\.\d+)?(?![\w.])")
# … who runs a release, or how: "volunteer for release shepherd of 3.14" names people.
_RELEASE_ROLE = re.compile(
    r"\b(shepherds?|managers?|captains?|leads?|volunteer\w*|rota|schedule|process|checklist)\b",
    re.I,
)

# … with a word that says so: "update tox python version to 3.12" writes up no release.
_RELEASE_WORD = re.compile(
    r"\b(releases?|released|post|notes|changelog|announc\w*|blog|what'?s\s+new|highlights)\b", re.I
)


def housekeeping_of(subject: str, paths: list[str], *, title: str = "") -> str | None:
    """ "translations", "changelog" or "people" for a housekeeping change, else None.
    `title`, the whole title, says a typo fix where its subject leaves it out ("Fix typo in
    release notes: 'have have' → 'have'" has the subject after its colon)."""
    if paths and all(_HOUSEKEEPING_PATH.search(p) or is_doc_path(p) for p in paths):
        found = [m.group(0).lower() for p in paths if (m := _HOUSEKEEPING_PATH.search(p))]
        # A changeset's entry goes with the change it notes (a README fix): no changelog
        # of its own; and a typo or a link fixed in old notes is docs wording.
        entries = all(_CHANGESET_ENTRY.search(f) for f in found)
        if found and not (entries and len(found) < len(paths)):
            kind = _what(" ".join(found) + " " + subject)
            wording = _WORDING_FIX.search(subject) or _WORDING_FIX.search(title)
            return None if kind == "changelog" and wording else kind
    if (
        paths
        and all(is_doc_path(p) for p in paths)
        and _RELEASE_POST.search(subject)
        and _RELEASE_WORD.search(subject)
    ):
        if _RELEASE_ROLE.search(subject):
            # who runs a release: the project's own process, no contributor or sponsor page
            return "housekeeping" if re.search(r"shepherd|volunteer|rota", subject, re.I) else None
        return "changelog"  # "vite 8.1 post", "Add On-Prem 0.5.0 release": release notes
    match = _HOUSEKEEPING_TITLE.search(subject)
    if match and (not paths or all(is_doc_path(p) or _HOUSEKEEPING_PATH.search(p) for p in paths)):
        kind = _what(match.group(0))
        # a typo fixed in old notes is docs wording, not notes of this release
        wording = _WORDING_FIX.search(subject) or _WORDING_FIX.search(title)
        return None if kind == "changelog" and wording else kind
    return None


def _what(text: str) -> str:
    text = text.lower()
    if re.search(r"locale|i18n|l10n|translat|lang/", text):
        return "translations"
    if re.search(r"sponsor|people|team|contributor", text):
        return "people"
    return "changelog"
