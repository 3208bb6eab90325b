"""Releases a clone knows as tags reach the story as releases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from digest.config import WireConfig
from digest.reading.classify import classify
from digest.sources.git import GitSource
from digest.sources.git_tags import tags_in
from tests.test_source_git import WINDOW, Clone, git, hermetic_git, read  # noqa: F401


def test_only_version_tags_of_the_window_are_releases() -> None:
    output = (
        "v1.0.0\t2026-05-24T23:00:00+00:00\n"  # before the window
        "v1.1.0\t2026-05-25T10:00:00+00:00\n"
        "nightly\t2026-05-25T11:00:00+00:00\n"  # no version
        "widgets-cli@2.0.0\t2026-05-25T09:00:00+02:00\n"
        "broken\tnot a date\n"
    )
    tags = tags_in(output, "o/r", WINDOW)
    assert [t.title for t in tags] == ["widgets-cli@2.0.0", "v1.1.0"]
    assert tags[1].link == "https://github.com/o/r/releases/tag/v1.1.0"


async def test_a_tag_in_the_window_is_read_as_a_release(tmp_path: Path) -> None:
    clone = Clone(tmp_path / "clone")
    old = clone.commit("Start", datetime(2026, 5, 22, tzinfo=UTC), {"README.md": "a\n"})
    new = clone.commit("Add widgets", datetime(2026, 5, 25, 9, tzinfo=UTC), {"w.py": "b\n"})
    at = datetime(2026, 5, 25, 21, 0, tzinfo=UTC)
    git(clone.path, "tag", "-a", "v2.3.0", "-m", "Release 2.3.0", new, at=at)
    git(clone.path, "tag", "-a", "v2.2.0", "-m", "old", old, at=at - timedelta(days=3))
    activities = await read(GitSource(clone.path, repo="o/r"))
    assert [a.title for a in activities][-1] == "v2.3.0"
    assert "v2.2.0" not in {a.title for a in activities}
    events = classify(activities, WireConfig())
    [release] = [e for e in events if e.release is not None]
    assert release.release.version == "2.3.0"


async def test_a_release_tagged_on_a_release_branch_is_read_too(tmp_path: Path) -> None:
    """A backport's release lives on its maintenance branch, which never merges back into
    the branch being read: its tag is a release of the window all the same."""
    clone = Clone(tmp_path / "clone")
    base = clone.commit("Start", datetime(2026, 5, 20, tzinfo=UTC), {"README.md": "a\n"})
    git(clone.path, "checkout", "-q", "-b", "1.4.x", base)
    fix = clone.commit("Backport the fix", datetime(2026, 5, 25, 8, tzinfo=UTC), {"a.py": "b\n"})
    at = datetime(2026, 5, 25, 9, tzinfo=UTC)
    git(clone.path, "tag", "-a", "v1.4.2", "-m", "Release 1.4.2", fix, at=at)
    old = clone.commit("Backport more", datetime(2026, 5, 21, tzinfo=UTC), {"b.py": "c\n"})
    git(clone.path, "tag", "v1.4.1", old)  # a lightweight tag: its commit's date, before
    git(clone.path, "checkout", "-q", "main")
    clone.commit("Add widgets", datetime(2026, 5, 25, 10, tzinfo=UTC), {"w.py": "d\n"})
    at = datetime(2026, 5, 25, 11, tzinfo=UTC)
    git(clone.path, "tag", "-a", "tokio-stream-0.1.19", "-m", "tokio-stream 0.1.19", "main", at=at)
    activities = await read(GitSource(clone.path, repo="tokio-rs/tokio", ref="main"))
    assert [a.title for a in activities] == ["Add widgets", "v1.4.2", "tokio-stream-0.1.19"]
    events = classify(activities, WireConfig())
    releases = {e.activity.title: e.release for e in events if e.release is not None}
    assert releases["v1.4.2"] is not None and releases["v1.4.2"].versions == ((None, "1.4.2"),)
    assert releases["tokio-stream-0.1.19"].versions == (("tokio-stream", "0.1.19"),)
    assert "Backport the fix" not in {a.title for a in activities}  # not on the ref read


def test_tags_name_their_package_and_version_in_the_shapes_tools_leave() -> None:
    output = "".join(
        f"{name}\t2026-05-25T10:00:00+00:00\n"
        for name in ("tokio-1.52.4", "axum-v0.8.9", "cli/v2.0.0", "python-3.14-docs", "nightly")
    )
    tags = tags_in(output, "o/r", WINDOW)
    assert [t.title for t in tags] == ["tokio-1.52.4", "axum-v0.8.9", "cli/v2.0.0"]
