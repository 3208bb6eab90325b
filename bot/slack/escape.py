"""Untrusted text made safe for Slack mrkdwn, and links built from validated URLs.

Slack gives three characters a meaning in message text: `&`, `<` and `>`. Every mention
(`<!channel>`, `<!here>`, `<@U123>`, `<!subteam^S1>`) and every link (`<https://x|label>`)
is written between `<` and `>`, so escaping those three as `&amp;`, `&lt;` and `&gt;` is
enough to stop source text from pinging anyone or forging a link. The mrkdwn text objects we
build also set `verbatim: true`, so Slack does not turn a bare `@here`, URL or `#channel` in
source text into a mention or link either.

Formatting is neutralized only where it could break a message's layout, and minimally:

- line breaks, tabs and control characters become spaces: every field we render is one line
  of prose, and a line break would let text open a quote (`>`) or a list;
- a run of backticks gets a zero-width space (U+200B) between each pair, so "```" can never
  open a code block that swallows the rest of the message; single backticks still render
  inline code, as PR titles intend;
- a field starting with `>` gets a leading zero-width space, so it cannot become a quote.

`*bold*`, `_italic_` and `~strike~` are left alone: they stay within their line.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

ZWSP = "\u200b"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_BACKTICK_RUN = re.compile(r"`(?=`)")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_SPECIAL = re.compile(r"[&<>]")
_URL_FORBIDDEN = re.compile(r"[\s<>|\"'`\x00-\x1f\x7f]")
_USER_GROUP = re.compile(r"S[A-Z0-9]{2,20}")


def one_line(text: str) -> str:
    """`text` with line breaks, tabs and control characters turned into spaces."""
    return _CONTROL.sub(" ", text.replace("\r\n", " "))


def escape_mrkdwn(text: str) -> str:
    """Untrusted `text` as mrkdwn that renders as the same words and can neither mention
    anyone, nor link anywhere, nor open a code block or a quote (see the module doc)."""
    flat = _BACKTICK_RUN.sub("`" + ZWSP, one_line(text))
    escaped = _SPECIAL.sub(lambda m: _ENTITIES[m.group()], flat)
    # Leading blanks count too: a caller that trims them would open a quote.
    return ZWSP + escaped if escaped.lstrip().startswith("&gt;") else escaped


def plain_text(text: str) -> str:
    """Untrusted `text` for a `plain_text` object (headers, buttons): one line. Slack shows
    plain text literally, without mentions or links, so nothing else needs escaping."""
    return one_line(text)


def slack_link_target(url: str) -> str | None:
    """`url` if it is an absolute http(s) URL that cannot break out of `<url|label>`, else
    None. `&` is escaped as Slack expects inside a link."""
    if not url or _URL_FORBIDDEN.search(url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return url.replace("&", "&amp;")


def link(url: str, label: str) -> str:
    """A mrkdwn link `<url|label>` with `label` escaped. When `url` is not a safe http(s)
    URL the result is not a link at all: the escaped label followed by the escaped URL in
    parentheses, so the reader still sees where it pointed."""
    target = slack_link_target(url)
    text = escape_mrkdwn(label)
    if target is None:
        return f"{text} ({escape_mrkdwn(url)})" if url else text
    return f"<{target}|{text}>"


def is_user_group_id(value: str) -> bool:
    """True for a Slack user-group id such as "S0614TZR7" (what `<!subteam^…>` takes)."""
    return _USER_GROUP.fullmatch(value) is not None


def user_group_mention(group_id: str) -> str:
    """The mention of a configured user group, `<!subteam^ID>`; the only mention we emit.
    Raises ValueError for anything but a user-group id, so no other text can become one."""
    if not is_user_group_id(group_id):
        raise ValueError(f"{group_id!r} is not a Slack user-group id (like S0614TZR7)")
    return f"<!subteam^{group_id}>"


def unescape_mrkdwn(text: str) -> str:
    """The reverse of the entity escaping (for reading our own messages back in tests and
    logs): `&lt;`, `&gt;` and `&amp;` become characters again."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
