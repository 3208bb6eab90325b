"""Topics: what a reader would subscribe to (a backend, subsystem, crate, package or label).

A topic comes from title tags and area labels, and from each changed path: the configured
topic whose glob matches it (configuration always wins), else the first folder of the path
that is not a container. Container folders are the configured generic names (`src/`,
`crates/`, `tests/`, …), the project's own package name, and any folder that would name
nearly all of a window's changes. Test files, docs and tool folders never give a topic;
CI folders give "CI".

A derived topic is a place a reader could follow, or none (`followable`): never a commit
type ("Refactor", "SECURITY", "typing"), never a path ("feat/ui") unless a package's name
("@scope/pkg"), never the folder of an agent's or an experiment's tooling, never a fragment
of one to three letters ("Ma", "ali") unless the titles write it as an acronym ("CPU",
"RL"), it names a package (`crates/ty`) or the project writes it both as a prefix and as a
folder. A tag or conventional-commit scope names a place only when the change's own files
(not its docs) have a folder or file of that name ("fix(ui)" on `web/ui/…`, "promql:" on
`promql/…`); a change with no files is taken at its word. A name
keeps the project's case (`TopicContext.display`): as configured, as the titles write it
("CRCR", "OpenVINO", "SSR"), else as the paths and tags do ("promql", "tsdb", "ty"); only
an English word is capitalised by us ("compiler" → "Compiler").
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from digest.config import (
    PACKAGE_FOLDERS,
    TEST_FILES,
    TEST_FOLDERS,
    DigestSettings,
    Project,
    TopicRule,
    topic_key,
)
from digest.english.words import is_base_verb, parts_of_speech
from digest.model import Activity, FileChange
from digest.reading.title_tags import is_commit_type, reads_as_word
from digest.reading.titles import split_title

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
# Folders of tooling, nothing a project ships: a coding agent's (`agents/`, `skills/`,
# `commands/`, `prompts/`), experiments, patches to dependencies (pnpm's `patches/`) and
# benchmark harnesses (`benchmarking/`).
_TOOLING_FOLDERS = frozenset(
    {"agents", "skills", "commands", "prompts", "experiments", "patches", "benchmarking"}
)
# A word the titles capitalise inside a sentence: a name as the project writes it ("Samsung").
_NAME_WORD = re.compile(r"^[A-Z][a-z0-9]{2,}$")
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


def is_stub_path(path: str) -> bool:
    """True for a type stub (`.pyi`, `.d.ts`): what type checkers read, never what runs."""
    return path.endswith((".pyi", ".d.ts", ".d.mts", ".d.cts"))


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
        # A plain lower-case English word reads as a name ("compiler" → "Compiler"); any
        # other word keeps the project's case ("promql", "tsdb", "ty"), as identifiers do.
        return (
            name.capitalize() if name.isalpha() and name.islower() and reads_as_word(name) else name
        )


def followable(name: str, paths: Iterable[str] = (), *, folder: bool = False) -> bool:
    """True when a derived topic `name`, as displayed, is a place a reader could follow (see
    the module docstring); `paths` are the change's files, which may show it is a package.
    `folder` says a title's tag or scope of that name is also a folder the change touches
    ("fix(ui):" on `web/ui/…`): the project writes the short name both ways."""
    words = name.split()
    if not words or is_commit_type(words[0]):
        return False  # "Refactor", "SECURITY", "Typing", "SEC HRA example"
    if len(words) > 1 and is_base_verb(words[0]) and "NOUN" not in parts_of_speech(words[0]):
        return False  # a title's own clause taken for a prefix: "Refactor layer initialization"
    if "/" in name and not name.startswith("@"):
        return False  # "feat/ui": a path or a type and a scope, no package's name
    if len(topic_key(name)) > 3 or name == CI_TOPIC or folder:
        return True
    # A fragment: an acronym as the titles write it ("CPU", "RL"), a package's folder
    # ("crates/ty", "packages/uv"), or an English noun ("Web"); never "Ma" or "ali".
    if name.isupper() or (len(name) == 3 and "NOUN" in parts_of_speech(name.lower())):
        return True
    key = topic_key(name)
    return any(
        parent in PACKAGE_FOLDERS and topic_key(part) == key
        for path in paths
        for parent, part in itertools.pairwise(path.split("/")[:-1])
    )


def _named_in_paths(name: str, files: Iterable[FileChange], *, folders: bool = False) -> bool:
    """True when a folder or file (by its stem) of the change is named `name`, or each word of
    a name of several is one path's folder or file: the project has the part a tag or scope
    names ("fix(ui)" on `web/ui/…`, "fix(css)" on `plugins/css.ts`, "Mixed Model:" on
    `tuners/mixed/model.py`); with `folders`, a folder only. Documentation shows no part
    ("docs(blog):" on `docs/blog/`)."""
    key = topic_key(name)
    words = {topic_key(w) for w in name.split()} - {""}
    # "AWS SD" on `discovery/aws/`: a folder's name and the acronym of what it is part of
    first, *rest = name.split() or [""]
    acronym = bool(rest) and all(w.isupper() and w.isalpha() and len(w) <= 4 for w in rest)
    for change in files:
        if is_doc_path(change.path):
            continue
        parts = change.path.split("/")
        keys = {topic_key(p) for p in parts[:-1]}
        if not folders:
            keys.add(topic_key(parts[-1].split(".", 1)[0]))
        if key in keys or (len(words) > 1 and words <= keys):
            return True
        if acronym and topic_key(first) in keys:
            return True
    return False


def _tag_names(tags: Iterable[str]) -> list[str]:
    """The tags of a title as names: a tag with slashes ("feat/ui", "Grafana/OSDC") names
    each of its parts but its commit types; a package's name ("@scope/pkg") stays whole."""
    names: list[str] = []
    for tag in tags:
        if "/" in tag and not tag.startswith("@"):
            names += [p.strip() for p in tag.split("/") if p.strip() and not is_commit_type(p)]
        else:
            names.append(tag)
    return names


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
        if part.startswith(".") or key in _TOOLING_FOLDERS:
            return None  # editor, agent, tool and experiment folders
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
    """How the window writes names, from title tags ("[OpenVINO]", and each capitalised word
    of a tag of several), title words with a capital beyond the first letter ("CRCR",
    "XNNPACK") and capitalised words inside a title's sentence ("Samsung"): the commonest
    spelling with a capital wins, a tag's spelling before a word's; an all-lower-case tag
    only when no capitalised spelling exists ("[cuda]" and "CUDA" give "CUDA")."""
    seen: dict[str, Counter[str]] = {}
    for group in tags:
        for tag in group:
            seen.setdefault(topic_key(tag), Counter())[tag] += 2
            # Each capitalised word of a longer tag: "Qualcomm" of "Qualcomm AI Engine Direct".
            words = tag.split()
            for word in words if len(words) > 1 else ():
                if _NAME_WORD.match(word):
                    seen.setdefault(topic_key(word), Counter())[word] += 1
    for title in titles:
        for word in _CASED_WORD.findall(title):
            seen.setdefault(topic_key(word), Counter())[word] += 1
        # A name capitalised inside the title's sentence ("Fix Samsung backend …"), not
        # its first word, which every title capitalises.
        for word in split_title(title).subject.split()[1:]:
            word = word.strip(".,;:!?()'\"`")
            if _NAME_WORD.match(word) and not word.isupper():
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
    paths = [f.path for f in activity.files]
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
            if candidate != CI_TOPIC and not followable(names[0], paths):
                # No place a reader follows ("typing", "ali"): the change's code is the
                # project's, as a root file's would be.
                untopical_code |= _SOURCE.search(change.path) is not None and not (
                    is_ci_path(change.path) or is_test_path(change.path)
                )
                continue
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
    for tag in _tag_names(tags):
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
        elif key in derived_keys:
            add(context.display(tag, project))
        elif not project.topics and key not in blocked:
            # A tag or scope names a part the change's files show the project has; a
            # change without files is taken at its word.
            shown = _named_in_paths(tag, activity.files) or not activity.files
            folder = shown and _named_in_paths(tag, activity.files, folders=True)
            if shown and followable(name := context.display(tag, project), paths, folder=folder):
                add(name)
    for label in activity.labels:
        rule = project.topic_for_key(topic_key(label))
        area = label_topic(label)
        if rule is not None:
            add(rule.name)
        elif (
            area is not None
            and topic_key(area) not in blocked
            and followable(name := context.display(area, project), paths)
        ):
            add(name)
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
