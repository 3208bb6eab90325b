"""Discord rendering: stories composed from real activity become payloads that keep Discord's
limits by splitting, lose no text, ping nobody but the on-call role and link only to the
story's own references."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from functools import cache

import discord
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.delivery.parts import (
    AckMark,
    ActionItemPart,
    BodyPart,
    ParentPart,
    ReferencesPart,
    ReminderPart,
    item_part,
    parts_of,
    reminder_part,
)
from bot.discord.escape import allowed_mentions, allowed_mentions_json, escape_text
from bot.discord.limits import split_text, units
from bot.discord.render import ack_custom_id, action_rows, edit_payload, render, thread_name
from bot.discord.views import AckView, edit_arguments, parse_ack_custom_id
from digest.compose import compose
from digest.model import ActionItem, Reference, Section, Sentence, Story
from tests.digest_data import (
    SHOWCASE_WINDOW,
    example_config,
    executorch,
    sectioned_story,
    window,
)

ROLE = 987654321098765432
HOSTILE = (
    "@everyone",
    "@here",
    "<@123>",
    "<@!123456789012345678>",
    "<@&456>",
    "<#789>",
    "[click](https://evil.example)",
    "**bold** __u__ ~~s~~ ||spoiler|| `code`",
    "> quote\n# heading\n-# small\n1. list",
    "\\<@&456>",
    "\\\\[x](https://evil.example)",
    "<t:0:R> <:emoji:123>",
    "x" * 5000,
)
# What Discord would read as a ping, a channel link or a masked link, ignoring escaped ones.
MENTION = re.compile(r"(?<!\\)<(?:@[!&]?|#)\d+>|@(?:everyone|here)")
LINK = re.compile(r"(?<!\\)\[((?:\\.|[^\]\\])*)\]\(([^)\s]*)\)")


@cache
def story() -> Story:
    return compose(executorch(), config=example_config(), window=window(*SHOWCASE_WINDOW))


@cache
def hostile_story(title: str) -> Story:
    """The showcase story composed again after every PR was given a hostile title."""
    poisoned = [
        a.model_copy(update={"title": f"{title} {a.title}", "author": title}) for a in executorch()
    ]
    return compose(poisoned, config=example_config(), window=window(*SHOWCASE_WINDOW))


def hostile_parts(text: str) -> list:
    """Every kind of part with `text` in every untrusted field."""
    refs = (
        Reference(
            n=1,
            repo="pytorch/executorch",
            number=1,
            title=text,
            url="https://github.com/pytorch/executorch/pull/1",
        ),
        Reference(n=2, repo=text, number=None, title=text, url=f"https://evil.example/{text}"),
    )
    item = ActionItem(
        id="item_abc", text=f"{text} [1]", urgency="immediate", repo=text, refs=(1, 2)
    )
    acks = (AckMark(user_name=text, acked_at=datetime(2026, 5, 25, 10, tzinfo=UTC)),)
    return [
        ParentPart(index=0, story_id="s", headline=text, lede=text, window_label=text[:100]),
        BodyPart(
            index=1,
            story_id="s",
            sentences=(Sentence(text=f"{text} [1]", refs=(1,)),),
            references=refs,
        ),
        ActionItemPart(index=2, story_id="s", item=item, references=refs, acks=acks),
        ReferencesPart(index=3, story_id="s", references=refs),
        ReminderPart(index=2, story_id="s", item=item, oncall=text),
    ]


def texts(payload: dict) -> list[str]:
    """Every piece of text Discord renders with markdown (footers render none)."""
    found = [payload.get("content") or ""]
    for embed in payload.get("embeds", []):
        found += [embed.get("title") or "", embed.get("description") or ""]
    return found


def shown(text: str) -> str:
    """What a reader sees: our links by their labels, our bold gone, escapes resolved."""
    text = LINK.sub(lambda m: m.group(1), text)
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
        elif text.startswith("**", i):
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out).replace("\u200b", "")


def flat(text: str) -> str:
    """Source text as it is meant to read on one line."""
    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]", "", text)
    return re.sub(r"[\r\n\t]+", " ", text)


def assert_fits(payload: dict) -> None:
    """Every Discord limit on one message."""
    assert payload.get("content") or payload.get("embeds")
    assert units(payload.get("content") or "") <= 2000
    embeds = payload.get("embeds", [])
    assert len(embeds) <= 10
    total = 0
    for embed in embeds:
        title, description = embed.get("title") or "", embed.get("description") or ""
        footer = (embed.get("footer") or {}).get("text") or ""
        assert units(title) <= 256 and units(description) <= 4096 and units(footer) <= 2048
        total += units(title) + units(description) + units(footer)
    assert total <= 6000
    rows = payload.get("components", [])
    assert len(rows) <= 5
    for row in rows:
        assert row["type"] == 1 and 1 <= len(row["components"]) <= 5
        for button in row["components"]:
            assert len(button["custom_id"]) <= 100
    for text in texts(payload):
        trailing = len(text) - len(text.rstrip("\\"))
        assert trailing % 2 == 0, "a message ends inside an escape"


def assert_inert(payloads: list[dict], urls: set[str], *, role: int | None) -> None:
    """No ping but the role's, no link but to the story's references, mentions restricted."""
    for payload in payloads:
        assert payload["allowed_mentions"] in (
            allowed_mentions_json(None),
            allowed_mentions_json(role),
        )
        assert payload["allowed_mentions"]["parse"] == []
        for text in texts(payload):
            pings = [m.group(0) for m in MENTION.finditer(text) if m.group(0) != f"<@&{role}>"]
            assert not pings, (pings, text[:200])
            for link in LINK.finditer(text):
                assert link.group(2) in urls, link.group(0)


def test_the_showcase_story_renders_within_limits_with_linked_citations():
    parts = parts_of(story())
    payloads = [p for part in parts for p in render(part, oncall_role_id=ROLE)]
    for payload in payloads:
        assert_fits(payload)
    assert_inert(payloads, {r.url for r in story().references}, role=ROLE)
    parent = render(parts[0])[0]["embeds"][0]
    assert parent["title"] == escape_text(story().headline)
    body = render(parts[1])[0]["embeds"][0]["description"]
    first = story().references[0]
    assert f"[\\[1\\]]({first.url})" in body
    assert shown(body) == " ".join(s.text for s in story().body)
    refs = render(parts[-1])[0]["embeds"][0]["description"].splitlines()
    assert len(refs) == len(story().references)
    assert refs[0].startswith("\\[1\\] [") and refs[0].endswith(f"]({first.url})")
    assert thread_name(parts[0]) == story().headline


@pytest.mark.parametrize("title", HOSTILE)
def test_hostile_titles_in_composed_stories_ping_nobody_and_link_nowhere(title):
    hostile = hostile_story(title)
    urls = {r.url for r in hostile.references}
    for part in parts_of(hostile):
        payloads = render(part, oncall_role_id=ROLE)
        for payload in payloads:
            assert_fits(payload)
        assert_inert(payloads, urls, role=ROLE)


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_in_every_field_pings_nobody_and_loses_nothing(text):
    parts = hostile_parts(text)
    urls = {"https://github.com/pytorch/executorch/pull/1"}
    for part in parts:
        payloads = render(part, oncall_role_id=ROLE)
        for payload in payloads:
            assert_fits(payload)
        assert_inert(payloads, urls, role=ROLE)
        seen = shown("".join(t for p in payloads for t in texts(p)))
        assert flat(text) in seen
    reminder = render(parts[-1], oncall_role_id=ROLE)
    assert reminder[0]["content"].startswith(f"<@&{ROLE}> ")
    assert reminder[0]["allowed_mentions"]["roles"] == [str(ROLE)]


def test_a_reminder_pings_only_the_configured_role_and_nothing_without_one():
    item = next(i for i in story().action_items)
    immediate = item.model_copy(update={"urgency": "immediate"})
    reminder = ReminderPart(index=2, story_id=story().id, item=immediate, oncall="<@&1>")
    with_role = render(reminder, oncall_role_id=ROLE)[0]
    assert with_role["content"].startswith(f"<@&{ROLE}> ⏰ Not acknowledged yet")
    assert "<@&1>" not in with_role["content"]
    without = render(reminder)[0]
    assert not MENTION.search(without["content"])
    assert without["allowed_mentions"] == {
        "parse": [],
        "users": [],
        "roles": [],
        "replied_user": False,
    }
    assert reminder_part(story(), story().action_items[0].id, oncall=None).kind == "reminder"


def test_allowed_mentions_object_and_json_allow_only_the_role():
    assert allowed_mentions(ROLE).to_dict() == {"parse": [], "roles": [ROLE]}
    assert allowed_mentions(None).to_dict() == {"parse": []}
    merged = discord.AllowedMentions.all().merge(allowed_mentions(ROLE))
    assert merged.everyone is False and merged.users is False and merged.replied_user is False
    assert allowed_mentions_json(ROLE) == {
        "parse": [],
        "users": [],
        "roles": [str(ROLE)],
        "replied_user": False,
    }


def test_an_immediate_item_has_a_stable_acknowledge_button_and_shows_its_acks():
    item = story().action_items[0].model_copy(update={"urgency": "immediate"})
    hot = story().model_copy(update={"action_items": (item, *story().action_items[1:])})
    acks = [
        AckMark(
            user_name=f"@everyone{n}",
            acked_at=datetime(2026, 5, 25, 10, tzinfo=UTC) + timedelta(minutes=n),
        )
        for n in range(25)
    ]
    part = item_part(hot, item.id, acks)
    payloads = render(part, oncall_role_id=ROLE)
    assert len(payloads) == 1
    button = payloads[0]["components"][0]["components"][0]
    assert button == {
        "type": 2,
        "style": 3,
        "label": "Acknowledge",
        "custom_id": f"wire:ack:{item.id}",
    }
    footer = payloads[0]["embeds"][0]["footer"]["text"]
    assert footer.startswith("✓ Acknowledged by @everyone0 (2026-05-25 10:00 UTC)")
    assert footer.endswith("and 5 more")
    edit = edit_payload(part, oncall_role_id=ROLE)
    assert edit["components"] == payloads[0]["components"] and edit["content"] is None
    assert_fits(edit)
    # an item that is not [immediate] (the story's own [monitor] one) has no button
    plan = item_part(story(), story().action_items[0].id)
    assert story().action_items[0].urgency != "immediate"
    assert "components" not in render(plan)[0]
    assert edit_payload(plan)["components"] == []


def test_custom_ids_and_rows_refuse_what_discord_would_refuse():
    assert ack_custom_id("item_6f82dc6cfd5194f5") == "wire:ack:item_6f82dc6cfd5194f5"
    for bad in ("", "x" * 92, "é"):
        with pytest.raises(ValueError):
            ack_custom_id(bad)
    buttons = [{"type": 2, "style": 3, "label": str(n), "custom_id": f"b{n}"} for n in range(12)]
    assert [len(r["components"]) for r in action_rows(buttons)] == [5, 5, 2]
    with pytest.raises(ValueError):
        action_rows(buttons * 3)


def test_split_text_never_cuts_an_escape_or_a_link():
    link = "[\\[1\\]](https://github.com/pytorch/executorch/pull/1)"
    text = ("\\*" * 30) + link + ("y" * 40)
    chunks = split_text(text, 70)
    assert "".join(chunks) == text
    assert all(units(c) <= 70 for c in chunks)
    assert link in chunks[1]
    assert not chunks[0].endswith("\\") or chunks[0].endswith("\\\\")
    assert split_text("😀" * 3, 4) == ["😀😀", "😀"]


def test_split_text_never_cuts_a_bold_heading():
    text = "y " * 30 + "**A heading of\\ several words**\ntext"
    chunks = split_text(text, 70)
    assert "".join(chunks) == text
    assert all(units(c) <= 70 for c in chunks)
    assert all(c.count("**") % 2 == 0 for c in chunks)
    assert chunks[1].startswith("**A heading")


def body_payloads(s: Story) -> list[dict]:
    [body] = [part for part in parts_of(s) if isinstance(part, BodyPart)]
    return render(body, oncall_role_id=ROLE)


def descriptions(payloads: list[dict]) -> str:
    return "".join(e.get("description", "") for p in payloads for e in p.get("embeds", []))


def test_a_sectioned_body_puts_each_heading_on_a_bold_line_over_its_sentences():
    s = sectioned_story()
    assert len(s.sections) >= 3
    payloads = body_payloads(s)
    for payload in payloads:
        assert_fits(payload)
    assert_inert(payloads, {ref.url for ref in s.references}, role=ROLE)
    paragraphs = descriptions(payloads).split("\n\n")
    assert len(paragraphs) == len(s.paragraphs())
    for text, (heading, sentences) in zip(paragraphs, s.paragraphs(), strict=True):
        head, rest = text.split("\n", 1)
        assert head == f"**{escape_text(heading)}**"
        assert shown(rest) == " ".join(flat(x.text) for x in sentences)


@pytest.mark.parametrize("hostile", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_headings_are_inert_and_kept_whole(hostile):
    s = story().model_copy(
        update={"sections": (Section(heading=hostile, start=0, end=len(story().body)),)}
    )
    payloads = body_payloads(s)
    for payload in payloads:
        assert_fits(payload)
    assert_inert(payloads, {ref.url for ref in s.references}, role=ROLE)
    text = descriptions(payloads)
    assert shown(text).startswith(" ".join(flat(hostile).split()) + "\n")
    bold = text.split("\n", 1)[0]
    assert bold.startswith("**") == (units(escape_text(hostile)) <= 256)


def test_a_long_sectioned_body_splits_between_embeds_never_inside_a_bold_heading():
    sentences = tuple(Sentence(text=f"{'word ' * 60}[1]", refs=(1,)) for _ in range(40))
    sections = tuple(Section(heading=f"Topic number {i}", start=i, end=i + 1) for i in range(40))
    s = story().model_copy(update={"body": sentences, "sections": sections})
    payloads = body_payloads(s)
    embeds = [e["description"] for p in payloads for e in p["embeds"]]
    assert len(embeds) > 1
    for payload in payloads:
        assert_fits(payload)
    for description in embeds:
        assert description.count("**") % 2 == 0
    assert descriptions(payloads).count("**Topic number") == 40


any_text = st.text(st.characters(codec="utf-8"), max_size=9000) | st.sampled_from(HOSTILE)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    headline=any_text,
    lede=any_text,
    sentences=st.lists(any_text, max_size=4),
    titles=st.lists(any_text, min_size=1, max_size=30),
    acks=st.lists(st.text(max_size=60), max_size=30),
)
def test_any_lengths_fit_discords_limits_and_keep_all_text(headline, lede, sentences, titles, acks):
    refs = tuple(
        Reference(n=n, repo="o/r", number=n, title=t, url=f"https://github.com/o/r/pull/{n}")
        for n, t in enumerate(titles, start=1)
    )
    item = ActionItem(id="item_1", text=lede, urgency="immediate", repo="o/r", refs=(1,))
    marks = tuple(AckMark(user_name=a, acked_at=datetime(2026, 1, 1, tzinfo=UTC)) for a in acks)
    cases = [
        (
            ParentPart(index=0, story_id="s", headline=headline, lede=lede, window_label="w"),
            [headline, lede],
        ),
        (
            BodyPart(
                index=1,
                story_id="s",
                sentences=tuple(Sentence(text=s) for s in sentences),
                references=refs,
            ),
            sentences,
        ),
        (ActionItemPart(index=2, story_id="s", item=item, references=refs, acks=marks), [lede]),
        (ReferencesPart(index=3, story_id="s", references=refs), titles),
        (ReminderPart(index=2, story_id="s", item=item), [lede]),
    ]
    urls = {r.url for r in refs}
    for part, sources in cases:
        payloads = render(part, oncall_role_id=ROLE)
        for payload in payloads:
            assert_fits(payload)
        assert_inert(payloads, urls, role=ROLE)
        seen = shown("".join(t for p in payloads for t in texts(p)))
        position = 0
        for source in sources:
            found = seen.find(flat(source), position)
            assert found >= 0, "text lost in splitting"
            position = found + len(flat(source))


async def test_the_ack_view_is_persistent_and_matches_the_rendered_button():
    item = story().action_items[0].model_copy(update={"urgency": "immediate"})
    hot = story().model_copy(update={"action_items": (item,)})
    part = item_part(hot, item.id, [AckMark("ana", datetime(2026, 5, 25, 10, tzinfo=UTC))])
    view = AckView(item.id)
    assert view.timeout is None and view.is_persistent()
    rendered = render(part)[0]
    components = view.to_components()
    for row in components:
        for button in row["components"]:
            assert button.pop("disabled") is False
    assert components == rendered["components"]
    arguments = edit_arguments(part, oncall_role_id=ROLE)
    embeds = [{k: v for k, v in e.to_dict().items() if k != "flags"} for e in arguments["embeds"]]
    assert embeds == rendered["embeds"] and arguments["content"] is None
    assert arguments["allowed_mentions"].to_dict() == {"parse": [], "roles": [ROLE]}
    assert edit_arguments(item_part(story(), story().action_items[0].id))["view"] is None


def test_ack_custom_ids_parse_back_to_their_item():
    assert parse_ack_custom_id(ack_custom_id("item_6f82dc6cfd5194f5")) == "item_6f82dc6cfd5194f5"
    for other in ("wire:ack:", "wire:ack:a b", "wire:snooze:item_1", "x" + ack_custom_id("i")):
        assert parse_ack_custom_id(other) is None
