"""Block Kit rendering of story parts: safe against hostile source text, within Slack's
limits by splitting (never by cutting), and valid for slack-sdk's Block Kit models."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from slack_sdk.models.blocks import Block

from bot.delivery.parts import AckMark, ActionItemPart, BodyPart, Part, ReminderPart, parts_of
from bot.slack.escape import (
    ZWSP,
    escape_mrkdwn,
    link,
    one_line,
    unescape_mrkdwn,
    user_group_mention,
)
from bot.slack.limits import ACK_ACTION_ID, HEADER_CHARS, MAX_BLOCKS, SECTION_CHARS, SlackMessage
from bot.slack.render import render
from digest.compose import compose
from digest.model import CITATION, ActionItem, Reference, Section, Sentence, Story
from tests.conftest import WINDOW
from tests.digest_data import (
    SHOWCASE_WINDOW,
    example_config,
    executorch,
    sectioned_story,
    window,
)

HOSTILE = [
    "<!channel> ship it",
    "<!here|here> and <!everyone>",
    "ping <@U123> and <@W999|bob>",
    "<!subteam^S1> wake up",
    "<https://evil.example|click> to fix",
    "&amp; &lt;!channel&gt; already escaped",
    "```\nrm -rf /\n``` and ``` again",
    "> quoted\n> twice",
    "@here @channel bare",
    "x" * 4000,
    "<" * 1500 + ">" * 1500 + "&" * 1000,
]
ONCALL = "S0614TZR7"
ANGLE = re.compile(r"<([^<>]*)>")


def mrkdwn_texts(messages: list[SlackMessage]) -> list[str]:
    """Every mrkdwn string of the messages (block texts, context elements, previews)."""
    texts = [m.text for m in messages]
    for message in messages:
        for block in message.blocks:
            if block["type"] == "section":
                texts.append(block["text"]["text"])
            elif block["type"] == "context":
                texts += [e["text"] for e in block["elements"]]
    return texts


def plain_texts(messages: list[SlackMessage]) -> list[str]:
    """Every plain_text string: header blocks and buttons, which Slack shows literally."""
    found = []
    for message in messages:
        for block in message.blocks:
            if block["type"] == "header":
                found.append(block["text"]["text"])
            if "accessory" in block:
                found.append(block["accessory"]["text"]["text"])
    return found


def assert_safe(messages: list[SlackMessage], urls: set[str], oncall: str | None = None) -> None:
    """No mention, link or special token but ours: reference links, dates, the on-call group."""
    for text in mrkdwn_texts(messages):
        for token in ANGLE.findall(text):
            if token.startswith("!date^"):
                assert re.fullmatch(
                    r"!date\^\d+\^\{date_short_pretty\} at \{time\}\|[\d :UTC-]+", token
                )
            elif token.startswith("!subteam^"):
                assert oncall is not None and token == f"!subteam^{oncall}"
            else:
                url, _, label = token.partition("|")
                assert unescape_mrkdwn(url) in urls, token
                assert "<" not in label and ">" not in label
        assert "```" not in text
        assert not text.startswith("&gt;")
        assert "<!channel>" not in text and "<@" not in text
    for message in messages:
        for block in message.blocks:
            for obj in [block.get("text"), *block.get("elements", ())]:
                if obj and obj["type"] == "mrkdwn":
                    assert obj["verbatim"] is True


def assert_within_limits(messages: list[SlackMessage]) -> None:
    """Every message valid for slack-sdk's models and within Slack's limits."""
    assert messages
    for message in messages:
        assert 1 <= len(message.blocks) <= MAX_BLOCKS
        assert message.text
        for raw in message.blocks:
            parsed = Block.parse(raw)
            assert parsed is not None, raw
            parsed.validate_json()
            if raw["type"] in ("section", "context"):
                text = (
                    raw["text"]["text"] if raw["type"] == "section" else raw["elements"][0]["text"]
                )
                assert 0 < len(text) <= SECTION_CHARS
            if raw["type"] == "header":
                assert 0 < len(raw["text"]["text"]) <= HEADER_CHARS


def _readable(mrkdwn: str) -> str:
    """mrkdwn as read: links as their labels, the group mention gone, entities decoded."""
    text = re.sub(r"<!subteam\^\w+>", "", mrkdwn)
    return unescape_mrkdwn(re.sub(r"<[^<>|]*\|([^<>]*)>", r"\1", text))


def visible(messages: list[SlackMessage]) -> str:
    """What a reader sees, in order: headers as they are, mrkdwn through `_readable`."""
    out = []
    for message in messages:
        for block in message.blocks:
            if block["type"] == "header":
                out.append(block["text"]["text"])
            elif block["type"] == "section":
                out.append(_readable(block["text"]["text"]))
            elif block["type"] == "context":
                out.append(_readable(block["elements"][0]["text"]))
    return " ".join(out)


def squeeze(text: str) -> str:
    """Text compared without whitespace, zero-width spaces, ellipses or "[ref:n]" forms."""
    text = CITATION.sub(lambda m: f"[{m.group(1)}]", one_line(text))
    return "".join(text.replace(ZWSP, "").replace("…", "").split())


def story_with(texts: list[str], *, url: str = "https://github.com/o/r/pull/1") -> Story:
    """A story whose every source field is one of `texts` (cycled)."""

    def pick(i: int) -> str:
        return texts[i % len(texts)]

    refs = tuple(
        Reference(n=i + 1, repo="o/r", number=i + 1, title=pick(i), url=f"{url[:-1]}{i + 1}")
        for i in range(3)
    )
    return Story(
        id="story_hostile",
        window=WINDOW,
        repos=("o/r",),
        headline=pick(3),
        lede=pick(4),
        body=(Sentence(text=f"{pick(5)} [1]", refs=(1,)), Sentence(text=pick(6), refs=(2, 3))),
        action_items=(
            ActionItem(id="item_1", text=pick(7), urgency="immediate", repo="o/r", refs=(1,)),
            ActionItem(id="item_2", text=pick(8), urgency="plan", repo=pick(9), refs=(3,)),
        ),
        references=refs,
    )


def rendered(
    story: Story, *, acks: tuple[AckMark, ...] = ()
) -> list[tuple[Part, list[SlackMessage]]]:
    out = []
    for part in parts_of(story):
        if isinstance(part, ActionItemPart) and acks:
            part = part.model_copy(update={"acks": acks})
        out.append((part, render(part)))
    return out


def test_escape_neutralizes_mentions_links_and_layout() -> None:
    assert escape_mrkdwn("<!channel> & <@U1>") == "&lt;!channel&gt; &amp; &lt;@U1&gt;"
    assert escape_mrkdwn("&amp;") == "&amp;amp;"
    assert escape_mrkdwn("```code```") == f"`{ZWSP}`{ZWSP}`code`{ZWSP}`{ZWSP}`"
    assert escape_mrkdwn("use `torch.compile`") == "use `torch.compile`"
    assert escape_mrkdwn("> quote\nline") == f"{ZWSP}&gt; quote line"
    assert escape_mrkdwn(" >").strip().startswith(ZWSP)
    assert escape_mrkdwn("*bold* _it_") == "*bold* _it_"


def test_link_validates_the_url_and_escapes_the_label() -> None:
    assert (
        link("https://x.org/a?b=1&c=2", "<!here>") == "<https://x.org/a?b=1&amp;c=2|&lt;!here&gt;>"
    )
    assert link("javascript:alert(1)", "t") == "t (javascript:alert(1))"
    assert link("https://evil|click", "t") == "t (https://evil|click)"
    assert link("https://x.org/>", "t").startswith("t (")
    assert link("ftp://x.org/", "t") == "t (ftp://x.org/)"


def test_only_user_group_ids_become_mentions() -> None:
    assert user_group_mention(ONCALL) == f"<!subteam^{ONCALL}>"
    for bad in ("here", "channel", "U123", "S1>|<!channel", "<!subteam^S1>", ""):
        with pytest.raises(ValueError):
            user_group_mention(bad)


def test_real_story_renders_one_message_per_part_with_linked_citations() -> None:
    story = compose(executorch(), config=example_config(), window=window(*SHOWCASE_WINDOW))
    urls = {ref.url for ref in story.references}
    for _part, messages in rendered(story):
        assert len(messages) == 1
        assert_within_limits(messages)
        assert_safe(messages, urls)
    body = render(parts_of(story)[1])[0].blocks[0]["text"]["text"]
    first = story.references[0]
    assert f"[<{first.url}|1>]" in body
    assert "[1] [" not in body  # cited once, in place


@pytest.mark.parametrize("hostile", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_never_pings_nor_links_nor_breaks_layout(hostile: str) -> None:
    story = story_with([hostile])
    acks = (AckMark(hostile, datetime(2026, 3, 2, 10, 30, tzinfo=UTC)),)
    urls = {ref.url for ref in story.references}
    for _part, messages in rendered(story, acks=acks):
        assert_within_limits(messages)
        assert_safe(messages, urls)
    for text in plain_texts([m for _, ms in rendered(story) for m in ms]):
        assert "\n" not in text


def test_hostile_reference_urls_are_shown_not_linked() -> None:
    for url in ("javascript:alert(1)", "https://evil.example|click", "https://a>b"):
        ref = Reference(n=1, repo="o/r", number=1, title="T", url=url)
        story = story_with(["t [1]"]).model_copy(update={"references": (ref,)})
        for _, messages in rendered(story):
            assert_safe(messages, set())


def test_a_long_headline_continues_in_a_section_without_losing_words() -> None:
    words = " ".join(f"WORD{i}" for i in range(60))
    story = story_with([words])
    messages = render(parts_of(story)[0])
    head = messages[0].blocks[0]
    assert head["type"] == "header" and head["text"]["text"].endswith("…")
    assert not head["text"]["text"][:-1].endswith("WORD")  # cut between words
    assert squeeze(words) in squeeze(visible(messages))


def test_action_item_shows_acks_and_keeps_its_button() -> None:
    story = story_with(["Rebuild the delegate [1]"])
    part = parts_of(story)[2]
    assert isinstance(part, ActionItemPart)
    acks = (
        AckMark("ana", datetime(2026, 3, 2, 10, 30, tzinfo=UTC)),
        AckMark("bo", datetime(2026, 3, 2, 11, 0, tzinfo=UTC)),
    )
    [message] = render(part.model_copy(update={"acks": acks}))
    first = message.blocks[0]
    assert first["accessory"]["action_id"] == ACK_ACTION_ID
    assert first["accessory"]["value"] == "item_1"
    assert "*[immediate]*" in first["text"]["text"]
    ack_text = message.blocks[-1]["elements"][0]["text"]
    assert "Acknowledged by ana" in ack_text and "Acknowledged by bo" in ack_text
    assert f"<!date^{int(acks[0].acked_at.timestamp())}^" in ack_text
    assert "2026-03-02 10:30 UTC" in ack_text


def test_reminder_mentions_only_the_configured_group() -> None:
    item = ActionItem(id="i", text="<!channel> fix it <@U1>", urgency="immediate", repo="o/r")
    mentioned = render(ReminderPart(index=2, story_id="s", item=item, oncall=ONCALL))
    assert_safe(mentioned, set(), oncall=ONCALL)
    assert f"<!subteam^{ONCALL}>" in mentioned[0].blocks[0]["text"]["text"]
    for oncall in (None, "<!channel>", "here"):
        quiet = render(ReminderPart(index=2, story_id="s", item=item, oncall=oncall))
        assert_safe(quiet, set())
        assert "subteam" not in " ".join(mrkdwn_texts(quiet))


def test_a_huge_reference_list_splits_into_sections_and_messages() -> None:
    refs = tuple(
        Reference(n=i, repo="o/r", number=i, title=f"Change {i} " * 30, url=f"https://x.org/{i}")
        for i in range(1, 701)
    )
    story = story_with(["t [1]"]).model_copy(update={"references": refs})
    messages = render(parts_of(story)[-1])
    assert len(messages) > 1
    assert_within_limits(messages)
    text = visible(messages)
    for ref in (refs[0], refs[349], refs[-1]):
        assert squeeze(f"[{ref.n}] {ref.title}") in squeeze(text)
    assert all(m.text for m in messages[1:]) and messages[1].text.startswith("(continued)")


def body_of(story: Story) -> BodyPart:
    [body] = [part for part in parts_of(story) if isinstance(part, BodyPart)]
    return body


def test_a_sectioned_body_opens_each_paragraph_with_its_heading_in_bold() -> None:
    story = sectioned_story()
    assert len(story.sections) >= 3
    messages = render(body_of(story))
    assert_within_limits(messages)
    assert_safe(messages, {ref.url for ref in story.references})
    sections = [b["text"]["text"] for m in messages for b in m.blocks if b["type"] == "section"]
    openings = [text.split("\n", 1)[0] for text in sections if text.startswith("*")]
    assert openings == [f"*{escape_mrkdwn(s.heading)}*" for s in story.sections]
    for (heading, sentences), text in zip(story.paragraphs(), sections, strict=True):
        assert heading is not None
        rest = text.split("\n", 1)[1]
        assert squeeze(_readable(rest)) == squeeze(" ".join(s.text for s in sentences))
    first_ref = story.references[0]
    assert f"[<{first_ref.url}|1>]" in sections[0]


@pytest.mark.parametrize("hostile", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_headings_are_escaped_and_kept_whole(hostile: str) -> None:
    story = story_with(["Plain words [1]"]).model_copy(
        update={"sections": (Section(heading=hostile, start=0, end=1),)}
    )
    messages = render(body_of(story))
    assert_within_limits(messages)
    assert_safe(messages, {ref.url for ref in story.references})
    first = messages[0].blocks[0]["text"]["text"]
    assert first.startswith("*")  # the heading, in bold, opens the paragraph
    seen = squeeze(visible(messages)).replace("*", "")
    assert squeeze(hostile).replace("*", "") + squeeze("Plain words [1]") in seen


def test_a_body_of_many_sections_continues_in_follow_up_messages() -> None:
    sentences = tuple(Sentence(text=f"Change {i} lands [1].", refs=(1,)) for i in range(60))
    sections = tuple(Section(heading=f"Topic {i}", start=i, end=i + 1) for i in range(60))
    story = story_with(["t [1]"]).model_copy(update={"body": sentences, "sections": sections})
    messages = render(body_of(story))
    assert [len(m.blocks) for m in messages] == [MAX_BLOCKS, 60 - MAX_BLOCKS]
    assert messages[1].text.startswith("(continued)")
    assert_within_limits(messages)
    blocks = [b["text"]["text"] for m in messages for b in m.blocks]
    assert blocks[59].startswith("*Topic 59*\nChange 59 lands")


_HOSTILE_CHARS = st.sampled_from(
    [
        "<",
        ">",
        "&",
        "`",
        "|",
        "!",
        "@",
        "\n",
        " ",
        ".",
        "*",
        "_",
        "[1]",
        "[ref:2]",
        "<!channel>",
        "<@U1>",
        "&amp;",
        ZWSP,
        "é",
        "🦀",
    ]
)
_TEXT = st.one_of(
    st.text(max_size=300),
    st.lists(_HOSTILE_CHARS | st.text(min_size=1, max_size=40), max_size=400).map("".join),
    st.integers(3000, 7000).map(lambda n: "w" * n),
)
_URL = st.sampled_from(
    ["https://github.com/o/r/pull/", "http://x.org/?a=1&b=", "javascript:x", "https://e|v/"]
)


@st.composite
def stories(draw: st.DrawFn) -> Story:
    n_refs = draw(st.integers(1, 4))
    refs = tuple(
        Reference(n=i, repo="o/r", number=i, title=draw(_TEXT), url=f"{draw(_URL)}{i}")
        for i in range(1, n_refs + 1)
    )
    numbers = st.lists(st.integers(1, n_refs), max_size=3).map(tuple)
    body = tuple(
        Sentence(text=draw(_TEXT), refs=draw(numbers)) for _ in range(draw(st.integers(0, 4)))
    )
    items = tuple(
        ActionItem(
            id=f"item_{i}",
            text=draw(_TEXT),
            urgency=draw(st.sampled_from(["immediate", "monitor", "plan"])),
            repo=draw(_TEXT),
            refs=draw(numbers),
        )
        for i in range(draw(st.integers(0, 3)))
    )
    return Story(
        id="story_prop",
        window=WINDOW,
        repos=("o/r",),
        headline=draw(_TEXT) or "H",
        lede=draw(_TEXT),
        body=body,
        action_items=items,
        references=refs,
    )


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(story=stories(), ack_name=_TEXT)
def test_any_story_renders_within_limits_safely_and_completely(story: Story, ack_name: str) -> None:
    urls = {ref.url for ref in story.references}
    acks = (AckMark(ack_name, datetime(2026, 3, 2, 10, 30, tzinfo=UTC)),)
    for part, messages in rendered(story, acks=acks):
        assert_within_limits(messages)
        assert_safe(messages, urls)
        seen = squeeze(visible(messages))
        expected = {
            "parent": [story.headline, story.lede],
            "body": [s.text for s in story.body],
            "action_item": [ack_name],
            "references": [ref.title for ref in story.references],
        }[part.kind]
        if isinstance(part, ActionItemPart):
            expected += [part.item.text, part.item.repo]
        for text in expected:
            assert squeeze(text) in seen
