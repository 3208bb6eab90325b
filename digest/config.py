"""Project configuration: which repositories exist, what they are called, and their topics.

Canonical names come only from here, never from source text (the history misspells them).
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
import unicodedata
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from digest.errors import ConfigError
from digest.prose_settings import ProseSettings


@lru_cache(maxsize=8192)
def topic_key(name: str) -> str:
    """The lookup key of a topic name: case, accents, spaces and punctuation folded
    ("Cortex-M" → "cortexm", "Sätteri" → "satteri", as its folder spells it)."""
    if not name.isascii():
        name = unicodedata.normalize("NFKD", name)
    return re.sub(r"[^a-z0-9]+", "", name.lower())


class TopicRule(BaseModel):
    """A topic of a project: its display name, aliases and the path globs that mark a change."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    paths: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    @property
    def keys(self) -> set[str]:
        return {topic_key(self.name), *(topic_key(a) for a in self.aliases)}

    def matches_path(self, path: str) -> bool:
        return any(_glob(path, pattern) for pattern in self.paths)


def _glob(path: str, pattern: str) -> bool:
    if pattern.endswith("/**"):
        prefix = pattern[:-3]
        return path == prefix or path.startswith(prefix + "/")
    return fnmatch.fnmatchcase(path, pattern)


# Folders of tests and what only tests run (fixtures, playgrounds, end-to-end apps,
# benchmarks), at any depth; a folder named so, or so with a suffix after "_" ("tests_x/",
# "bench_y/"), holds tests. `topics.is_test_path` reads these.
TEST_FOLDERS: tuple[str, ...] = (
    "test", "tests", "testing", "__tests__", "__tests_dts__", "testdata", "test-data",
    "fixtures", "__fixtures__", "__snapshots__", "e2e", "playground", "playgrounds",
    "benchmark", "benchmarks", "bench", "benches",
)  # fmt: skip
# File names of tests, as globs.
TEST_FILES: tuple[str, ...] = (
    "test_*", "*_test.*", "*.test.*", "*.spec.*", "*_spec.rb", "conftest.py",
)  # fmt: skip
# Folders of work a project's users never run: tooling, scripts, examples, samples, and
# the folders of CI, editors and release tooling. With tests, CI and docs they make a
# change *internal* (`audience.is_internal`).
INTERNAL_FOLDERS: tuple[str, ...] = (
    "scripts", "script", "tools", "tooling", "examples", "example", "samples", "demo", "demos",
    "benchmarks", "benchmark", "benches", "fuzz", "fuzzing",
    ".github", ".ci", ".circleci", ".buildkite", ".gitlab", ".changeset", ".devcontainer",
    ".vscode", ".husky", ".config",
    # coding assistants' instructions and sandboxes
    ".agents", ".claude", ".cursor", ".gemini", ".codex",
)  # fmt: skip


class Project(BaseModel):
    """One repository The Wire follows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    repo: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    name: str
    aliases: tuple[str, ...] = ()
    source: str | None = None
    topics: tuple[TopicRule, ...] = ()
    # Title prefixes that are not topics ("[BE]", "[ez]" are dropped everywhere already).
    ignore_tags: tuple[str, ...] = ()
    # The web archive neither lists nor serves its stories without `[web] token`.
    private: bool = False
    # Folders whose subfolders are backends: a change under backends/arm/ happened in
    # "<name>'s Arm backend". Empty for a project that has none.
    backend_folders: tuple[str, ...] = ("backends",)
    # Who uses what the repository ships: "users" (a library, a tool) or "maintainers"
    # (CI infrastructure, where CI is the product). For "maintainers" no change is internal
    # and a back-out of CI work is watched like any other.
    audience: Literal["users", "maintainers"] = "users"
    # Folders whose changes users never see (with tests, CI and docs; see INTERNAL_FOLDERS),
    # and the project's own such folders besides them (a benchmark suite, a demo app).
    internal_folders: tuple[str, ...] = INTERNAL_FOLDERS
    extra_internal_folders: tuple[str, ...] = ()

    @property
    def owner_name(self) -> tuple[str, str]:
        owner, name = self.repo.split("/", 1)
        return owner, name

    @property
    def own_keys(self) -> frozenset[str]:
        """The topic keys of the project itself: its name and its repository's name."""
        return frozenset({topic_key(self.name), topic_key(self.owner_name[1])})

    def topic_for_key(self, key: str) -> TopicRule | None:
        return next((t for t in self.topics if key in t.keys), None)


