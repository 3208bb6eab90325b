"""The Acknowledge button: a dynamic item whose custom_id ("wire:ack:<item id>") carries all
it needs, so a button posted before a restart still works after it.

`ack_button(on_ack)` binds the handler and gives the class to register once with
`client.add_dynamic_items(...)`; discord.py then builds a button from any matching
custom_id it receives. The handler records the ack and answers with the item's part
re-rendered with its acks (the press edits the message in place), with `Acked` when the
message was already edited another way (the press is acknowledged without a second edit),
or with None when the item is unknown. A subclass may override `answer` to use more of the
interaction than the presser (e.g. the channel the button is in). `AckView` is the
persistent view (timeout=None) the button lives in when a message is sent or edited through
discord.py objects.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import discord

from bot.delivery.parts import Part, item_id_of
from bot.discord.escape import allowed_mentions
from bot.discord.render import ACK_LABEL, ACK_PREFIX, CUSTOM_ID_MAX, ack_custom_id, edit_payload


@dataclass(frozen=True, slots=True)
class Acked:
    """The ack is recorded and the item's message already shows it; `note`, if any, is told
    to the presser alone (e.g. that they had acknowledged before)."""

    note: str | None = None


AckAnswer = Part | Acked | None


class AckHandler(Protocol):
    """Records the ack of `item_id` by the user; what the button then answers."""

    def __call__(self, item_id: str, user_id: int, user_name: str, /) -> Awaitable[AckAnswer]: ...


TEMPLATE = re.compile(
    re.escape(ACK_PREFIX) + rf"(?P<item_id>[\x21-\x7e]{{1,{CUSTOM_ID_MAX - len(ACK_PREFIX)}}})"
)
GONE = "This action item is no longer tracked, so it cannot be acknowledged."


def parse_ack_custom_id(custom_id: str) -> str | None:
    """The item id of an Acknowledge button's custom_id, or None if it is not one."""
    match = TEMPLATE.fullmatch(custom_id)
    return match["item_id"] if match else None


class AckButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=TEMPLATE):
    """The Acknowledge button of one action item (unbound: use `ack_button` to get a class
    that knows what to do when pressed)."""

    on_ack: ClassVar[AckHandler | None] = None
    oncall_role_id: ClassVar[int | None] = None

    def __init__(self, item_id: str) -> None:
        button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
            label=ACK_LABEL, style=discord.ButtonStyle.success, custom_id=ack_custom_id(item_id)
        )
        super().__init__(button)
        self.item_id = item_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> AckButton:
        """The button for a pressed custom_id (called by discord.py on dispatch)."""
        return cls(match["item_id"])

    async def answer(self, interaction: discord.Interaction) -> AckAnswer:
        """Record the ack of the presser through the bound handler."""
        if self.on_ack is None:
            raise RuntimeError("AckButton is unbound: register ack_button(on_ack) instead")
        user = interaction.user
        return await self.on_ack(self.item_id, user.id, user.display_name)

    async def callback(self, interaction: discord.Interaction) -> None:
        """Record the ack and answer the press (see the module doc)."""
        answer = await self.answer(interaction)
        response = interaction.response
        if answer is None:
            await response.send_message(
                GONE, ephemeral=True, allowed_mentions=allowed_mentions(None)
            )
        elif isinstance(answer, Acked):
            if answer.note is None:
                await response.defer()  # DEFERRED_UPDATE_MESSAGE: the message stays as edited
            else:
                await response.send_message(
                    answer.note, ephemeral=True, allowed_mentions=allowed_mentions(None)
                )
        else:
            await response.edit_message(
                **edit_arguments(answer, oncall_role_id=self.oncall_role_id, button=type(self))
            )


def ack_button(on_ack: AckHandler, *, oncall_role_id: int | None = None) -> type[AckButton]:
    """An `AckButton` class bound to `on_ack(item_id, user_id, user_name)`; register it with
    `client.add_dynamic_items(...)` once at start-up."""

    class BoundAckButton(AckButton, template=TEMPLATE):
        pass

    BoundAckButton.on_ack = staticmethod(on_ack)
    BoundAckButton.oncall_role_id = oncall_role_id
    return BoundAckButton


class AckView(discord.ui.View):
    """The persistent view holding an item's Acknowledge button."""

    def __init__(self, item_id: str, *, button: type[AckButton] = AckButton) -> None:
        super().__init__(timeout=None)
        self.add_item(button(item_id))


def edit_arguments(
    part: Part, *, oncall_role_id: int | None = None, button: type[AckButton] = AckButton
) -> dict[str, Any]:
    """`render.edit_payload(part)` as the keyword arguments of discord.py's `edit_message`
    (`Interaction.response.edit_message`, `Message.edit`): the same content, embeds,
    button and allowed mentions."""
    payload = edit_payload(part, oncall_role_id=oncall_role_id)
    item_id = item_id_of(part)
    view = AckView(item_id, button=button) if payload["components"] and item_id else None
    return {
        "content": payload["content"],
        "embeds": [discord.Embed.from_dict(embed) for embed in payload["embeds"]],
        "view": view,
        "allowed_mentions": allowed_mentions(oncall_role_id),
    }
