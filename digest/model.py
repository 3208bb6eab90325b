"""The domain model of a digest: what happened (Activity) and what we write about it (Story).

Payload shapes of GitHub, git or the replay format stay in their source modules; only
normalized, source-independent records live here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

Urgency = Literal["immediate", "monitor", "plan"]
URGENCIES: tuple[Urgency, ...] = ("immediate", "monitor", "plan")


# A citation in a story's text: "[3]", or "[ref:3]" as a draft writes it.
CITATION = re.compile(r"\[(?:ref:)?(\d+)\]")


def cited_numbers(text: str) -> list[int]:
    """Every citation number in `text`, in order ("[3]" and "[ref:3]" forms)."""
    return [int(n) for n in CITATION.findall(text)]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FileChange(_Frozen):
    """One file a change touched; counts are None for binary files or when unknown."""

    path: str
    status: str = "M"
    additions: int | None = None
    deletions: int | None = None

    @property
    def lines(self) -> int:
        return (self.additions or 0) + (self.deletions or 0)


class Activity(_Frozen):
    """One change that landed on a repository's default branch (a merged PR or a commit)."""

    repo: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    sha: str
    number: int | None = None
    title: str
    body: str = ""
    author: str = ""
    landed_at: AwareDatetime
    url: str | None = None
    labels: tuple[str, ...] = ()
    files: tuple[FileChange, ...] = ()

    @property
    def link(self) -> str:
        """The canonical URL of the change: its PR if known, else its commit."""
        if self.url:
            return self.url
        if self.number is not None:
            return f"https://github.com/{self.repo}/pull/{self.number}"
        return f"https://github.com/{self.repo}/commit/{self.sha}"

    @property
    def lines_changed(self) -> int:
        return sum(f.lines for f in self.files)

    @property
    def key(self) -> tuple[str, str]:
        """What makes a change one change across sources: its repository (any case) and sha."""
        return self.repo.lower(), self.sha


class Window(_Frozen):
    """A half-open time interval [since, until) in UTC."""

    since: AwareDatetime
    until: AwareDatetime

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.since >= self.until:
            raise ValueError(f"window starts ({self.since}) at or after it ends ({self.until})")
        return self

    def contains(self, moment: datetime) -> bool:
        return self.since <= moment < self.until

    def label(self, zone: str | None = None) -> str:
        """The window as a reader reads it: "2026-05-25 00:00 – 2026-05-27 00:00 UTC", or
        in `zone` (an IANA name) "Mon 09:30 – Tue 09:30 CET", with dates once it spans
        more than six days."""
        if zone is None or zone == "UTC":
            return f"{_minute(self.since)} – {_minute(self.until)} UTC"
        local = ZoneInfo(zone)
        since, until = self.since.astimezone(local), self.until.astimezone(local)
        shape = "%a %H:%M" if until - since <= timedelta(days=6) else "%a %Y-%m-%d %H:%M"
        return f"{since.strftime(shape)} – {until.strftime(shape)} {until.tzname()}"


def _minute(moment: datetime) -> str:
    """ "0001-01-01 00:00": the year zero-padded (strftime's %Y is not, on glibc)."""
    utc = moment.astimezone(UTC)
    return f"{utc.year:04d}-{utc:%m-%d %H:%M}"


class Reference(_Frozen):
    """A numbered source the story cites; numbers follow the order of first citation."""

    n: int = Field(ge=1)
    repo: str
    number: int | None
    title: str
    url: str
    sha: str = ""


class Sentence(_Frozen):
    """One body sentence; `refs` are the reference numbers it cites, in order."""

    text: str
    refs: tuple[int, ...] = ()


class Section(_Frozen):
    """A headed run of body sentences, `body[start:end]`, in a story of a longer window.

    The body stays the flat list of sentences; sections only say where headings go.
    """

    heading: str
    start: int = Field(ge=0)
    end: int = Field(ge=1)


Paragraph = tuple[str | None, tuple[Sentence, ...]]


def check_sections(body: Sequence[Sentence], sections: Sequence[Section]) -> None:
    """Raise ValueError unless `sections` are in order, disjoint and within `body`."""
    position = 0
    for section in sections:
        if not position <= section.start < section.end <= len(body):
            raise ValueError(
                f"section {section.heading!r} ({section.start}–{section.end}) overlaps "
                f"another or runs past the body's {len(body)} sentences"
            )
        position = section.end


def paragraphs_of(body: Sequence[Sentence], sections: Sequence[Section]) -> list[Paragraph]:
    """`body` in reading order as (heading or None, its sentences), covering every sentence:
    each section under its heading, and any run between sections under None."""
    body = tuple(body)
    result: list[Paragraph] = []
    position = 0
    for section in sections:
        if section.start > position:
            result.append((None, body[position : section.start]))
        result.append((section.heading, body[section.start : section.end]))
        position = section.end
    if position < len(body):
        result.append((None, body[position:]))
    return result


class ActionItem(_Frozen):
    """Something a reader must do, tagged with how urgent it is and the repo it concerns."""

    id: str
    text: str
    urgency: Urgency
    repo: str
    refs: tuple[int, ...] = ()


class CheckFigures(_Frozen):
    """The figures of the judging rules 1–7 (see digest.check)."""

    dangling_citations: int
    attribution: float
    action_integrity: float
    canonical_names: float
    coverage: float
    reverts_cited: float
    redundancy: float
    headline_chars: int
    body_sentences: int
    body_words: int
    problems: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.problems


class Story(_Frozen):
    """A composed news story: headline, lede, cited body, action items and references."""

    id: str
    window: Window
    repos: tuple[str, ...]
    topic: str | None = None
    headline: str
    lede: str
    body: tuple[Sentence, ...] = ()
    sections: tuple[Section, ...] = ()
    action_items: tuple[ActionItem, ...] = ()
    references: tuple[Reference, ...] = ()
    # The changes the headline tells, as `repo@sha`, first project first: what an editor
    # would be asked "why does this lead?" about.
    lead: tuple[str, ...] = ()
    checks: CheckFigures | None = None

    @model_validator(mode="after")
    def _sections_fit(self) -> Story:
        check_sections(self.body, self.sections)
        return self

    def paragraphs(self) -> list[Paragraph]:
        """The body in reading order: (heading or None, its sentences), covering every sentence."""
        return paragraphs_of(self.body, self.sections)

    @property
    def is_empty(self) -> bool:
        """True for the explicit "no news" story of a quiet window."""
        return not self.references

    def reference(self, n: int) -> Reference | None:
        return next((r for r in self.references if r.n == n), None)


def stable_id(prefix: str, *parts: object) -> str:
    """A short, deterministic id: the same inputs always give the same id."""
    payload = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return f"{prefix}_{hashlib.sha256(payload.encode()).hexdigest()[:16]}"
