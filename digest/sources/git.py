"""`git:PATH` — the first-parent history of a local clone, read offline with `git log`.

`git rev-list` lists the window's commits (cheap: no diffs), then `git log --no-walk --stdin`
shows them with their files and line counts, in `git log -z` output that
`digest.sources.git_log` parses. Diffing for the line counts is nearly all of git's time,
and each commit's diff is independent of the others, so a long window is shown by one
`git log` per core, each given a contiguous slice of the list: their output is read side by
side and yielded in order, the first slice as it streams, the later ones from memory.

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
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from digest.errors import SourceError
from digest.model import Activity, Window
from digest.sources.git_env import complaint, offline_environment, without_credentials
from digest.sources.git_log import FORMAT, Commit, GitFailed, LogParser
from digest.sources.git_tags import tag_arguments, tags_in

# Git stops walking at the first commit older than --since, so a commit with a skewed
# committer date could hide older ones that are in the window; ask git for a margin more.
_SINCE_MARGIN = timedelta(days=1)
# Git misreads dates far from now, so bounds outside this range are left to Python alone.
_GIT_DATES = (datetime(1971, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))
_TRUE = ("true", "yes", "on", "1")
_CHUNK = 1 << 16
# At most this many `git log` runs side by side, and no run for fewer commits than this:
# below it, starting another process costs more than its share of the diffing saves.
_MAX_READERS = 4
_MIN_COMMITS_PER_READER = 64
_END = object()  # a slice's reader is done

_OWNER_NAME = re.compile(r"[\w.-]+/[\w.-]+")
_GITHUB_URL = re.compile(
    r"(?:(?:https?|git|ssh|git\+ssh)://(?:[^@/]+@)?(?:www\.|ssh\.)?github\.com(?::\d+)?/"
    r"|(?:[^@/:]+@)?(?:ssh\.)?github\.com:/?)"
    r"(?P<owner>[\w.-]+)/(?P<name>[\w.-]+?)(?:\.git)?/?",
    re.IGNORECASE,
)


class GitSource:
    """Reads the first-parent history of `ref` in a local clone, without network access."""

    scheme = "git"

    def __init__(
        self,
        path: str | Path,
        *,
        repo: str | None = None,
        ref: str = "HEAD",
        readers: int | None = None,
    ) -> None:
        """`readers`: how many `git log` runs show a window side by side; by default one per
        core for a long window (`reader_count`), one for a short one."""
        self.path = Path(path).expanduser()
        self.ref = ref
        self.readers = readers
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
        """Yield `ref`'s commits of `window`, newest first, then the release tags of the
        window, on `ref` or on release branches (`git_tags`)."""
        await self._check_repository()
        repo = self.repo or await self._repo_from_origin()
        if not await self._ref_exists():
            return
        with_counts = not await self._is_partial_clone()
        try:
            shas = await self._commits_in(window)
        except GitFailed as failure:
            raise SourceError(f"git log failed in {self.path}: {failure}") from None
        read: set[str] = set()
        # `aclosing`: a reader that stops early closes the `git log` runs (kills and reaps them)
        # now, not whenever the abandoned generator is collected, perhaps after its loop.
        try:
            async with contextlib.aclosing(self._log(shas, with_counts=with_counts)) as log:
                async for commit in log:
                    read.add(commit.sha)
                    if window.contains(commit.committed_at):
                        yield commit.activity(repo)
        except GitFailed as failure:
            if not with_counts:
                raise SourceError(f"git log failed in {self.path}: {failure}") from None
            # Most likely a blob is missing; show the rest again without line counts.
            rest = [sha for sha in shas if sha not in read]
            try:
                async with contextlib.aclosing(self._log(rest, with_counts=False)) as log:
                    async for commit in log:
                        if window.contains(commit.committed_at):
                            yield commit.activity(repo)
            except GitFailed as again:
                raise SourceError(f"git log failed in {self.path}: {again}") from None
        code, out, _ = await self._git(*tag_arguments())  # releases tagged in the window
        for tag in tags_in(out.decode(errors="replace"), repo, window) if code == 0 else ():
            yield tag

    async def _check_repository(self) -> None:
        code, _, err = await self._git("rev-parse", "--absolute-git-dir")
        if code != 0:
            if b"not a git repository" in err:
                raise SourceError(
                    f"{self.path} is not a git repository; pass git:PATH to the top of a local clone"
                )
            raise SourceError(f"git cannot read {self.path}: {complaint(err)}")

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
                f"the origin of {self.path} ({without_credentials(url)}) is not a GitHub "
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

    async def _log(self, shas: list[str], *, with_counts: bool) -> AsyncGenerator[Commit, None]:
        """Stream the commits `shas` in their order (see the module docstring); raise
        GitFailed when git fails."""
        queues: list[asyncio.Queue[object]] = []
        pumps: list[asyncio.Task[None]] = []
        readers = min(self.readers, len(shas)) if self.readers else reader_count(len(shas))
        for part in contiguous_slices(shas, readers):
            queues.append(asyncio.Queue())
            pumps.append(asyncio.create_task(self._pump(part, queues[-1], with_counts)))
        try:
            for queue in queues:
                while (item := await queue.get()) is not _END:
                    if isinstance(item, BaseException):
                        raise item
                    assert isinstance(item, Commit)
                    yield item
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)

    async def _commits_in(self, window: Window) -> list[str]:
        """The first-parent commits of `ref` within git's (wider) date limits, newest first."""
        code, out, err = await self._git(
            "rev-list", "--first-parent", *_date_limits(window), "--end-of-options", self.ref, "--"
        )
        if code != 0:
            raise GitFailed(complaint(err))
        return out.decode().split()

    async def _pump(self, shas: list[str], queue: asyncio.Queue[object], with_counts: bool) -> None:
        """Put the commits `_show` reads into `queue`, then `_END` or the failure."""
        try:
            async with contextlib.aclosing(self._show(shas, with_counts=with_counts)) as commits:
                async for commit in commits:
                    queue.put_nowait(commit)
        except Exception as exc:  # handed to the reader, which raises it in order
            queue.put_nowait(exc)
        else:
            queue.put_nowait(_END)

    async def _show(self, shas: list[str], *, with_counts: bool) -> AsyncGenerator[Commit, None]:
        """Stream the commits `shas`, in that order, from one `git log` run."""
        diff = ["--numstat", "-M"] if with_counts else ["-M100%"]  # exact renames need no blobs
        process = await self._start(
            "log",
            "--no-walk=unsorted",
            "--stdin",
            "--first-parent",
            "--diff-merges=first-parent",
            "--root",
            "-z",
            FORMAT,
            "--encoding=UTF-8",
            "--no-color",
            "--no-abbrev",
            "--no-ext-diff",
            "--no-textconv",
            "--no-show-signature",
            "--raw",
            *diff,
            "--",
            stdin=True,
        )
        assert process.stdin and process.stdout is not None and process.stderr is not None
        errors = asyncio.create_task(process.stderr.read())
        parser = LogParser()
        try:
            # git reads every revision from stdin before it writes, so this cannot deadlock.
            process.stdin.write("".join(f"{sha}\n" for sha in shas).encode())
            with contextlib.suppress(ConnectionError):  # git ended early: its status says why
                await process.stdin.drain()
            process.stdin.close()
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
                raise GitFailed(complaint(await errors))
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

    async def _start(self, *args: str, stdin: bool = False) -> asyncio.subprocess.Process:
        """Start git in the clone; `stdin`: with a pipe to write to, else /dev/null."""
        try:
            return await asyncio.create_subprocess_exec(
                "git",
                "--no-pager",
                "-C",
                str(self._root),
                *args,
                stdin=asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=offline_environment(self._root),
            )
        except FileNotFoundError:
            raise SourceError(
                "git is not installed or not on PATH; install git to read git:PATH"
            ) from None


def reader_count(commits: int) -> int:
    """How many `git log` runs to show `commits` commits with: one per core this process may
    use, within `_MAX_READERS` and `_MIN_COMMITS_PER_READER`."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(_MAX_READERS, cores or 1, commits // _MIN_COMMITS_PER_READER))


def contiguous_slices(shas: Sequence[str], count: int) -> list[list[str]]:
    """`shas` cut into `count` contiguous slices of nearly equal length (none if empty)."""
    if not shas:
        return []
    return [list(shas[len(shas) * i // count : len(shas) * (i + 1) // count]) for i in range(count)]


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
