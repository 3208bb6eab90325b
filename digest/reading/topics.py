"""Topics: what a reader would subscribe to (a backend, subsystem, crate, package or label).

A topic comes from title tags and area labels, and from each changed path: the configured
topic whose glob matches it (configuration always wins), else the first folder of the path
that is not a container. Container folders are the configured generic names (`src/`,
`crates/`, `tests/`, …), the project's own package name, and any folder that would name
nearly all of a window's changes. Test files, docs and tool folders never give a topic;
CI folders give "CI".
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from digest.config import TEST_FILES, TEST_FOLDERS, DigestSettings, Project, TopicRule, topic_key
from digest.model import Activity

# Files of source code, by extension: what a project builds and ships.
_SOURCE = re.compile(
    r"\.(py|pyx|rs|go|c|cc|cpp|cxx|h|hh|hpp|m|mm|swift|kt|java|scala|js|mjs|cjs|ts|tsx|jsx"
    r"|svelte|vue|rb|php|cs|zig|cu|cuh)$"
)

CI_TOPIC = "CI"
# A change of at least STRAY_MIN_FILES files puts a topic holding under 1/STRAY_SHARE of them last.
STRAY_MIN_FILES = 5
STRAY_SHARE = 5

_DOC_PATH = re.compile(
    r"(^|/)(docs?|documentation|\.wiki)/|\.(md|rst|adoc)$|(^|/)(?!cmakelists|requirements)[^/]*\.txt$",
    re.I,
)
_TEST_PATH = re.compile(
    r"(^|/)(" + "|".join(re.escape(f) for f in TEST_FOLDERS) + r")(/|_)"
    r"|(^|/)[\w.]+[-_](tests?|testing|benchmarks?)/"  # integration-tests/, unit_tests/
    + "".join(r"|(^|/)" + re.escape(g).replace(r"\*", "[^/]*") + "$" for g in TEST_FILES),
    re.I,
)  # fmt: skip
# Conventional-commit scopes and title tags that name a kind of work, not a part of the code.
_WORK_TAGS = frozenset({"deps", "dependencies", "dependabot", "release", "changelog", "style",
                        "lint", "chore", "misc", "wip", "build"})  # fmt: skip
# A word that carries its own capitals: "CRCR", "OpenVINO", "WebGPU" (not "Add" or "fix").
_CASED_WORD = re.compile(r"(?<![\w.-])[A-Za-z][a-z0-9]*[A-Z][\w-]*")
_CI_PATH = re.compile(r"^(\.github|\.ci|\.circleci|\.buildkite|\.gitlab)/|^\.gitlab-ci\.yml$")
# `area: arm`, `module/xnnpack`, `release notes: vulkan`: labels that name a part of a project.
_AREA_LABEL = re.compile(
    r"^(area|module|component|subsystem|scope|backend|crate|package|pkg|release notes)"
    r"\s*[:/]\s*(.+)$",
    re.I,
)


@lru_cache(maxsize=65536)  # a window's paths repeat across its changes and passes
def is_doc_path(path: str) -> bool:
    """True for documentation: a `docs/` tree or a prose file (Markdown, reST, plain text)."""
    return bool(_DOC_PATH.search(path))


# Where a project states how it is built: package manifests, toolchain pins, lockfiles.
_BUILD_PATH = re.compile(
    r"(^|/)(Cargo[^/]*\.toml|Cargo\.lock|rust-toolchain(\.toml)?|pyproject\.toml|setup\.cfg"
    r"|package\.json|[\w.-]*-lock\.(json|yaml)|[\w.-]+\.lock|go\.(mod|sum))$"
)


def is_build_path(path: str) -> bool:
    """True for a file that says how the project is built, not what it does."""
    return _BUILD_PATH.search(path) is not None


@lru_cache(maxsize=65536)  # a window's paths repeat across its changes and passes
def is_test_path(path: str) -> bool:
    """True for tests and benchmarks: a `tests/` tree, `test_x.py`, `x_test.go`, …."""
    return bool(_TEST_PATH.search(path))


@lru_cache(maxsize=65536)  # a window's paths repeat across its changes and passes
def is_ci_path(path: str) -> bool:
    """True for CI configuration (`.github/`, `.ci/`, …)."""
    return bool(_CI_PATH.search(path))


@dataclass(frozen=True)
class TopicContext:
    """What topic derivation knows beyond one change: the containers and spellings of a window."""

    generic: frozenset[str]
    containers: frozenset[str] = frozenset()  # topic keys of folders the window found generic
    spellings: dict[str, str] = field(default_factory=dict)  # key → spelling in the titles

    def display(self, name: str, project: Project) -> str:
        """The display name of a derived topic: configured, as tagged, or by a case rule."""
        key = topic_key(name)
        rule = project.topic_for_key(key)
        if rule is not None:
            return rule.name
        name = self.spellings.get(key, name)
        # A plain lower-case word reads as a name ("arm" → "Arm"); identifiers keep their form.
        return name.capitalize() if name.isalpha() and name.islower() else name


def own_names(project: Project) -> frozenset[str]:
    """Keys of the project's own names: a folder named after the project holds all its code."""
    return _own_names(project.repo, project.name, project.aliases)


