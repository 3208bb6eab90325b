"""The pure pieces of the Discord front end: completions, what a reply looks like, which
permission a setting names, and how a preview's embeds are packed."""

from __future__ import annotations

import pytest

from bot.discord.commands import completions, exclusions
from bot.discord.escape import ZWSP
from bot.discord.frontend import (
    check_permission_name,
    embed_groups,
    permission_label,
    reply_chunks,
)
from bot.discord.limits import CONTENT_MAX, EMBEDS_TOTAL_MAX, embed_chars
from bot.discord.views import parse_ack_custom_id
from bot.errors import SettingsError


def test_completions_complete_the_last_word_prefixes_first():
    names = ["ci-infra", "executorch", "topic:CI", "topic:Docs"]
    assert [c.value for c in completions("executorch topic:c", names)] == ["executorch topic:CI"]
    assert [c.value for c in completions("ci", names)] == ["ci-infra", "topic:CI"]
    assert len(completions("", [f"p{n}" for n in range(40)])) == 25
    assert completions("x" * 99 + " ", ["long"]) == []  # a value may not pass 100 chars


def test_exclusions_take_a_leading_dash_or_not():
    assert exclusions("author:bot -topic:docs") == "-author:bot -topic:docs"
    assert exclusions(None) is None and exclusions("") is None


def test_reply_text_is_inert_line_by_line_and_split_at_discord_limit():
    (chunk,) = reply_chunks("Sorry: `@everyone` is not a project.\nUsage: /wire subscribe X")
    assert chunk.count("\n") == 1 and f"@{ZWSP}everyone" in chunk
    long = reply_chunks("\n".join(["word " * 30] * 40))
    assert len(long) > 1 and all(len(c) <= CONTENT_MAX for c in long)


def test_the_permission_setting_names_a_real_flag():
    assert check_permission_name("manage_channels") == "manage_channels"
    assert check_permission_name("") == ""
    with pytest.raises(SettingsError, match="is not a Discord permission"):
        check_permission_name("manage_channel")
    assert permission_label("manage_guild") == "Manage Guild"


def test_preview_embeds_are_packed_within_a_message_limits():
    embeds = [{"type": "rich", "description": "x" * 2500} for _ in range(7)]
    groups = embed_groups(embeds)
    sizes = [sum(embed_chars(e.to_dict()) for e in group) for group in groups]
    assert [len(g) for g in groups] == [2, 2, 2, 1]
    assert all(size <= EMBEDS_TOTAL_MAX for size in sizes)


def test_only_well_formed_ack_custom_ids_name_an_item():
    assert parse_ack_custom_id("wire:ack:item_6f82dc6cfd5194f5") == "item_6f82dc6cfd5194f5"
    assert parse_ack_custom_id("wire:ack:") is None
    assert parse_ack_custom_id("wire:ack:a b") is None
