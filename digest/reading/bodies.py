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
        if _SECTION_STOP.match(stripped) or stripped.lower().startswith("test plan"):
            break
        if _TRAILER_LINE.match(stripped) or _STACK_LINE.match(stripped):
            continue
        kept.append(line.rstrip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
