"""`git:PATH` — the first-parent history of a local clone, read offline with `git log`.

One `git log -z` process streams the whole window. Every commit starts with a record
marker, its header fields and message are NUL-terminated, and the `--raw`/`--numstat`
entries that follow name their paths in NUL-terminated tokens, so messages and paths
with any characters parse safely.

Git never touches the network here: lazy fetching of promisor objects is switched off
and every transport is disallowed. In a partial clone (`--filter=blob:none`) the blobs
that line counts need are missing, so such clones are read without `--numstat` and their
counts are None; a clone whose `--numstat` run fails for any other reason is re-read the
same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from digest.errors import SourceError
from digest.model import Activity, FileChange, Window
from digest.sources.commits import activity_from_commit

# Git stops walking at the first commit older than --since, so a commit with a skewed
# committer date could hide older ones that are in the window; ask git for a margin more.
_SINCE_MARGIN = timedelta(days=1)
# Git misreads dates far from now, so bounds outside this range are left to Python alone.
_GIT_DATES = (datetime(1971, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))
_TRUE = ("true", "yes", "on", "1")
_CHUNK = 1 << 16
_NOT_YET_READ = datetime.min.replace(tzinfo=UTC)

_FORMAT = "--format=%x1e%H%x00%an%x00%cI%x00%B"
_MARKER = re.compile(rb"\x1e([0-9a-f]{40}|[0-9a-f]{64})")
_NUMSTAT = re.compile(rb"(\d+|-)\t(\d+|-)\t(.*)", re.DOTALL)

_OWNER_NAME = re.compile(r"[\w.-]+/[\w.-]+")
_GITHUB_URL = re.compile(
    r"(?:(?:https?|git|ssh|git\+ssh)://(?:[^@/]+@)?(?:www\.|ssh\.)?github\.com(?::\d+)?/"
    r"|(?:[^@/:]+@)?(?:ssh\.)?github\.com:/?)"
    r"(?P<owner>[\w.-]+)/(?P<name>[\w.-]+?)(?:\.git)?/?",
    re.IGNORECASE,
)

# Variables that would make git read some other repository than the one at PATH.
_REPO_LOCATING_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)


class GitSource:
    """Reads the first-parent history of `ref` in a local clone, without network access."""

    scheme = "git"

    def __init__(self, path: str | Path, *, repo: str | None = None, ref: str = "HEAD") -> None:
        self.path = Path(path).expanduser()
        self.ref = ref
        if not self.path.is_dir():
            raise SourceError(
                f"git source path {self.path} does not exist or is not a directory; "
                "pass git:PATH to a local clone"
            )
        if repo is not None and not _OWNER_NAME.fullmatch(repo):
            raise SourceError(
                f"repository {repo!r} is not of the form OWNER/NAME; pass --repo OWNER/NAME"
            )
        self.repo = repo
        self._root = self.path.resolve()

    @property
    def description(self) -> str:
        return f"git:{self.path}"

    async def fetch(self, window: Window) -> AsyncIterator[Activity]:
        """Yield the commits of `ref` whose committer date falls in `window`, newest first."""
        await self._check_repository()
        repo = self.repo or await self._repo_from_origin()
        if not await self._ref_exists():
            return
        with_counts = not await self._is_partial_clone()
        yielded: set[str] = set()
        # `aclosing`: a reader that stops early closes the `git log` run (kills and reaps it)
        # now, not whenever the abandoned generator is collected, perhaps after its loop.
        try:
            async with contextlib.aclosing(self._log(window, with_counts=with_counts)) as log:
                async for commit in log:
                    if window.contains(commit.committed_at):
                        yielded.add(commit.sha)
                        yield commit.activity(repo)
        except _GitFailed as failure:
            if not with_counts:
                raise SourceError(f"git log failed in {self.path}: {failure}") from None
            # Most likely a blob is missing; read the rest again without line counts.
            try:
                async with contextlib.aclosing(self._log(window, with_counts=False)) as log:
                    async for commit in log:
                        if window.contains(commit.committed_at) and commit.sha not in yielded:
                            yield commit.activity(repo)
            except _GitFailed as again:
                raise SourceError(f"git log failed in {self.path}: {again}") from None

    async def _check_repository(self) -> None:
        code, _, err = await self._git("rev-parse", "--absolute-git-dir")
        if code != 0:
            if b"not a git repository" in err:
                raise SourceError(
                    f"{self.path} is not a git repository; pass git:PATH to the top of a local clone"
                )
            raise SourceError(f"git cannot read {self.path}: {_complaint(err)}")

    async def _repo_from_origin(self) -> str:
        code, out, _ = await self._git("remote", "get-url", "origin")
        if code != 0:
            raise SourceError(
                f"{self.path} has no origin remote to name its GitHub repository; "
                "pass --repo OWNER/NAME"
            )
        url = out.decode(errors="replace").strip()
        match = _GITHUB_URL.fullmatch(url)
        if match is None:
            raise SourceError(
                f"the origin of {self.path} ({_without_credentials(url)}) is not a GitHub "
                "repository URL; pass --repo OWNER/NAME"
            )
        self.repo = f"{match['owner']}/{match['name']}"
        return self.repo

    async def _ref_exists(self) -> bool:
        """False for the unborn HEAD of an empty repository; an unknown other ref is an error."""
        code, _, _ = await self._git(
            "rev-parse", "--verify", "--quiet", "--end-of-options", f"{self.ref}^{{commit}}"
        )
        if code == 0:
            return True
        if self.ref == "HEAD":
            return False
        raise SourceError(
            f"{self.path} has no commit named {self.ref!r}; pass a branch, tag or commit it has"
        )

    async def _is_partial_clone(self) -> bool:
        code, out, _ = await self._git(
            "config", "--get-regexp", r"^(extensions\.partialclone|remote\..*\.promisor)$"
        )
        if code != 0:
            return False
        for line in out.decode(errors="replace").splitlines():
            key, _, value = line.partition(" ")
            if key == "extensions.partialclone" or value.strip().lower() in _TRUE:
                return True
        return False

    async def _log(self, window: Window, *, with_counts: bool) -> AsyncIterator[_Commit]:
        """Stream the commits of one `git log` run; raise _GitFailed when git fails."""
        diff = ["--numstat", "-M"] if with_counts else ["-M100%"]  # exact renames need no blobs
        process = await self._start(
            "log",
            "--first-parent",
            "--diff-merges=first-parent",
            "--root",
            "-z",
            _FORMAT,
            "--encoding=UTF-8",
            "--no-color",
            "--no-abbrev",
            "--no-ext-diff",
            "--no-textconv",
            "--no-show-signature",
            "--raw",
            *diff,
            *_date_limits(window),
            "--end-of-options",
            self.ref,
            "--",
        )
        assert process.stdout is not None and process.stderr is not None
        errors = asyncio.create_task(process.stderr.read())
        parser = _LogParser()
        try:
            pending: list[bytes] = []
            while chunk := await process.stdout.read(_CHUNK):
                *complete, rest = chunk.split(b"\0")
                if complete:
                    complete[0] = b"".join([*pending, complete[0]])
                    pending = []
                    for token in complete:
                        if (commit := parser.feed(token)) is not None:
                            yield commit
                pending.append(rest)
            if await process.wait() != 0:
                raise _GitFailed(_complaint(await errors))
            if (commit := parser.finish()) is not None:
                yield commit
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
            errors.cancel()

    async def _git(self, *args: str) -> tuple[int, bytes, bytes]:
        process = await self._start(*args)
        out, err = await process.communicate()
        assert process.returncode is not None
        return process.returncode, out, err

    async def _start(self, *args: str) -> asyncio.subprocess.Process:
        try:
            return await asyncio.create_subprocess_exec(
                "git",
                "--no-pager",
                "-C",
                str(self._root),
                *args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=_offline_environment(self._root),
            )
        except FileNotFoundError:
            raise SourceError(
                "git is not installed or not on PATH; install git to read git:PATH"
            ) from None


class _GitFailed(Exception):
    """`git log` failed or printed what we cannot parse; the message says which."""


@dataclass
class _Commit:
    sha: str
    author: str = ""
    committed_at: datetime = _NOT_YET_READ
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


class _LogParser:
    """Turns the NUL-separated tokens of our `git log -z` output into commits.

    `feed` returns the previous commit once the next one starts; `finish` returns the last.
    Header fields and paths are consumed by count, so they are never mistaken for markers.
    """

    def __init__(self) -> None:
        self._commit: _Commit | None = None
        self._kind = ""
        self._details: tuple[bytes, ...] = ()
        self._fields: list[bytes] = []
        self._wanted = 0

    def feed(self, token: bytes) -> _Commit | None:
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
            self._commit = _Commit(sha=marker[1].decode())
            self._expect("header", (), 3)  # author, committer date, message
            return finished
        if self._commit is None:
            raise _GitFailed(f"unexpected output before the first commit: {text[:40]!r}")
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
            raise _GitFailed(f"unexpected output in commit {self._commit.sha}: {text[:40]!r}")
        return None

    def finish(self) -> _Commit | None:
        if self._wanted:
            raise _GitFailed("the output ended in the middle of a commit")
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


def _date_limits(window: Window) -> list[str]:
    """--since/--until a little wider than `window`; the caller filters it exactly."""
    earliest, latest = _GIT_DATES
    limits = []
    if window.since > earliest + _SINCE_MARGIN:
        limits.append(f"--since={_git_date(window.since - _SINCE_MARGIN)}")
    if window.until < latest:
        limits.append(f"--until={_git_date(window.until + timedelta(seconds=1))}")
    return limits


def _git_date(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def _complaint(stderr: bytes) -> str:
    """The line of git's stderr that says what went wrong: its last fatal error, if any."""
    lines = [line.strip() for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (errors or lines or ["no error message"])[-1]


def _without_credentials(url: str) -> str:
    return re.sub(r"//[^@/]+@", "//", url)


def _offline_environment(root: Path) -> dict[str, str]:
    """The environment for git: this repository only, no prompts, no fetching, no transports."""
    env = {k: v for k, v in os.environ.items() if k not in _REPO_LOCATING_VARIABLES}
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_NO_LAZY_FETCH="1",  # never fetch missing objects (git 2.39.4, 2.45.1 and later)
        GIT_ALLOW_PROTOCOL="",  # and for older git: every transport is disallowed
        GIT_OPTIONAL_LOCKS="0",
        GIT_CEILING_DIRECTORIES=str(root.parent),
        LC_ALL="C",
    )
    return env