@lru_cache(maxsize=256)
def _own_names(repo: str, name: str, aliases: tuple[str, ...]) -> frozenset[str]:
    return frozenset(topic_key(n) for n in (repo.split("/", 1)[1], name, *aliases)) - {""}


def _candidate(
    path: str, project: Project, generic: frozenset[str], skip: frozenset[str] = frozenset()
) -> str | None:
    """The first folder of `path` that can name a topic, or None."""
    return _first_topic_folder(path, generic | own_names(project), skip)


@lru_cache(maxsize=16384)
def _first_topic_folder(path: str, blocked: frozenset[str], skip: frozenset[str]) -> str | None:
    if is_ci_path(path):
        return CI_TOPIC
    if is_test_path(path) or is_doc_path(path):
        return None
    for part in path.split("/")[:-1]:
        key = topic_key(part)
        if part.startswith("."):
            return None  # editor, agent and tool folders
        if not key or key in blocked or key in skip:
            continue
        return part
    return None


# Glob results per rule set (keyed by identity: hashing the rules costs more than matching),
# with each rule's globs compiled into one pattern.
_GLOBBED: dict[
    int,
    tuple[tuple[TopicRule, ...], list[tuple[str, re.Pattern[str]]], dict[str, tuple[str, ...]]],
] = {}


def _rule_pattern(rule: TopicRule) -> re.Pattern[str]:
    """One pattern for a rule's globs, as `TopicRule.matches_path` reads them ("dir/**" is
    dir and everything below it; anything else is an fnmatch glob)."""
    parts = [
        re.escape(glob[:-3]) + r"(?:/.*)?\Z" if glob.endswith("/**") else fnmatch.translate(glob)
        for glob in rule.paths
    ]
    return re.compile("|".join(f"(?:{part})" for part in parts) or r"(?!)", re.S)


def glob_topics(rules: tuple[TopicRule, ...], path: str) -> tuple[str, ...]:
    """The configured topics whose globs match `path`, in configuration order."""
    held, compiled, seen = _GLOBBED.get(id(rules), ((), [], {}))
    if held is not rules:
        if len(_GLOBBED) > 64:
            _GLOBBED.clear()
        compiled, seen = [(r.name, _rule_pattern(r)) for r in rules], {}
        _GLOBBED[id(rules)] = (rules, compiled, seen)
    if path not in seen:
        seen[path] = tuple(name for name, pattern in compiled if pattern.match(path))
    return seen[path]


def build_context(
    activities: Iterable[Activity],
    project: Project,
    settings: DigestSettings,
    tags: Iterable[Iterable[str]] = (),
) -> TopicContext:
    """The topic context of one project's window: its data-driven containers, and the
    spellings its titles and title `tags` (one group per change) give names."""
    activities = list(activities)
    generic = frozenset(topic_key(f) for f in settings.container_folders)
    blocked = generic | own_names(project)  # what `_candidate` blocks, built once
    containers: set[str] = set()
    for _ in range(2):  # a container may hold another (`workspace/pkgname/…`)
        tops: Counter[str] = Counter()
        coded = 0
        skip = frozenset(containers)
        for activity in activities:
            found = {
                topic_key(c)
                for f in activity.files
                if (c := _first_topic_folder(f.path, blocked, skip)) is not None and c != CI_TOPIC
            }
            coded += any(
                not (is_test_path(f.path) or is_doc_path(f.path) or is_ci_path(f.path))
                for f in activity.files
            )
            tops.update(found)
        if not tops or coded < settings.container_min_changes:
            break
        key, count = tops.most_common(1)[0]
        if count < settings.container_share * coded:
            break
        containers.add(key)
    return TopicContext(
        generic=generic,
        containers=frozenset(containers),
        spellings=_spellings(tags, (a.title for a in activities)),
    )


