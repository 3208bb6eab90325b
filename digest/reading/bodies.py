"""A change's description without what is no prose: trailers, stacks and test plans."""

from __future__ import annotations

import re

_TRAILER_LINE = re.compile(
    r"^(differential revision|pull request resolved|signed-off-by|co-authored-by|reviewed by|"
    r"reviewers?|ghstack-source-id|ghstack-comment-id|approved by|imported from|fbshipit-source-id|"
    r"x-link|summary|cc|test plan)\s*:.*$|^cc\s+@.*$|^@\S+(\s+@\S+)*\s*$",
    re.I,
)
_STACK_LINE = re.compile(r"^(stack from \[ghstack\]|\* (\(to be filled\)|#\d+|__->__).*)", re.I)
_SECTION_STOP = re.compile(r"^#{1,4}\s*(test plan|testing|test|checklist|reviewers?)\b", re.I)


def clean_body(body: str) -> str:
    """The body without trailers, ghstack stacks, `cc @…` lines and test-plan sections."""
    kept: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        # Each pattern needs a certain first character, ':' or '@': most lines of prose have
        # none of them and skip the patterns (a year of changes has a hundred thousand lines).
        first = stripped[:1]
        if first == "#" and _SECTION_STOP.match(stripped):
            break
        if first in "tT" and stripped.lower().startswith("test plan"):
            break
        if ((":" in stripped or "@" in stripped) and _TRAILER_LINE.match(stripped)) or (
            first in "sS*" and _STACK_LINE.match(stripped)
        ):
            continue
        kept.append(line.rstrip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
