"""Each posted story's parent message links to its archive page (`[web] public_url`): the
parent part carries the address, Slack shows it as a context link, Discord as a masked
link, the console as a line; without a public URL, or with one that could break out of
the link, there is none."""

from __future__ import annotations

import json

from bot.delivery.parts import ParentPart, parts_of, permalink
from bot.delivery.platform import render_text
from bot.discord.render import render as discord_render
from bot.slack.render import render as slack_render
from tests.conftest import build_story

PUBLIC = "https://wire.example.com/"


def parent(public_url: str | None) -> ParentPart:
    part = parts_of(build_story(1), public_url=public_url)[0]
    assert isinstance(part, ParentPart)
    return part


def test_the_parent_part_carries_the_story_address_only_with_a_public_url() -> None:
    story = build_story(1)
    assert parent(PUBLIC).permalink == f"https://wire.example.com/stories/{story.id}"
    assert parent(None).permalink is None
    assert (
        permalink(story.id, "http://127.0.0.1:3000") == f"http://127.0.0.1:3000/stories/{story.id}"
    )
    assert all(p.kind != "parent" for p in parts_of(story, public_url=PUBLIC)[1:])


def test_slack_links_the_parent_to_the_archive() -> None:
    [message] = slack_render(parent(PUBLIC))
    last = message.blocks[-1]
    assert last["type"] == "context"
    assert last["elements"][0]["text"] == f"<{parent(PUBLIC).permalink}|Read it in the archive>"
    [plain] = slack_render(parent(None))
    assert "archive" not in json.dumps(plain.payload())
    hostile = parent(PUBLIC).model_copy(update={"permalink": "https://x.example/a|<!channel>"})
    assert "<!channel>" not in json.dumps(slack_render(hostile)[0].payload())


def test_discord_links_the_parent_to_the_archive() -> None:
    [payload] = discord_render(parent(PUBLIC))
    description = payload["embeds"][0]["description"]
    assert description.endswith(f"\n\n[Read it in the archive]({parent(PUBLIC).permalink})")
    [plain] = discord_render(parent(None))
    assert "archive" not in json.dumps(plain)
    hostile = parent(PUBLIC).model_copy(update={"permalink": "https://x.example/a) [@everyone]("})
    assert "@everyone" not in json.dumps(discord_render(hostile))


def test_the_console_prints_the_address_under_the_parent() -> None:
    text = render_text(parent(PUBLIC))
    assert text.splitlines()[-1] == f"Read it at {parent(PUBLIC).permalink}"
    assert "Read it at" not in render_text(parent(None))
