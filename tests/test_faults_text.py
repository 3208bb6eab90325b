"""Hostile titles and odd windows: a 10,000-character PR title, invisible format
characters, a window from year 1. Composed from a replay of the demo's first commit."""

from __future__ import annotations

import json
import unicodedata
from datetime import UTC, datetime
from pathlib import Path

import pytest

from digest.config import load_config
from digest.model import Story, Window
from digest.pipeline import compose_window
from digest.render.markdown import render_markdown
from digest.render.plain import render_plain
from digest.sources import open_source
from digest.untrusted import MAX_FRAGMENT_CHARS, clean_fragment

ROOT = Path(__file__).resolve().parents[1]
WINDOW = Window(since=datetime(2026, 5, 25, tzinfo=UTC), until=datetime(2026, 5, 28, tzinfo=UTC))
PHRASE = "Add a faster XNNPACK kernel for quantized convolution on Arm cores "


async def compose(tmp_path: Path, title: str) -> Story:
    """The story of one commit titled `title`, touching the XNNPACK backend."""
    record = json.loads((ROOT / "demo/activity.jsonl").read_text().splitlines()[0])
    record["message"] = f"{title} (#19790)\n\nSummary."
    record["files"] = [
        {"path": "backends/xnnpack/runtime/op.cpp", "status": "M", "additions": 9, "deletions": 2}
    ]
    replay = tmp_path / "one.jsonl"
    replay.write_text(json.dumps(record) + "\n", encoding="utf-8")
    source = open_source(f"replay:{replay}", repo=None)
    return await compose_window(
        [source], config=load_config(ROOT / "config/demo.toml"), window=WINDOW
    )


def every_text(story: Story) -> list[str]:
    """The story as each format shows it."""
    return [story.model_dump_json(), render_markdown(story), render_plain(story)]


async def test_a_ten_thousand_character_title_is_shortened_at_a_word(tmp_path: Path) -> None:
    title = (PHRASE * 200)[:10_000]
    story = await compose(tmp_path, title)
    assert "ADDS A FASTER XNNPACK KERNEL" in story.headline  # it still says what happened
    (reference,) = story.references
    assert reference.title.endswith("…") and len(reference.title) <= MAX_FRAGMENT_CHARS
    kept = reference.title.removesuffix("…")
    assert title.startswith(kept) and title[len(kept)] == " "  # cut between two words
    for text in every_text(story):
        assert PHRASE * 5 not in text  # nothing carries the whole title
    assert len(render_markdown(story)) < 3_000


@pytest.mark.parametrize(
    "char", ["\ufeff", "\u2060", "\u00ad", "\u200b", "\u202e", "\u2066", "\u061c", "\U000e0041"]
)
async def test_every_format_character_is_stripped_from_titles(tmp_path: Path, char: str) -> None:
    assert unicodedata.category(char) == "Cf"
    story = await compose(tmp_path, f"Fix the{char} XNNPACK{char} kernel")
    for text in every_text(story):
        assert char not in text and json.dumps(char)[1:-1] not in text
    assert "XNNPACK kernel" in story.references[0].title


def test_fragments_keep_printable_text_and_forged_citations_stay_harmless() -> None:
    assert clean_fragment("naïve 東京 — [3] done.") == "naïve 東京 — (3) done"
    assert (
        clean_fragment(
            "one two three",
        )
        == "one two three"
    )


def test_a_window_from_year_one_has_a_zero_padded_header() -> None:
    window = Window(since=datetime(1, 1, 1, tzinfo=UTC), until=datetime(2026, 5, 27, tzinfo=UTC))
    assert window.label() == "0001-01-01 00:00 – 2026-05-27 00:00 UTC"
