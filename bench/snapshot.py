"""Every story of the activity files, written out so two versions of the composer can be
compared byte for byte: one file per activity file, each story as plain text under a line
naming its window (every UTC day, Monday-to-Monday week and four-week window).

    .venv/bin/python bench/snapshot.py OUT_DIR [ACTIVITY_DIR]
    diff -r before/ after/

ACTIVITY_DIR defaults to tests/data/activity; pass ../shared/data/activity for all twelve.
"""

from __future__ import annotations

import sys
from datetime import UTC, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from digest.compose import compose  # noqa: E402
from digest.config import load_config  # noqa: E402
from digest.errors import StoryCheckError  # noqa: E402
from digest.model import Activity, Window  # noqa: E402
from digest.render.plain import render_plain  # noqa: E402
from digest.sources.replay import ReplaySource  # noqa: E402


def windows(activity: tuple[Activity, ...]) -> list[Window]:
    """Every UTC day, Monday-to-Monday week and four-week window from the first change on."""
    first = min(a.landed_at for a in activity).astimezone(UTC)
    last = max(a.landed_at for a in activity)
    day = first.replace(hour=0, minute=0, second=0, microsecond=0)
    monday = day - timedelta(days=day.weekday())
    found = []
    for start, step in ((day, 1), (monday, 7), (monday, 28)):
        while start <= last:
            found.append(Window(since=start, until=start + timedelta(days=step)))
            start += timedelta(days=step)
    return found


def main() -> None:
    out = Path(sys.argv[1])
    source = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "tests" / "data" / "activity"
    out.mkdir(parents=True, exist_ok=True)
    config = load_config(ROOT / "config" / "wire.example.toml")
    total = 0
    for path in sorted(source.glob("*.jsonl")):
        activity = tuple(ReplaySource(path).read_all())
        parts = []
        for span in windows(activity):
            days = (span.until - span.since).days
            try:
                story = compose(activity, config=config, window=span)
            except StoryCheckError as error:  # a finding to keep, not a reason to stop
                parts.append(f"##### {span.since:%Y-%m-%d}+{days}d\nFAILED: {error}\n")
                print(f"{path.stem} {span.since:%Y-%m-%d}+{days}d: {error}", file=sys.stderr)
                continue
            parts.append(f"##### {span.since:%Y-%m-%d}+{days}d\n{render_plain(story)}\n")
            parts.append(f"lead: {story.lead}\nchecks: {story.checks}\n")
            total += 1
        (out / f"{path.stem}.txt").write_text("".join(parts), encoding="utf-8")
    print(f"{total} stories written to {out}")


if __name__ == "__main__":
    main()
