"""GitSource against real temporary repositories built with the git CLI."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from digest.errors import SourceError
from digest.model import Activity, FileChange, Window
from digest.sources import open_source
from digest.sources.git import GitSource, contiguous_slices, reader_count

PDT = timezone(timedelta(hours=-7))
WINDOW = Window(since=datetime(2026, 5, 25, tzinfo=UTC), until=datetime(2026, 5, 26, tzinfo=UTC))
SQUASH_MESSAGE = (
    "Add the widget (#123)\n\nThe widget body.\n\n"
    "Pull Request resolved: https://github.com/o/r/pull/123\n"
)
PNG_BYTES = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01\x00"


@pytest.fixture(autouse=True)
def hermetic_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No user or system git configuration leaks into the repositories or the source."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_TRACE2_EVENT"):
        monkeypatch.delenv(name, raising=False)


def git(cwd: Path, *args: str, input: bytes | None = None, at: datetime | None = None) -> str:
    """Run git in `cwd` with a fixed identity and, when `at` is given, fixed dates."""
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="Ada Lovelace",
        GIT_AUTHOR_EMAIL="ada@example.com",
        GIT_COMMITTER_NAME="Merge Bot",
        GIT_COMMITTER_EMAIL="bot@example.com",
    )
    if at is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = at.isoformat()
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, input=input, capture_output=True, check=True
    )
    return done.stdout.decode().strip()


class Clone:
    """A working tree we commit into with fixed dates."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "-q", "-b", "main")

    def commit(
        self,
        message: str | bytes,
        at: datetime,
        files: dict[str, bytes | str | None] | None = None,
        *,
        authored_at: datetime | None = None,
    ) -> str:
        """Write (or, for None, delete) `files`, commit everything and return the sha."""
        for name, content in (files or {}).items():
            target = self.path / name
            if content is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):
                content = content.encode()
            target.write_bytes(content)
        git(self.path, "add", "-A")
        raw = message.encode() if isinstance(message, str) else message
        args = ["commit", "-q", "--allow-empty", "--cleanup=verbatim", "-F", "-"]
        if authored_at is not None:
            args.append(f"--date={authored_at.isoformat()}")
        git(self.path, *args, input=raw, at=at)
        return git(self.path, "rev-parse", "HEAD")


async def read(source: GitSource, window: Window = WINDOW) -> list[Activity]:
    return [activity async for activity in source.fetch(window)]


@pytest.fixture
def history(tmp_path: Path) -> tuple[Clone, dict[str, str]]:
    """A small main branch: one commit before the window, four in it, one at its end."""
    clone = Clone(tmp_path / "clone")
    shas = {
        "old": clone.commit(
            "Start the readme",
            datetime(2026, 5, 24, 23, 59, 59, tzinfo=UTC),
            {"README.md": "hello\nworld\n"},
        ),
        "squash": clone.commit(
            SQUASH_MESSAGE,
            datetime(2026, 5, 25, 9, 30, tzinfo=PDT),
            {"widget.py": "a = 1\nb = 2\nc = 3\n", "README.md": "hello\nwidget\n"},
        ),
        "binary": clone.commit(
            "Add a logo",
            datetime(2026, 5, 25, 18, 0, tzinfo=UTC),
            {"assets/logo.png": PNG_BYTES},
            authored_at=datetime(2026, 5, 1, tzinfo=UTC),
        ),
        "rename": clone.commit(
            "Move the widget into src (#124)",
            datetime(2026, 5, 25, 20, 0, tzinfo=UTC),
            {"widget.py": None, "src/widget.py": "a = 1\nb = 2\nc = 3\n"},
        ),
        "late": clone.commit(
            "Lands exactly when the window ends",
            datetime(2026, 5, 26, tzinfo=UTC),
            {"late.txt": "x\n"},
        ),
    }
    return clone, shas


