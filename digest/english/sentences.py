"""Where one sentence ends and the next begins: the one splitter of the digest, for the
descriptions of changes and for our own prose alike."""

from __future__ import annotations

import re

# A stop after a word, a number, code or a closing bracket, then space, then a sentence's
# opening: a capital, code, a quotation or a bracket. "U.S. Army" goes on: its stop
# follows a capital; nor does "e.g. `Symbol(x)`", whose stop ends an abbreviation.
_END = r"(?<=[a-z0-9`)\]][.!?])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\bcf\.)\s+"
_DESCRIPTION = re.compile(_END + r"(?=[A-Z`\"“(])")
# Our own sentences may open with a project's lower-case name ("uv adds …").
_OWN_PROSE = re.compile(_END + r"(?=[A-Za-z`\"“(])")


def split_sentences(text: str, *, own_prose: bool = False) -> list[str]:
    """The sentences of `text`, stripped, empty ones dropped. `own_prose` is for text The
    Wire wrote, where a sentence may open in lower case with a project's name."""
    pattern = _OWN_PROSE if own_prose else _DESCRIPTION
    return [sentence.strip() for sentence in pattern.split(text) if sentence.strip()]
