"""The ETag memory of the `github:` source: one conditional probe's tag per window.

GitHub answers an unchanged commits list with 304, which costs no rate-limit quota; the source
then returns the activity stored here under that tag instead of searching again.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from digest.model import Activity, Window

log = logging.getLogger("digest.sources.github")

_ACTIVITIES = TypeAdapter(list[Activity])


class EtagCache:
    """The ETag of each window's probe and the activity it stood for, optionally kept in a file.

    A missing or unreadable file only costs a fresh fetch, so it is reported and ignored.
    """

    def __init__(self, path: str | Path | None = None, *, max_entries: int = 1024) -> None:
        self.path = Path(path) if path else None
        self.max_entries = max_entries
        self._entries: dict[str, dict[str, Any]] = {}
        if self.path and self.path.exists():
            self._entries = self._load(self.path)

    def __len__(self) -> int:
        return len(self._entries)

    @staticmethod
    def key(scope: str, window: Window) -> str:
        """The entry key of a source scope (its description) and a window."""
        since, until = (
            moment.astimezone(UTC).isoformat() for moment in (window.since, window.until)
        )
        return f"{scope}|{since}|{until}"

    def get(self, scope: str, window: Window) -> tuple[str, list[Activity]] | None:
        """The (etag, activities) stored for this source scope and window, if any."""
        entry = self._entries.get(self.key(scope, window))
        if entry is None:
            return None
        return entry["etag"], _ACTIVITIES.validate_python(entry["activities"])

    def put(self, scope: str, window: Window, etag: str, activities: list[Activity]) -> None:
        """Remember `activities` under `etag`, dropping the oldest entry beyond `max_entries`."""
        key = self.key(scope, window)
        self._entries.pop(key, None)
        self._entries[key] = {
            "etag": etag,
            "activities": [activity.model_dump(mode="json") for activity in activities],
        }
        while len(self._entries) > self.max_entries:
            del self._entries[next(iter(self._entries))]
        if self.path:
            self._save(self.path)

    def _save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(path.suffix + ".partial")
        partial.write_text(json.dumps({"version": 1, "entries": self._entries}), encoding="utf-8")
        partial.replace(path)

    @staticmethod
    def _load(path: Path) -> dict[str, dict[str, Any]]:
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))["entries"]
            for entry in entries.values():
                _ACTIVITIES.validate_python(entry["activities"])
                str(entry["etag"])
            return dict(entries)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, ValidationError) as exc:
            log.warning("ignoring the GitHub ETag cache %s: %s", path, exc)
            return {}
