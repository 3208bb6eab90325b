"""Parts of a story and their console rendering (pure), and the console platform."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from bot.delivery.parts import (
    AckMark,
    ActionItemPart,
    BodyPart,
    ParentPart,
    ReferencesPart,
    item_id_of,
    item_part,
    parts_of,
    reminder_part,
)
from bot.delivery.platform import ConsolePlatform, Platform, render_text
from digest.model import ActionItem
from tests.conftest import build_story


def test_parts_follow_the_story_order() -> None:
    story = build_story(1, items=2)
    parts = parts_of(story)
    assert [p.kind for p in parts] == ["parent", "body", "action_item", "action_item", "references"]
    assert [p.index for p in parts] == [0, 1, 2, 3, 4]
    assert {p.story_id for p in parts} == {story.id}
    parent, body, first_item, _, refs = parts
    assert isinstance(parent, ParentPart) and parent.window_label == story.window.label()
    assert isinstance(body, BodyPart) and [r.n for r in body.references] == [1, 2]
    assert isinstance(first_item, ActionItemPart) and [r.n for r in first_item.references] == [1]
    assert isinstance(refs, ReferencesPart) and refs.references == story.references
    assert item_id_of(first_item) == story.action_items[0].id and item_id_of(parent) is None


def test_a_no_news_story_is_only_its_parent() -> None:
    story = build_story(1, items=0, body=False)
    assert story.is_empty
    assert [p.kind for p in parts_of(story)] == ["parent"]


def test_render_parent_and_replies() -> None:
    parent, body, item, refs = parts_of(build_story(4))
    assert render_text(parent) == (
        "EXECUTORCH FIXES XNNPACK CRASH 4\n"
        "A fix lands for crash 4.\n"
        "(2026-03-02 09:00 – 2026-03-03 09:00 UTC)"
    )
    assert render_text(body) == (
        "  ↳ XNNPACK no longer crashes on model 4. [1] "
        "The Arm backend quantizes depthwise convolutions. [2]"
    )
    assert render_text(item) == (
        "  ↳ [immediate] Rebuild the XNNPACK delegate (0) [1] — pytorch/executorch"
    )
    assert render_text(refs).splitlines() == [
        "  ↳ References:",
        "    [1] Fix XNNPACK crash 4 — https://github.com/pytorch/executorch/pull/1004",
        "    [2] Arm backend: quantize 4 — https://github.com/pytorch/executorch/pull/2004",
    ]


def test_render_acks_and_reminder() -> None:
    story = build_story(5)
    item_id = story.action_items[0].id
    acked = item_part(story, item_id, [AckMark("ada", datetime(2026, 3, 3, 9, 14, tzinfo=UTC))])
    assert render_text(acked).splitlines()[1] == (
        "    ✓ acknowledged by ada at 2026-03-03 09:14 UTC"
    )
    reminder = reminder_part(story, item_id, oncall="@executorch-oncall")
    assert reminder.index == acked.index
    assert render_text(reminder).startswith(
        "  ↳ ⏰ @executorch-oncall: not acknowledged yet — [immediate] Rebuild"
    )


def test_untrusted_text_cannot_drive_the_terminal() -> None:
    story = build_story(6)
    hostile = ActionItem(
        id="item_x", text="\x1b[2Jwipe\nscreen", urgency="plan", repo="a/b", refs=()
    )
    part = ActionItemPart(index=2, story_id=story.id, item=hostile)
    assert render_text(part) == "  ↳ [plan] [2Jwipe screen — a/b"


async def test_console_platform_prints_a_thread_and_dedupes_keys() -> None:
    out = io.StringIO()
    console = ConsolePlatform(out)
    assert isinstance(console, Platform)
    parent, body, *_ = parts_of(build_story(7))
    parent_id = await console.post("ops", parent, None, key="d1.p0")
    reply_id = await console.post("ops", body, parent_id, key="d1.p1")
    assert await console.post("ops", body, parent_id, key="d1.p1") == reply_id
    assert (parent_id, reply_id) == ("console-1", "console-2")
    await console.update("ops", reply_id, body)
    lines = out.getvalue().splitlines()
    assert lines[:3] == ["", "#ops", "EXECUTORCH FIXES XNNPACK CRASH 7"]
    assert sum(line.startswith("  ↳ XNNPACK") for line in lines) == 2
    assert "  ↳ (edited console-2)" in lines


def test_inline_citations_are_not_repeated() -> None:
    from bot.delivery.platform import render_lines
    from digest.compose import compose
    from tests.digest_data import SHOWCASE_WINDOW, both_files, example_config, window

    story = compose(both_files(), config=example_config(), window=window(*SHOWCASE_WINDOW))
    body = next(p for p in parts_of(story) if p.kind == "body")
    text = render_lines(body)[0]
    for sentence in story.body:
        assert text.count(f"{sentence.text}") == 1
    assert "[1]. [1]" not in text and "[1] [1]" not in text


def test_a_sectioned_body_keeps_the_story_sections_and_prints_each_heading() -> None:
    from tests.digest_data import sectioned_story

    story = sectioned_story()
    [body] = [part for part in parts_of(story) if isinstance(part, BodyPart)]
    assert body.sections == story.sections and body.paragraphs() == story.paragraphs()
    lines = render_text(body).splitlines()
    expected = []
    for heading, sentences in story.paragraphs():
        expected += [heading, " ".join(s.text for s in sentences)]
    assert [line.removeprefix("  ↳ ").removeprefix("    ") for line in lines] == expected
    assert lines[0] == f"  ↳ {story.sections[0].heading}"


def test_a_heading_cannot_drive_the_terminal_nor_break_its_line() -> None:
    from digest.model import Section

    story = build_story(1)
    hostile = story.model_copy(
        update={"sections": (Section(heading="\x1b[2J\nfake\rline", start=0, end=1),)}
    )
    [body] = [part for part in parts_of(hostile) if isinstance(part, BodyPart)]
    lines = render_text(body).splitlines()
    assert lines[0] == "  ↳ [2J fakeline" and "\x1b" not in render_text(body)
    assert len(lines) == 1 + len(body.paragraphs())
