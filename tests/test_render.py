"""Renderings keep untrusted source text inert: no links, no markup, no forged citations."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import Console

from digest.compose import compose
from digest.model import Activity, FileChange
from digest.render import render_markdown, render_terminal
from tests.digest_data import example_config, window

HOSTILE = "Add [click](https://evil.example) <!channel> **bold** `code` [2] support"


def hostile_story():
    activity = Activity(
        repo="pytorch/executorch",
        sha="e" * 40,
        number=42,
        title=HOSTILE,
        landed_at=datetime(2026, 5, 25, 3, tzinfo=UTC),
        files=(FileChange(path="backends/arm/a.py", additions=3, deletions=1),),
    )
    return compose(
        [activity],
        config=example_config(),
        window=window("2026-05-25T00:00:00+00:00", "2026-05-26T00:00:00+00:00"),
    )


def test_markdown_escapes_source_text_and_links_only_citations() -> None:
    text = render_markdown(hostile_story())
    assert "](https://evil.example)" not in text
    assert "\\[click\\]\\(https://evil.example\\)" in text
    assert "\\<\\!channel\\>" in text and "<!channel>" not in text
    assert "**bold**" not in text
    links = [
        line
        for line in text.splitlines()
        if "](https://github.com/pytorch/executorch/pull/42)" in line
    ]
    assert links, text


def test_terminal_rendering_does_not_interpret_markup() -> None:
    console = Console(record=True, width=200, color_system=None)
    console.print(render_terminal(hostile_story()))
    shown = console.export_text()
    assert "<!channel>" in shown and "**bold**" in shown
