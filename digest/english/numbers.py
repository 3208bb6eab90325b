"""Counting in English: lists ("a, b and c") and counted nouns ("3 changes")."""

from __future__ import annotations


def join_words(items: list[str], conjunction: str = "and") -> str:
    """English list: "a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def plural(count: int, word: str, many: str | None = None) -> str:
    """ "1 change", "3 changes"."""
    return f"{count} {word if count == 1 else (many or word + 's')}"
