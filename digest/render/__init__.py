"""Renderings of a Story: plain text (the house format), Markdown, and the terminal (rich)."""

from digest.render.markdown import render_markdown
from digest.render.plain import parse_plain, render_plain
from digest.render.terminal import render_terminal

__all__ = ["parse_plain", "render_markdown", "render_plain", "render_terminal"]
