"""Counting in English: number words, lists ("a, b and c") and counted nouns ("3 changes")."""

from __future__ import annotations

from digest.english.words import words

CARDINALS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
)  # fmt: skip
# Every word that states a number or an amount: a claim a rewrite must not change.
NUMBER_WORDS = frozenset(CARDINALS) | words(
    "thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty "
    "sixty seventy eighty ninety hundred thousand million billion dozen dozens half twice "
    "thrice single double triple first second third fourth fifth once"
)
# A count told in a word, up to nine; "no" for none.
COUNT_WORDS = ("no", *CARDINALS[1:10])


def count_word(count: int) -> str:
    """A count as a word up to nine, as digits beyond ("three", "12")."""
    return COUNT_WORDS[count] if 0 <= count < len(COUNT_WORDS) else str(count)


def join_words(items: list[str], conjunction: str = "and") -> str:
    """English list: "a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def plural(count: int, word: str, many: str | None = None) -> str:
    """ "1 change", "3 changes"."""
    return f"{count} {word if count == 1 else (many or word + 's')}"
