"""The [plan] item of a deprecation: what to stop using, which the project deprecates,
when it goes and what to use instead, as the change's own words name them."""

from __future__ import annotations

import re

from digest.compose.citations import cite
from digest.compose.phrases import event_predicate
from digest.english.words import verb_form
from digest.reading.bodies import clean_body
from digest.reading.event import Event
from digest.select import Unit
from digest.untrusted import clean_fragment


def deprecation_item(unit: Unit, *, name: str) -> str | None:
    """ "Plan to stop using `np.foo`, which numpy deprecates; use `np.bar` instead [3]": what
    to move off, and what to move to when the change's own words name it in code. A change
    whose clause is no "deprecates X" ("removes X", "narrows X") is told as it is."""
    event = unit.lead
    predicate = event_predicate(event, max_words=10)
    marker = cite(event.activity)
    verb, _, what = predicate.partition(" ")
    if verb != "deprecates" or not what:
        return f"Plan for what {name} deprecates: the change {predicate} {marker}"
    instead, when = "", ""
    if removal := _FOR_REMOVAL.search(what):
        # "`console_main()` for removal in pytest 10": when it goes is the deprecation's
        what, when = what[: removal.start()], f" {removal.group(0).strip()}"
    favoured = _IN_FAVOUR.search(what)
    if favoured:
        # "the `strict` parameter in favour of a new `how=…`": what to stop using, and
        # what to use, each in its place
        what, instead = what[: favoured.start()], f"; use {favoured['successor']} instead"
    elif not _NAMES_SUCCESSOR.search(what) and (successor := _successor(event)):
        instead = f"; use {successor} instead"
    # "setting the dtype of X" is stopped, not "used": "Plan to stop setting …"
    first = what.split(" ", 1)[0]
    stop = "stop" if first.islower() and verb_form(first) == "VBG" else "stop using"
    return f"Plan to {stop} {what}, which {name} deprecates{when}{instead} {marker}"


# "in favour of `Y`", "use `Y` instead": where a deprecation names its successor.
_FOR_REMOVAL = re.compile(r"\s+(?:for removal|to be removed)\s+in\s+\S+(?:\s+\d[\w.]*)?$", re.I)
_NAMES_SUCCESSOR = re.compile(r"\b(in favou?r of|instead|replaced by)\b", re.I)
_IN_FAVOUR = re.compile(
    r",?\s+in favou?r of\s+(?:an?\s+new\s+|the\s+new\s+)?(?P<successor>`[^`\n]+`)$"
)
_SUCCESSOR = re.compile(
    r"\b(?:in favou?r of|replaced by|use|prefer|switch to|migrate to)\s+(`[^`\n]{1,60}`)", re.I
)


def _successor(event: Event) -> str | None:
    """The code the change's title or its own opening paragraph says to use instead."""
    opening = clean_body(event.activity.body).split("\n\n", 1)[0]
    for text in (event.subject, "" if opening.lstrip().startswith(">") else opening):
        if match := _SUCCESSOR.search(text):
            return clean_fragment(match.group(1))
    return None
