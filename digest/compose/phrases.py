"""Phrases about one event: its name, object, verb phrase and where it happened.

`_predicate` turns an event into the verb phrase of a sentence ("backs out XNNPACK
serialization"); the writers of the headline, lede, body and action items build on it.
"""

from __future__ import annotations

from digest.classify import Event
from digest.config import WireConfig, topic_key
from digest.language import clause, nominalize, shorten, split_verb
from digest.text import clean_fragment


def _name(config: WireConfig, repo: str) -> str:
    return config.project(repo).name


def _object(event: Event, *, max_words: int) -> str:
    text = clean_fragment(event.obj)
    words = text.split()
    return text if len(words) <= max_words else shorten(text, max_words=max_words)


def _quoted_title(event: Event, *, max_words: int) -> str:
    return f"“{_object(event, max_words=max_words)}”"


def _predicate(event: Event, *, max_words: int, headline: bool = False) -> str:
    """The verb phrase for an event, with reverts named by a noun phrase when the table allows."""
    if event.kind == "revert":
        nominal = nominalize(clean_fragment(event.obj))
        if nominal and headline:
            return f"backs out {nominal}"
        if nominal:
            return f"backs out {nominal}, undoing {_quoted_title(event, max_words=max_words)}"
        return f"backs out {_quoted_title(event, max_words=max_words)}"
    obj = _object(event, max_words=max_words)
    if event.kind == "reland" and split_verb(obj)[0] is not None:
        return f"relands {_quoted_title(event, max_words=max_words)}"
    return clause(obj, verb=event.verb)


def _area(event: Event) -> str | None:
    """A topic to name as context, when the sentence does not already mention it."""
    obj = event.obj.lower()
    for topic in event.topics:
        if topic.lower() not in obj and topic_key(topic) not in topic_key(obj):
            return topic
    return None


def _is_backend(event: Event, area: str) -> bool:
    """True when the change touches `backends/<area>/`, so "ExecuTorch's Arm backend" is right."""
    key = topic_key(area)
    return any(
        f.path.startswith("backends/") and topic_key(f.path.split("/")[1]) == key
        for f in event.activity.files
        if f.path.count("/") >= 2
    )