async def test_reads_the_window_newest_first_with_files_and_counts(history) -> None:
    clone, shas = history

    activities = await read(GitSource(clone.path, repo="o/r"))

    assert [a.sha for a in activities] == [shas["rename"], shas["binary"], shas["squash"]]
    rename, binary, squash = activities
    assert squash == Activity(
        repo="o/r",
        sha=shas["squash"],
        number=123,
        title="Add the widget",
        body="The widget body.\n\nPull Request resolved: https://github.com/o/r/pull/123",
        author="Ada Lovelace",
        landed_at=datetime(2026, 5, 25, 9, 30, tzinfo=PDT),
        files=(
            FileChange(path="README.md", status="M", additions=1, deletions=1),
            FileChange(path="widget.py", status="A", additions=3, deletions=0),
        ),
    )
    assert squash.landed_at.utcoffset() == timedelta(hours=-7)
    assert squash.link == "https://github.com/o/r/pull/123"
    assert binary.files == (
        FileChange(path="assets/logo.png", status="A", additions=None, deletions=None),
    )
    assert binary.landed_at == datetime(2026, 5, 25, 18, 0, tzinfo=UTC)
    assert (rename.number, rename.title) == (124, "Move the widget into src")
    assert rename.files == (FileChange(path="src/widget.py", status="R", additions=0, deletions=0),)


async def test_window_is_half_open_on_committer_dates(history) -> None:
    clone, shas = history
    source = GitSource(clone.path, repo="o/r")

    just_before = Window(
        since=datetime(2026, 5, 24, 23, 59, 59, tzinfo=UTC),
        until=datetime(2026, 5, 25, 16, 30, tzinfo=UTC),
    )
    at_the_end = Window(
        since=datetime(2026, 5, 26, tzinfo=UTC), until=datetime(2026, 5, 27, tzinfo=UTC)
    )

    assert [a.sha for a in await read(source, just_before)] == [shas["old"]]
    assert [a.sha for a in await read(source, at_the_end)] == [shas["late"]]
    everything = Window(
        since=datetime(1900, 1, 1, tzinfo=UTC), until=datetime(3000, 1, 1, tzinfo=UTC)
    )
    assert len(await read(source, everything)) == 5


