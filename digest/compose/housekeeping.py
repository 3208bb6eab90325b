"""How a story counts the project's housekeeping: in a clause of what it did, never by
name ("updates translations in four languages", "updates the changelog twice").

Housekeeping (`digest.select.HOUSEKEEPING`) is what a project does to keep house:
translations, release notes and changelogs, people and sponsor pages, its own version
number. Each kind gets one verb phrase; the number it carries is the number a reader
cares about (languages, not commits).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from digest.english.numbers import count_word
from digest.reading.event import Event

# A folder that holds one file or folder per language, and what a language code looks like.
_LOCALE_FOLDER = re.compile(r"^(locales?|i18n|l10n|translations?|lang|langs|languages)$", re.I)
_LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?$")
_TIMES = {1: "", 2: " twice"}


def languages_in(paths: Sequence[str]) -> set[str]:
    """Language codes of translation files: the folder or file stem right under a locale
    folder ("locales/fr.json", "i18n/pt-BR/messages.po", "docs/lang/ja/index.md")."""
    found = set()
    for path in paths:
        parts = path.split("/")
        for folder, name in pairwise(parts):
            stem = name.split(".", 1)[0]
            if _LOCALE_FOLDER.match(folder) and _LANGUAGE_CODE.match(stem):
                found.add(stem.lower().replace("_", "-"))
    return found


def _times(count: int) -> str:
    return _TIMES.get(count, f" {count_word(count)} times")


_SPONSOR = re.compile(r"sponsor", re.I)


def _people_pages(events: Sequence[Event]) -> str:
    """What people pages `events` change, as their titles and files name them: a sponsor
    link alone is no contributor page ("updates its contributor and sponsor pages" said
    two where one changed)."""
    sponsors = [
        any(
            _SPONSOR.search(text)
            for text in (e.activity.title, *(f.path for f in e.activity.files))
        )
        for e in events
    ]
    if all(sponsors):
        return "sponsor listing"
    if any(sponsors):
        return "contributor and sponsor pages"
    return "contributor page"


def housekeeping_clause(kind: str, events: Sequence[Event]) -> tuple[str, int]:
    """The verb phrase for `events` of one housekeeping `kind`, and the number it says
    (-1 when it says none)."""
    count = len(events)
    if kind == "translations":
        languages = languages_in([f.path for e in events for f in e.activity.files])
        if len(languages) > 1:
            return f"updates translations in {count_word(len(languages))} languages", len(languages)
        return "updates translations" + _times(count), -1
    if kind == "changelog":
        return "updates the changelog and release notes" + _times(count), -1
    if kind == "people":
        return f"updates its {_people_pages(events)}" + _times(count), -1
    if kind == "version":
        return "bumps its own version number" + _times(count), -1
    noun = "change" if count == 1 else "changes"
    return f"makes {count_word(count)} housekeeping {noun}", count
