"""The output of `git log -z` with our format (`FORMAT`), parsed into commits.

Every commit starts with a record marker; its header fields and message are NUL-terminated,
and the `--raw`/`--numstat` entries that follow name their paths in NUL-terminated tokens,
so messages and paths with any characters parse safely.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from digest.model import Activity, FileChange
from digest.sources.commits import activity_from_commit

FORMAT = "--format=%x1e%H%x00%an%x00%cI%x00%B"
NOT_YET_READ = datetime.min.replace(tzinfo=UTC)
_MARKER = re.compile(rb"\x1e([0-9a-f]{40}|[0-9a-f]{64})")
_NUMSTAT = re.compile(rb"(\d+|-)\t(\d+|-)\t(.*)", re.DOTALL)


class GitFailed(Exception):
    """`git log` failed or printed what we cannot parse; the message says which."""


@dataclass
class Commit:
    sha: str
    author: str = ""
    committed_at: datetime = NOT_YET_READ
    message: str = ""
    changes: list[tuple[str, str]] = field(default_factory=list)  # (status, path)
    counts: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)

    def activity(self, repo: str) -> Activity:
        files = [
            FileChange(path=path, status=status, additions=added, deletions=deleted)
            for status, path in self.changes
            for added, deleted in [self.counts.get(path, (None, None))]
        ]
        return activity_from_commit(
            repo=repo,
            sha=self.sha,
            author=self.author,
            landed_at=self.committed_at,
            message=self.message,
            files=files,
        )


class LogParser:
    """Turns the NUL-separated tokens of our `git log -z` output into commits.

    `feed` returns the previous commit once the next one starts; `finish` returns the last.
    Header fields and paths are consumed by count, so they are never mistaken for markers.
    """

    def __init__(self) -> None:
        self._commit: Commit | None = None
        self._kind = ""
        self._details: tuple[bytes, ...] = ()
        self._fields: list[bytes] = []
        self._wanted = 0

    def feed(self, token: bytes) -> Commit | None:
        if self._wanted:
            self._fields.append(token)
            self._wanted -= 1
            if not self._wanted:
                self._complete()
            return None
        text = token.lstrip(b"\n")
        if not text:
            return None
        if marker := _MARKER.fullmatch(text):
            finished = self._commit
            self._commit = Commit(sha=marker[1].decode())
            self._expect("header", (), 3)  # author, committer date, message
            return finished
        if self._commit is None:
            raise GitFailed(f"unexpected output before the first commit: {text[:40]!r}")
        if text.startswith(b":"):
            status = text.rsplit(b" ", 1)[-1][:1]
            self._expect("raw", (status,), 2 if status in (b"R", b"C") else 1)
        elif numstat := _NUMSTAT.fullmatch(text):
            added, deleted, path = numstat.groups()
            if path:
                self._expect("numstat", (added, deleted), 0)
                self._fields.append(path)
                self._complete()
            else:  # a rename: the old and the new path follow
                self._expect("numstat", (added, deleted), 2)
        else:
            raise GitFailed(f"unexpected output in commit {self._commit.sha}: {text[:40]!r}")
        return None

    def finish(self) -> Commit | None:
        if self._wanted:
            raise GitFailed("the output ended in the middle of a commit")
        finished, self._commit = self._commit, None
        return finished

    def _expect(self, kind: str, details: tuple[bytes, ...], wanted: int) -> None:
        self._kind, self._details, self._fields, self._wanted = kind, details, [], wanted

    def _complete(self) -> None:
        commit = self._commit
        assert commit is not None
        if self._kind == "header":
            author, committed_at, message = self._fields
            commit.author = _text(author)
            commit.committed_at = datetime.fromisoformat(committed_at.decode())
            commit.message = _text(message)
        elif self._kind == "raw":
            commit.changes.append((_text(self._details[0]), _text(self._fields[-1])))
        else:
            added, deleted = (None if n == b"-" else int(n) for n in self._details)
            commit.counts[_text(self._fields[-1])] = (added, deleted)


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")