async def test_tokens_split_across_reads_parse_the_same(
    history, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone, _ = history
    source = GitSource(clone.path, repo="o/r")
    whole = await read(source)

    monkeypatch.setattr("digest.sources.git._CHUNK", 3)

    assert await read(source) == whole


@pytest.mark.parametrize("readers", [1, 3])
async def test_a_reader_may_stop_early(history, readers: int) -> None:
    clone, shas = history
    stream = GitSource(clone.path, repo="o/r", readers=readers).fetch(WINDOW)

    first = await anext(stream)
    await asyncio.wait_for(stream.aclose(), timeout=5)

    assert first.sha == shas["rename"]


async def test_odd_paths_and_type_changes_parse(tmp_path: Path) -> None:
    clone = Clone(tmp_path / "clone")
    at = datetime(2026, 5, 25, 12, tzinfo=UTC)
    clone.commit("Add a file", at, {"target.txt": "t\n", "link": "plain\n"})
    marker_like = "\x1e" + "0" * 40
    (clone.path / "link").unlink()
    (clone.path / "link").symlink_to("target.txt")
    sha = clone.commit(
        "Odd names\n\nbefore\n\x1e" + "f" * 40 + "\nafter",
        at + timedelta(minutes=1),
        {"tab\tand\nnewline.txt": "1\n", "ünïcödé name.md": "2\n", marker_like: "3\n"},
    )

    newest = (await read(GitSource(clone.path, repo="o/r")))[0]

    assert newest.sha == sha
    assert newest.body == "before\n\x1e" + "f" * 40 + "\nafter"
    assert newest.files == (
        FileChange(path=marker_like, status="A", additions=1, deletions=0),
        FileChange(path="link", status="T", additions=1, deletions=1),
        FileChange(path="tab\tand\nnewline.txt", status="A", additions=1, deletions=0),
        FileChange(path="ünïcödé name.md", status="A", additions=1, deletions=0),
    )


@pytest.mark.parametrize("readers", [1, 3])
async def test_merge_commits_follow_the_first_parent(tmp_path: Path, readers: int) -> None:
    clone = Clone(tmp_path / "clone")
    day = datetime(2026, 5, 25, 8, tzinfo=UTC)
    base = clone.commit("Base", day, {"a.txt": "a\n"})
    git(clone.path, "checkout", "-q", "-b", "feature")
    side = clone.commit("Side work", day + timedelta(hours=1), {"b.txt": "b\nb\n"})
    git(clone.path, "checkout", "-q", "main")
    main = clone.commit("Main work", day + timedelta(hours=2), {"c.txt": "c\n"})
    git(
        clone.path,
        "merge",
        "-q",
        "--no-ff",
        "-m",
        "Merge pull request #42 from o/feature",
        "feature",
        at=day + timedelta(hours=3),
    )
    merge = git(clone.path, "rev-parse", "HEAD")

    activities = await read(GitSource(clone.path, repo="o/r", readers=readers))

    assert [a.sha for a in activities] == [merge, main, base]
    assert side not in {a.sha for a in activities}
    assert activities[0].title == "Merge pull request #42 from o/feature"
    assert activities[0].files == (FileChange(path="b.txt", status="A", additions=2, deletions=0),)


async def test_empty_repository_has_no_activity(tmp_path: Path) -> None:
    Clone(tmp_path / "empty")

    assert await read(GitSource(tmp_path / "empty", repo="o/r")) == []


def commit_raw_message(clone: Clone, message: bytes, *, encoding: str | None = None) -> str:
    """Store a commit whose message bytes git leaves exactly as given, and check it out."""
    tree = git(clone.path, "hash-object", "-t", "tree", "-w", "--stdin", input=b"")
    stamp = b"1779667200 +0000"  # 2026-05-25T00:00:00Z
    header = b"tree %s\nauthor A <a@x> %s\ncommitter A <a@x> %s\n" % (tree.encode(), stamp, stamp)
    if encoding:
        header += b"encoding %s\n" % encoding.encode()
    sha = git(
        clone.path, "hash-object", "-t", "commit", "-w", "--stdin", input=header + b"\n" + message
    )
    git(clone.path, "update-ref", "HEAD", sha)
    return sha


async def test_invalid_utf8_in_a_message_is_replaced(tmp_path: Path) -> None:
    clone = Clone(tmp_path / "clone")
    commit_raw_message(clone, b"Caf\xe9 au lait (#7)\n\nd\xe9tails\n")

    (activity,) = await read(GitSource(clone.path, repo="o/r"))

    assert (activity.title, activity.number, activity.body) == (
        "Caf\ufffd au lait",
        7,
        "d\ufffdtails",
    )
    assert activity.landed_at == datetime(2026, 5, 25, tzinfo=UTC)


async def test_a_message_in_a_declared_encoding_is_converted(tmp_path: Path) -> None:
    clone = Clone(tmp_path / "clone")
    commit_raw_message(clone, b"Caf\xe9 au lait (#7)\n", encoding="ISO-8859-1")

    (activity,) = await read(GitSource(clone.path, repo="o/r"))

    assert (activity.title, activity.number) == ("Café au lait", 7)


def git_commands(trace: Path) -> list[str]:
    """The git commands a GIT_TRACE2_EVENT trace recorded, in order."""
    events = map(json.loads, trace.read_text().splitlines())
    return [e["name"] for e in events if e["event"] == "cmd_name"]


async def test_a_short_window_is_listed_once_and_shown_by_one_git_log(
    history, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone, _ = history
    trace = tmp_path / "trace2.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))

    assert len(await read(GitSource(clone.path, repo="o/r"))) == 3

    commands = git_commands(trace)
    assert commands.count("rev-list") == 1 and commands.count("log") == 1
    assert "fetch" not in commands


@pytest.mark.parametrize("readers", [2, 3, 9])
async def test_git_logs_side_by_side_read_the_same_commits_in_the_same_order(
    history, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, readers: int
) -> None:
    clone, _ = history
    everything = Window(
        since=datetime(2000, 1, 1, tzinfo=UTC), until=datetime(2100, 1, 1, tzinfo=UTC)
    )
    alone = await read(GitSource(clone.path, repo="o/r", readers=1), everything)
    trace = tmp_path / "trace2.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))

    side_by_side = await read(GitSource(clone.path, repo="o/r", readers=readers), everything)

    assert side_by_side == alone and len(alone) == 5
    assert git_commands(trace).count("log") == min(readers, len(alone))


@pytest.mark.parametrize(
    ("commits", "cores", "expected"),
    [(10, 8, 1), (127, 8, 1), (128, 8, 2), (634, 2, 2), (634, 1, 1), (10_000, 16, 4)],
)
def test_a_long_window_gets_one_git_log_per_core(
    monkeypatch: pytest.MonkeyPatch, commits: int, cores: int, expected: int
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(cores)), raising=False)

    assert reader_count(commits) == expected


def test_slices_are_contiguous_nearly_equal_and_cover_every_commit() -> None:
    shas = [f"{n:040x}" for n in range(11)]

    parts = contiguous_slices(shas, 3)

    assert [len(p) for p in parts] == [3, 4, 4]
    assert [sha for part in parts for sha in part] == shas
    assert contiguous_slices([], 3) == []


def bare_origin_with_history(tmp_path: Path) -> tuple[Path, list[str]]:
    """A bare repository that serves partial clones, holding three commits."""
    clone = Clone(tmp_path / "work")
    day = datetime(2026, 5, 25, 6, tzinfo=UTC)
    shas = [
        clone.commit("First (#1)", day, {"a.txt": "a\n", "logo.png": PNG_BYTES}),
        clone.commit("Second (#2)", day + timedelta(hours=1), {"a.txt": "a\nb\n"}),
        clone.commit(
            "Third (#3)", day + timedelta(hours=2), {"a.txt": None, "moved.txt": "a\nb\n"}
        ),
    ]
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(clone.path), str(origin))
    git(origin, "config", "uploadpack.allowFilter", "true")
    return origin, shas


