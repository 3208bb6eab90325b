"""One rooted error tree for the digest engine; every leaf carries what the user must fix.

The message of each error is a complete sentence meant for a person, so the CLI prints
`str(error)` and nothing else.
"""

from __future__ import annotations


class WireError(Exception):
    """Root of every error The Wire reports to a person."""


class ConfigError(WireError):
    """The configuration file or a setting is wrong."""


class SourceError(WireError):
    """A source could not produce activity."""


class UnknownSourceError(SourceError):
    """A `--source` argument names a scheme we do not have."""


class MalformedInputError(SourceError):
    """A record in an input file cannot be read; names the file and line."""

    def __init__(self, file: str, line: int, reason: str) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        super().__init__(f"{file}:{line}: {reason}")


class RemoteError(SourceError):
    """A remote API refused or failed; `status` is its HTTP status when there was one."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class UnknownTopicError(WireError):
    """A topic filter names a topic no project has."""

    def __init__(self, topic: str, known: list[str]) -> None:
        self.topic = topic
        self.known = known
        listing = ", ".join(known) if known else "none are configured"
        super().__init__(f"unknown topic {topic!r}; known topics: {listing}")


class StoryCheckError(WireError):
    """A composed story failed a check that must never fail (rules 1, 3 or 4)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("story failed its checks: " + "; ".join(problems))
