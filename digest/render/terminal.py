"""Terminal rendering with rich. Source text is added as plain Text, never parsed as markup."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from digest.model import Story

_URGENCY_STYLE = {"immediate": "bold red", "monitor": "yellow", "plan": "cyan"}


def render_terminal(story: Story, *, project_names: list[str] | None = None) -> Group:
    """A rich renderable of the story; print it with `rich.console.Console().print`."""
    names = ", ".join(project_names or story.repos)
    parts: list[Text] = [
        Text(story.headline, style="bold"),
        Text(f"{story.window.label()} · {names}", style="dim"),
        Text(story.lede, style="italic"),
    ]
    for heading, sentences in story.paragraphs():
        if heading is not None:
            parts.append(Text(heading, style="bold"))
        parts.append(Text(" ".join(s.text for s in sentences)))
    if story.action_items:
        parts.append(Text("Action items", style="bold underline"))
        for item in story.action_items:
            line = Text("→ ")
            line.append(f"[{item.urgency}] ", style=_URGENCY_STYLE[item.urgency])
            line.append(item.text)
            line.append(f"  {item.repo}", style="dim")
            parts.append(line)
    if story.references:
        parts.append(Text("References", style="bold underline"))
        for ref in story.references:
            number = f" (#{ref.number})" if ref.number is not None else ""
            line = Text(f"[{ref.n}] {ref.title}{number} ")
            line.append(ref.url, style=f"link {ref.url}")
            parts.append(line)
    if story.checks and story.checks.problems:
        parts.append(Text("Checks: " + "; ".join(story.checks.problems), style="dim red"))
    return Group(*parts)