async def test_partial_clone_is_read_without_counts_and_without_fetching(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    origin, shas = bare_origin_with_history(tmp_path)
    partial = tmp_path / "partial"
    git(
        tmp_path,
        "clone",
        "-q",
        "--filter=blob:none",
        "--no-checkout",
        origin.as_uri(),
        str(partial),
    )
    packs_before = git(partial, "count-objects", "-v")
    origin.rename(tmp_path / "origin-moved.git")  # any fetch would now fail
    trace = tmp_path / "trace2.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))

    activities = await read(GitSource(partial, repo="o/r"))

    assert [(a.sha, a.number, a.title) for a in activities] == [
        (shas[2], 3, "Third"),
        (shas[1], 2, "Second"),
        (shas[0], 1, "First"),
    ]
    assert [a.files for a in activities] == [
        (FileChange(path="moved.txt", status="R"),),
        (FileChange(path="a.txt", status="M"),),
        (FileChange(path="a.txt", status="A"), FileChange(path="logo.png", status="A")),
    ]
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [e["name"] for e in events if e["event"] == "cmd_name"].count("log") == 1
    assert "fetch" not in [e["name"] for e in events if e["event"] == "cmd_name"]
    assert not [e for e in events if e["event"] == "child_start"]
    assert {e["code"] for e in events if e["event"] == "exit"} == {0}
    assert git(partial, "count-objects", "-v") == packs_before


@pytest.mark.parametrize("readers", [1, 3])
async def test_a_missing_blob_falls_back_to_reading_without_counts(
    tmp_path: Path, readers: int
) -> None:
    clone = Clone(tmp_path / "clone")
    at = datetime(2026, 5, 25, 6, tzinfo=UTC)
    first = clone.commit("First", at, {"a.txt": "a\n"})
    second = clone.commit("Second", at + timedelta(hours=1), {"a.txt": "a\nb\n"})
    third = clone.commit("Third", at + timedelta(hours=2), {"b.txt": "b\n"})
    lost = git(clone.path, "rev-parse", f"{first}:a.txt")
    (clone.path / ".git" / "objects" / lost[:2] / lost[2:]).unlink()

    activities = await read(GitSource(clone.path, repo="o/r", readers=readers))

    assert [a.sha for a in activities] == [third, second, first]
    assert [[(f.path, f.status) for f in a.files] for a in activities] == [
        [("b.txt", "A")],
        [("a.txt", "M")],
        [("a.txt", "A")],
    ]
    assert activities[1].files[0].additions is None
    assert activities[2].files[0].additions is None


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/pytorch/executorch.git",
        "https://github.com/pytorch/executorch",
        "https://x-access-token:secret@github.com/pytorch/executorch.git",
        "git@github.com:pytorch/executorch.git",
        "ssh://git@github.com/pytorch/executorch",
    ],
)
async def test_repository_name_comes_from_the_origin_url(tmp_path: Path, url: str) -> None:
    clone = Clone(tmp_path / "clone")
    clone.commit("Something (#5)", datetime(2026, 5, 25, tzinfo=UTC))
    git(clone.path, "remote", "add", "origin", url)

    (activity,) = await read(GitSource(clone.path))

    assert activity.repo == "pytorch/executorch"
    assert activity.link == "https://github.com/pytorch/executorch/pull/5"