# Folders whose every child is a package of its own ("crates/polars-core", "packages/vite").
PACKAGE_FOLDERS: tuple[str, ...] = (
    "crates", "packages", "libs", "lib", "pkg", "pkgs", "modules", "projects", "apps",
)  # fmt: skip
# Generic folder names: where code lives, not what it is about (compared by topic_key).
CONTAINER_FOLDERS: tuple[str, ...] = (
    *PACKAGE_FOLDERS,
    "src", "source", "sources",
    "internal", "cmd", "app", "components", "backends", "extensions",
    "extension", "plugins", "providers", "integrations", "contrib", "examples", "example",
    "samples", "scripts", "tools", "tooling", "utils", "util", "common", "shared", "misc",
    "third_party", "third-party", "vendor", "include", "python", "py", "bin", "main",
    "services", "models", "test", "tests", "testing", "docs", "doc", "documentation",
    "benchmarks", "benchmark", "bench", "build", "dist",
)  # fmt: skip

# Folders that are never a topic a reader follows, even where the project names a product
# like one ("python", "app" and "models" are folders of CONTAINER_FOLDERS, yet may be news).
GENERIC_FOLDERS = frozenset(
    {
        "src", "source", "sources", "lib", "libs", "packages", "pkg", "pkgs", "crates", "modules",
        "test", "tests", "testing", "specs", "e2e", "docs", "doc", "benchmarks", "benchmark",
        "bench", "examples", "samples", "scripts", "tools", "tooling", "utils", "util",
        "include", "vendor", "third-party", "third_party", "thirdparty", "dist", "bin", "cmd",
    }
)  # fmt: skip


class DigestSettings(BaseModel):
    """Knobs of composition; the defaults follow DIGEST.md."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stories_per_project: int = Field(default=3, ge=1, le=8)
    max_body_sentences: int = Field(default=8, ge=1)
    max_body_words: int = Field(default=180, ge=20)
    max_headline_chars: int = Field(default=110, ge=30)
    # Folders that only hold other folders: a topic is the first path component below them.
    container_folders: tuple[str, ...] = CONTAINER_FOLDERS
    # A folder that would name the topic of at least this share of a window's changes (of
    # at least `container_min_changes` changes) is a container too, whatever its name.
    container_share: float = Field(default=0.9, gt=0.5, le=1.0)
    container_min_changes: int = Field(default=8, ge=2)


class WireConfig(BaseModel):
    """The parsed project configuration file."""

    model_config = ConfigDict(extra="allow", frozen=True)

    projects: tuple[Project, ...] = ()
    digest: DigestSettings = DigestSettings()
    prose: ProseSettings = ProseSettings()  # [prose]: rules (default) or an LLM, on a leash

    @field_validator("projects")
    @classmethod
    def _unique_repos(cls, projects: tuple[Project, ...]) -> tuple[Project, ...]:
        seen: set[str] = set()
        for project in projects:
            if project.repo.lower() in seen:
                raise ValueError(f"project {project.repo} is configured twice")
            seen.add(project.repo.lower())
        return projects

    @cached_property
    def _by_repo(self) -> dict[str, Project]:
        return {p.repo.lower(): p for p in self.projects}

    def project(self, repo: str) -> Project:
        """The configured project of `repo`, or a default one named after the repository."""
        found = self._by_repo.get(repo.lower())
        if found is not None:
            return found
        return Project(repo=repo, name=repo.split("/", 1)[1])

    def is_configured(self, repo: str) -> bool:
        return repo.lower() in self._by_repo

    def resolve_repo(self, name: str) -> Project | None:
        """Find a project by `owner/repo`, alias or display name (case-insensitive)."""
        wanted = name.strip().lower()
        for project in self.projects:
            names = {
                project.repo.lower(),
                project.name.lower(),
                *(a.lower() for a in project.aliases),
            }
            if wanted in names:
                return project
        return None

    def known_topics(self, repo: str | None = None) -> list[str]:
        projects = [self.project(repo)] if repo else list(self.projects)
        return sorted({t.name for p in projects for t in p.topics}, key=str.lower)


def load_config(path: str | Path | None) -> WireConfig:
    """Read a TOML configuration; None gives an empty configuration (defaults everywhere)."""
    if path is None:
        return WireConfig()
    file = Path(path)
    try:
        raw = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {file} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {file} is not valid TOML: {exc}") from None
    try:
        return WireConfig.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"config file {file}: {where}: {first['msg']}") from None
