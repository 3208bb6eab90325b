"""`wire digest` and `wire export` as a person runs them: output formats and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.app.cli import app
from tests.digest_data import ACTIVITY, CI_INFRA, EXAMPLE_CONFIG, EXECUTORCH

RUNNER = CliRunner()
SHOWCASE_ARGS = [
    "--source", f"replay:{EXECUTORCH}",
    "--source", f"replay:{CI_INFRA}",
    "--since", "2026-05-25T00:00:00Z",
    "--until", "2026-05-26T12:00:00Z",
    "--config", str(EXAMPLE_CONFIG),
]  # fmt: skip


def wire(*args: str) -> tuple[int, str, str]:
    result = RUNNER.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_json_format_has_the_documented_fields() -> None:
    code, out, _ = wire("digest", *SHOWCASE_ARGS, "--format", "json")
    assert code == 0
    story = json.loads(out)
    assert {
        "id",
        "headline",
        "lede",
        "body",
        "action_items",
        "references",
        "checks",
    } <= story.keys()
    assert set(story["body"][0]) >= {"text", "refs"}
    assert set(story["action_items"][0]) >= {"id", "text", "urgency", "repo", "refs"}
    assert set(story["references"][0]) >= {"n", "repo", "number", "title", "url"}
    checks = story["checks"]
    for figure in (
        "dangling_citations",
        "attribution",
        "action_integrity",
        "canonical_names",
        "coverage",
        "redundancy",
        "body_words",
    ):
        assert figure in checks
    assert checks["problems"] == []
    cited = {(r["repo"], r["number"]) for r in story["references"]}
    assert ("pytorch/ci-infra", 619) in cited and ("pytorch/executorch", 19752) in cited


def test_markdown_and_text_formats() -> None:
    code, out, _ = wire("digest", *SHOWCASE_ARGS, "--format", "markdown")
    assert code == 0
    assert out.startswith("## CI-INFRA SPLITS PRE-MERGE CI")
    assert "[\\[1\\]](https://github.com/pytorch/ci-infra/pull/619)" in out
    code, out, _ = wire("digest", *SHOWCASE_ARGS)
    assert code == 0 and "Action items" in out and "[immediate]" in out


def test_repo_narrows_a_multi_repo_source(tmp_path: Path) -> None:
    code, out, _ = wire("digest", *SHOWCASE_ARGS, "--repo", "pytorch/ci-infra", "--format", "json")
    assert code == 0
    assert {r["repo"] for r in json.loads(out)["references"]} == {"pytorch/ci-infra"}


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    good = EXECUTORCH.read_text(encoding="utf-8").splitlines()[:2]
    bad.write_text("\n".join([*good, '{"repo": "a/b", "sha": ']) + "\n", encoding="utf-8")
    code, _, err = wire("digest", "--source", f"replay:{bad}", "--since", "2026-01-01")
    assert code == 2
    assert f"{bad}:3: not valid JSON" in err


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("ftp:somewhere", "unknown source scheme 'ftp'"),
        ("replay:/no/such/file.jsonl", "replay file /no/such/file.jsonl does not exist"),
        ("nonsense", "is not SCHEME:ARG"),
    ],
)
def test_bad_sources_get_one_clear_sentence(source: str, expected: str) -> None:
    code, out, err = wire("digest", "--source", source, "--since", "2026-01-01")
    assert code == 2
    assert expected in err
    assert "Traceback" not in err + out


def test_unknown_topic_lists_known_topics() -> None:
    code, _, err = wire("digest", *SHOWCASE_ARGS, "--topic", "quantum")
    assert code == 2
    assert "unknown topic 'quantum'; known topics:" in err
    assert "XNNPACK" in err


def test_an_unknown_topic_lists_the_topics_of_the_repositories_read() -> None:
    polars = ACTIVITY / "pola-rs-polars-2026-q2.jsonl"
    args = ["--source", f"replay:{polars}", "--config", str(EXAMPLE_CONFIG)]
    window = ["--since", "2026-06-01T00:00:00Z", "--until", "2026-06-08T00:00:00Z"]
    code, _, err = wire("digest", *args, *window, "--topic", "nonsense")
    assert code == 2 and "unknown topic 'nonsense'; known topics:" in err
    listed = err.split("known topics:", 1)[1]
    assert "XNNPACK" not in listed and "Arm" not in listed  # the example config's pytorch ones
    first = listed.split(",")[0].strip()
    code, out, _ = wire("digest", *args, *window, "--topic", first)
    assert code == 0 and out.strip()


def test_bad_times_are_explained() -> None:
    code, _, err = wire("digest", "--source", f"replay:{EXECUTORCH}", "--since", "yesterday")
    assert code == 2 and "is not an ISO 8601 time" in err
    code, _, err = wire(
        "digest",
        "--source",
        f"replay:{EXECUTORCH}",
        "--since",
        "2026-05-02",
        "--until",
        "2026-05-01",
    )
    assert code == 2 and "must be before --until" in err


def test_export_then_replay_gives_the_same_story(tmp_path: Path) -> None:
    recorded = tmp_path / "window.jsonl"
    code, _, _ = wire("export", *SHOWCASE_ARGS[:8], "--output", str(recorded))
    assert code == 0
    assert len(recorded.read_text(encoding="utf-8").splitlines()) == 13
    code, original, _ = wire("digest", *SHOWCASE_ARGS, "--format", "json")
    replay_args = ["--source", f"replay:{recorded}", *SHOWCASE_ARGS[4:]]
    code, replayed, _ = wire("digest", *replay_args, "--format", "json")
    assert code == 0
    assert json.loads(replayed) == json.loads(original)
