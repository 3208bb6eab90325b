"""ReplaySource on the real recorded data, on malformed input, and as the inverse of export."""

from __future__ import annotations

import json
import re
import tempfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from digest.errors import MalformedInputError, SourceError
from digest.model import Activity, FileChange, Window
from digest.sources import open_source
from digest.sources.replay import ReplaySource, parse_replay_line, write_replay_line
from tests.digest_data import ACTIVITY

DATA = ACTIVITY
EXECUTORCH = DATA / "pytorch-executorch-2026-q2.jsonl"
CI_INFRA = DATA / "pytorch-ci-infra-2026-05.jsonl"

VALID = {
    "repo": "o/r",
    "sha": "0123456789abcdef0123456789abcdef01234567",
    "author_name": "Ada Lovelace",
    "committed_at": "2026-05-25T10:00:00+00:00",
    "message": "Fix the thing (#5)\n\nBecause it broke.",
    "files": [{"path": "a.py", "status": "M", "additions": 2, "deletions": 1}],
}


def jsonl(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "activity.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def malformed(path: Path) -> MalformedInputError:
    with pytest.raises(MalformedInputError) as raised:
        ReplaySource(path).read_all()
    return raised.value


def test_reads_every_executorch_commit() -> None:
    activities = ReplaySource(EXECUTORCH).read_all()

    assert len(activities) == 1209
    assert {a.repo for a in activities} == {"pytorch/executorch"}
    assert activities[0].sha == "d54a0c0a5031a2cca2ff997c9a74516bdcd25329"
    assert activities[0].title == "Use caller CUDA stream for D2H and H2D copies"
    assert activities[0].number == 20498
    assert activities[0].files[0] == FileChange(
        path=".github/workflows/cuda.yml", status="M", additions=34, deletions=0
    )


async def test_the_showcase_window_holds_its_references() -> None:
    window = Window(
        since=datetime(2026, 5, 25, tzinfo=UTC), until=datetime(2026, 5, 26, 12, tzinfo=UTC)
    )
    sources = [open_source(f"replay:{EXECUTORCH}"), open_source(f"replay:{CI_INFRA}")]

    found = {(a.repo, a.number): a for source in sources async for a in source.fetch(window)}

    assert {
        ("pytorch/executorch", 19752),
        ("pytorch/executorch", 19751),
        ("pytorch/ci-infra", 611),
        ("pytorch/ci-infra", 619),
    } <= found.keys()
    assert all(window.contains(a.landed_at) for a in found.values())
    arm = found["pytorch/executorch", 19751]
    assert arm.sha.startswith("03e14ef8b3")
    assert arm.landed_at == datetime(2026, 5, 25, 18, 55, 50, tzinfo=timezone(timedelta(hours=2)))
    assert arm.landed_at.utcoffset() == timedelta(hours=2)
    assert found["pytorch/ci-infra", 619].title == "Split pre-merge CI into fast and slow gates"


async def test_the_repo_argument_narrows_case_insensitively() -> None:
    window = Window(
        since=datetime(2026, 5, 25, tzinfo=UTC), until=datetime(2026, 5, 26, 12, tzinfo=UTC)
    )

    narrowed = [a async for a in ReplaySource(CI_INFRA, repo="PyTorch/CI-Infra").fetch(window)]
    other = [a async for a in ReplaySource(CI_INFRA, repo="pytorch/executorch").fetch(window)]

    assert {a.repo for a in narrowed} == {"pytorch/ci-infra"}
    assert {611, 619} <= {a.number for a in narrowed}
    assert other == []


def test_repeated_pr_suffixes_are_all_removed() -> None:
    harden = next(a for a in ReplaySource(EXECUTORCH).read_all() if a.sha.startswith("fb3f6eba47"))

    assert harden.title == "Harden against concurrency violations"
    assert harden.number == 19734


def test_the_pr_number_comes_from_the_resolved_trailer_without_a_title_suffix() -> None:
    buck = next(
        a
        for a in ReplaySource(EXECUTORCH).read_all()
        if a.sha == "d4dd644f7d17a68c60a8e53efb42ac878754bba7"
    )

    assert buck.title == "Add missing Buck deps for TOSA dialect real_impl"
    assert buck.number == 20642
    assert buck.link == "https://github.com/pytorch/executorch/pull/20642"


def test_blank_lines_are_skipped_but_still_counted(tmp_path: Path) -> None:
    second = dict(VALID, sha="f" * 40)
    path = jsonl(tmp_path, "", json.dumps(VALID), "   ", "\t", json.dumps(second), "{")

    error = malformed(path)
    assert error.line == 6

    path = jsonl(tmp_path, "", json.dumps(VALID), "   ", "", json.dumps(second), "")
    assert [a.sha for a in ReplaySource(path).read_all()] == [VALID["sha"], "f" * 40]


def test_bad_json_names_the_file_and_line(tmp_path: Path) -> None:
    path = jsonl(tmp_path, json.dumps(VALID), json.dumps(VALID), '{"repo": "o/r",')

    error = malformed(path)

    assert (error.file, error.line) == (str(path), 3)
    assert str(error).startswith(f"{path}:3: not valid JSON (")


def test_a_missing_field_is_named(tmp_path: Path) -> None:
    record = {k: v for k, v in VALID.items() if k not in ("message", "committed_at")}

    error = malformed(jsonl(tmp_path, json.dumps(record)))

    assert error.line == 1
    assert error.reason == "missing field(s): message, committed_at"


def test_a_bad_timestamp_is_named(tmp_path: Path) -> None:
    error = malformed(jsonl(tmp_path, json.dumps(dict(VALID, committed_at="yesterday"))))

    assert error.line == 1
    assert error.reason.startswith("committed_at is not an ISO 8601 time")


def test_a_timestamp_without_offset_is_refused(tmp_path: Path) -> None:
    error = malformed(jsonl(tmp_path, json.dumps(dict(VALID, committed_at="2026-05-25T10:00:00"))))

    assert error.reason == "committed_at has no UTC offset"


@pytest.mark.parametrize("line", ["[1, 2]", '"text"', "42", "null"])
def test_a_line_that_is_not_an_object_is_refused(tmp_path: Path, line: str) -> None:
    error = malformed(jsonl(tmp_path, json.dumps(VALID), line))

    assert str(error) == f"{tmp_path / 'activity.jsonl'}:2: expected a JSON object"


def test_an_invalid_file_entry_names_the_field(tmp_path: Path) -> None:
    files = [{"path": "a.py", "status": "M", "additions": "many"}]

    error = malformed(jsonl(tmp_path, json.dumps(dict(VALID, files=files))))

    assert error.reason.startswith("additions: Input should be a valid integer")


@pytest.mark.parametrize(("field", "value"), [("message", 5), ("files", 5), ("labels", 5)])
def test_a_field_of_the_wrong_type_is_named(tmp_path: Path, field: str, value: object) -> None:
    error = malformed(jsonl(tmp_path, json.dumps(dict(VALID, **{field: value}))))

    assert error.reason.startswith(field)


def test_a_missing_file_is_a_source_error(tmp_path: Path) -> None:
    missing = tmp_path / "absent.jsonl"

    with pytest.raises(SourceError) as raised:
        open_source(f"replay:{missing}")

    assert str(raised.value) == (
        f"replay file {missing} does not exist; pass replay:PATH to a .jsonl file"
    )


async def test_the_window_is_half_open(tmp_path: Path) -> None:
    early = dict(VALID, sha="a" * 40, committed_at="2026-05-25T00:00:00+00:00")
    late = dict(VALID, sha="b" * 40, committed_at="2026-05-25T19:00:00-05:00")  # 26th, 00:00Z
    source = ReplaySource(jsonl(tmp_path, json.dumps(early), json.dumps(late)))
    day = Window(since=datetime(2026, 5, 25, tzinfo=UTC), until=datetime(2026, 5, 26, tzinfo=UTC))

    assert [a.sha async for a in source.fetch(day)] == ["a" * 40]


# --- write_replay_line is the inverse of parse_replay_line -------------------------------

_ENDS_WITH_PR = re.compile(r"\(#\d+\)\s*$")
_line_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"))
titles = (
    _line_text.map(str.strip).filter(bool).filter(lambda title: not _ENDS_WITH_PR.search(title))
)
bodies = st.text(st.characters(blacklist_categories=("Cs",))).map(str.strip)
offsets = st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
moments = st.builds(
    lambda naive, tz: naive.replace(tzinfo=tz),
    st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2100, 1, 1)),
    offsets,
)
file_changes = st.builds(
    FileChange,
    path=st.text(min_size=1),
    status=st.sampled_from(["A", "M", "D", "T", "R"]),
    additions=st.none() | st.integers(min_value=0, max_value=10**6),
    deletions=st.none() | st.integers(min_value=0, max_value=10**6),
)
activities = st.builds(
    Activity,
    repo=st.from_regex(r"[A-Za-z0-9_.-]{1,20}/[A-Za-z0-9_.-]{1,20}", fullmatch=True),
    sha=st.text("0123456789abcdef", min_size=40, max_size=40),
    number=st.none() | st.integers(min_value=1, max_value=10**7),
    title=titles,
    body=bodies,
    author=st.text(),
    landed_at=moments,
    url=st.none() | st.text(min_size=1),
    labels=st.lists(st.text(), max_size=3).map(tuple),
    files=st.lists(file_changes, max_size=4).map(tuple),
)


@settings(max_examples=300, deadline=None)
@given(activities)
def test_a_written_line_parses_back_to_the_same_activity(activity: Activity) -> None:
    line = write_replay_line(activity)

    assert "\n" not in line
    assert parse_replay_line(line, file="memory", line=1) == activity


@settings(max_examples=50, deadline=None)
@given(st.lists(activities, min_size=1, max_size=5))
def test_a_written_file_reads_back_to_the_same_activities(batch: list[Activity]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "export.jsonl"
        path.write_text("".join(write_replay_line(a) + "\n" for a in batch), encoding="utf-8")

        assert ReplaySource(path).read_all() == batch