def _spellings(tags: Iterable[Iterable[str]], titles: Iterable[str]) -> dict[str, str]:
    """How the window writes names, from title tags ("[OpenVINO]") and title words with a
    capital beyond the first letter ("CRCR", "XNNPACK"): the commonest spelling with a
    capital wins, a tag's spelling before a word's; an all-lower-case tag only when no
    capitalised spelling exists ("[cuda]" and "CUDA" give "CUDA")."""
    seen: dict[str, Counter[str]] = {}
    for group in tags:
        for tag in group:
            seen.setdefault(topic_key(tag), Counter())[tag] += 2
    for title in titles:
        for word in _CASED_WORD.findall(title):
            seen.setdefault(topic_key(word), Counter())[word] += 1
    found = {}
    for key, counts in seen.items():
        cased = [(n, name) for name, n in counts.most_common() if not name.islower()]
        found[key] = cased[0][1] if cased else counts.most_common(1)[0][0]
    return found


def default_context(settings: DigestSettings | None = None) -> TopicContext:
    """The context of a change seen on its own: configured containers only."""
    settings = settings or DigestSettings()
    return TopicContext(generic=frozenset(topic_key(f) for f in settings.container_folders))


def label_topic(label: str) -> str | None:
    """The part a label names (`area: arm` → `arm`), or None for process labels."""
    match = _AREA_LABEL.match(label.strip())
    return match.group(2).strip() if match else None


def topics_for(
    activity: Activity, project: Project, tags: Iterable[str], context: TopicContext
) -> tuple[str, ...]:
    """The topics of one change, most specific evidence first (see the module docstring)."""
    found: dict[str, str] = {}

    def add(name: str) -> None:
        if topic_key(name):
            found.setdefault(topic_key(name), name)

    blocked = context.generic | own_names(project)
    # Path topics by weight: the code a change touches leads, its CI, test and doc files
    # follow; a configured topic leads a derived one; more lines lead fewer.
    weights: dict[str, tuple[bool, bool, int]] = {}
    files: dict[str, int] = {}
    derived_keys: set[str] = set()
    # Source code with no topic of its own (a root `install_utils.py`) is the project's:
    # the change is not about the CI, test or doc files beside it.
    untopical_code = False
    for change in activity.files:
        names = glob_topics(project.topics, change.path)
        if not names:
            # `_candidate` of the path: `blocked` is the set it would build for every file
            candidate = _first_topic_folder(change.path, blocked, context.containers)
            if candidate is None:
                untopical_code |= _SOURCE.search(change.path) is not None and not (
                    is_ci_path(change.path) or is_test_path(change.path)
                )
                continue
            names = (context.display(candidate, project),)
            derived_keys.add(topic_key(names[0]))
        aside = is_ci_path(change.path) or is_test_path(change.path) or is_doc_path(change.path)
        for name in names:
            files[name] = files.get(name, 0) + 1
            was_aside, was_derived, lines = weights.get(name, (True, True, 0))
            weights[name] = (
                was_aside and aside,
                was_derived and topic_key(name) in derived_keys,
                lines - max(1, change.lines),
            )
    for tag in tags:
        key = topic_key(tag)
        rule = project.topic_for_key(key)
        if rule is not None:
            add(rule.name)
        elif key == topic_key(CI_TOPIC):
            add(CI_TOPIC)
        elif key in _WORK_TAGS:
            continue
        elif prefixed := next((d for d in derived_keys if d != key and key.startswith(d)), None):
            # "Qualcomm AI Engine Direct - …" on backends/qualcomm/ is the Qualcomm topic.
            add(next(n for n in weights if topic_key(n) == prefixed))
        elif key in derived_keys or (not project.topics and key not in blocked):
            add(context.display(tag, project))
    for label in activity.labels:
        rule = project.topic_for_key(topic_key(label))
        area = label_topic(label)
        if rule is not None:
            add(rule.name)
        elif area is not None and topic_key(area) not in blocked:
            add(context.display(area, project))
    # A topic holding under a fifth of a large change's files is a stray touch (one install
    # script among ten CI files): it follows the topics the change is about.
    many = len(activity.files) >= STRAY_MIN_FILES

    def order(name: str) -> tuple[bool, bool, bool, int]:
        stray = many and files[name] * STRAY_SHARE < len(activity.files)
        return (stray, *weights[name])

    for name in sorted(weights, key=order):
        if not (untopical_code and weights[name][0]):
            add(name)
    return tuple(found.values())
