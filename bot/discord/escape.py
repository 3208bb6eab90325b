"""Make untrusted source text inert on Discord, and say whom a message may ping.

PR titles, bodies and author names come from the outside world. On Discord they must never
ping (`@everyone`, `@here`, `<@id>`, `<@!id>`, `<@&id>`), link a channel (`<#id>`), show a
custom emoji or timestamp (`<:x:id>`, `<t:…>`), hide a link behind other words
(`[click](https://evil)`) or restyle the message (`**`, `__`, `~~`, `||`, `` ` ``, `>`, `#`,
`-#`, lists). `escape_text` does all of that in one pass of our own, rather than
`discord.utils.escape_markdown` + `escape_mentions`, because those leave masked links inside
URLs and `<@123>` with short ids untouched:

1. control characters go, and line breaks and tabs become spaces (source text is one line);
2. every character Discord's markdown gives meaning to is preceded by a backslash, which
   Discord renders as the bare character — so `<@&456>` shows as typed but is no mention,
   and `[click](https://evil)` shows its brackets instead of becoming a link;
3. a zero-width space follows every `@`, so even a client that ignored the backslashes could
   not read `@everyone`, `@here` or `<@123>` as a mention.

Escaping is defence in depth: every payload also carries `allowed_mentions` that allow at
most the configured on-call role, so Discord itself refuses to ping anyone else.
"""

from __future__ import annotations

import re
from typing import Any

import discord

ZWSP = "\u200b"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_BREAKS = re.compile(r"[\r\n\t]+")
# Discord markdown: emphasis, strike, spoiler, code, quote, headings/subtext, lists,
# masked links, mentions/emoji/timestamps (<…>), escapes themselves, and `:` (autolinks).
_SPECIAL = re.compile(r"([\\*_~|`>#\-\[\]()<:!])")
_ORDERED = re.compile(r"^(\s*\d+)\.")  # "1. x" at the start would become a list


def escape_text(text: str) -> str:
    """`text` made inert for Discord content, embed titles and descriptions (see module doc)."""
    flat = _BREAKS.sub(" ", _CONTROL.sub("", text))
    escaped = _SPECIAL.sub(r"\\\1", flat).replace("@", "@" + ZWSP)
    return _ORDERED.sub(r"\1\\.", escaped)


def allowed_mentions(oncall_role_id: int | None) -> discord.AllowedMentions:
    """Mentions a message may ping: the on-call role if one is configured, nobody else."""
    roles: list[discord.abc.Snowflake] | bool = (
        [discord.Object(id=oncall_role_id)] if oncall_role_id is not None else False
    )
    return discord.AllowedMentions(everyone=False, users=False, roles=roles, replied_user=False)


def allowed_mentions_json(oncall_role_id: int | None) -> dict[str, Any]:
    """`allowed_mentions` as the JSON object of a REST payload (`parse` is always empty)."""
    payload: dict[str, Any] = {"parse": [], "users": [], "replied_user": False}
    payload["roles"] = [str(oncall_role_id)] if oncall_role_id is not None else []
    return payload
