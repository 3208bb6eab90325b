"""Markdown rendering: citations become links to their PRs; source text is escaped."""

from __future__ import annotations

import re

from digest.model import CITATION, Story

_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")


def escape_markdown(text: str) -> str:
    """Escape Markdown syntax so source text renders literally (no links, no HTML, no emphasis)."""
    return _SPECIAL.sub(r"\\\1", text)


def _linked(text: str, urls: dict[int, str]) -> str:
    """Escape `text`, then turn its citations into links."""
    pieces, last = [], 0
    for match in CITATION.finditer(text):
        pieces.append(escape_markdown(text[last : match.start()]))
        n = int(match.group(1))
        pieces.append(f"[\\[{n}\\]]({urls[n]})" if n in urls else escape_markdown(match.group(0)))
        last = match.end()
    pieces.append(escape_markdown(text[last:]))
    return "".join(pieces)


def render_markdown(story: Story, *, project_names: list[str] | None = None) -> str:
    """Render a story as Markdown."""
    urls = {r.n: r.url for r in story.references}
    names = ", ".join(project_names or story.repos)
    out = [
        f"## {escape_markdown(story.headline)}",
        "",
        f"*{escape_markdown(story.window.label())} · {escape_markdown(names)}*",
        "",
    ]
    out += [escape_markdown(story.lede), ""]
    for heading, sentences in story.paragraphs():
        if heading is not None:
            out += [f"#### {escape_markdown(heading)}", ""]
        out += [" ".join(_linked(s.text, urls) for s in sentences), ""]
    if story.action_items:
        out += ["### Action items", ""]
        out += [
            f"- **[{i.urgency}]** {_linked(i.text, urls)} — `{i.repo}`" for i in story.action_items
        ]
        out.append("")
    if story.references:
        out += ["### References", ""]
        for ref in story.references:
            number = f" (#{ref.number})" if ref.number is not None else ""
            out.append(f"{ref.n}. [{escape_markdown(ref.title)}{number}]({ref.url}) — `{ref.repo}`")
        out.append("")
    return "\n".join(out)