async def test_the_repo_argument_wins_over_the_origin(tmp_path: Path) -> None:
    clone = Clone(tmp_path / "clone")
    clone.commit("Something", datetime(2026, 5, 25, tzinfo=UTC))
    git(clone.path, "remote", "add", "origin", "https://github.com/pytorch/executorch.git")

    (activity,) = await read(open_source(f"git:{clone.path}", repo="o/fork"))

    assert activity.repo == "o/fork"


async def test_no_origin_asks_for_the_repo_argument(tmp_path: Path) -> None:
    clone = Clone(tmp_path / "clone")

    with pytest.raises(SourceError) as raised:
        await read(GitSource(clone.path))

    assert str(raised.value) == (
        f"{clone.path} has no origin remote to name its GitHub repository; pass --repo OWNER/NAME"
    )


async def test_a_non_github_origin_asks_for_the_repo_argument(tmp_path: Path) -> None:
    clone = Clone(tmp_path / "clone")
    git(clone.path, "remote", "add", "origin", "https://user:hunter2@gitlab.com/o/r.git")

    with pytest.raises(SourceError) as raised:
        await read(GitSource(clone.path))

    assert str(raised.value) == (
        f"the origin of {clone.path} (https://gitlab.com/o/r.git) is not a GitHub "
        "repository URL; pass --repo OWNER/NAME"
    )


def test_a_missing_path_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"

    with pytest.raises(SourceError) as raised:
        open_source(f"git:{missing}", repo="o/r")

    assert str(raised.value) == (
        f"git source path {missing} does not exist or is not a directory; "
        "pass git:PATH to a local clone"
    )


async def test_a_directory_that_is_not_a_repository_is_named(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()

    with pytest.raises(SourceError) as raised:
        await read(GitSource(plain, repo="o/r"))

    assert str(raised.value) == (
        f"{plain} is not a git repository; pass git:PATH to the top of a local clone"
    )


async def test_a_subdirectory_of_a_clone_is_not_taken_for_the_clone(history) -> None:
    clone, _ = history
    inside = clone.path / "src"

    with pytest.raises(SourceError, match=r"is not a git repository"):
        await read(GitSource(inside, repo="o/r"))


def test_a_malformed_repo_argument_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"'executorch' is not of the form OWNER/NAME"):
        GitSource(tmp_path, repo="executorch")


async def test_an_unknown_ref_is_named(history) -> None:
    clone, _ = history

    with pytest.raises(SourceError) as raised:
        await read(GitSource(clone.path, repo="o/r", ref="release/9.9"))

    assert str(raised.value) == (
        f"{clone.path} has no commit named 'release/9.9'; pass a branch, tag or commit it has"
    )


async def test_another_ref_can_be_read(history) -> None:
    clone, shas = history
    git(clone.path, "branch", "release", shas["binary"])

    activities = await read(GitSource(clone.path, repo="o/r", ref="release"))

    assert [a.sha for a in activities] == [shas["binary"], shas["squash"]]
    assert GitSource(clone.path, repo="o/r").description == f"git:{clone.path}"
