"""Benchmark: the LLM prose path against the loopback OpenAI-compatible server.

For every day of the executorch quarter (with ci-infra's May beside it) that has a body,
composes the story by rule, then through `compose_activities` with `[prose] engine = "llm"`
against tests/fakes/openai_server.py, whose every answer is held back by a scripted
latency. That latency is subtracted, so the figure is what the leash itself costs: facts,
prompt, the real httpx round trip on loopback, parsing, validation and the second run of
the checks. Then every scripted lie is sent for every day it applies to, and the share that
reached a story is counted and named. (A "wrong component" lie picks its sentence by the
references' topics; when the cited change's paths do touch that component, the claim is
supported and rule 2 rightly lets it through.)

    .venv/bin/python bench/prose.py [--latency 0.05] [--days 91] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from digest.compose import compose  # noqa: E402
from digest.config import WireConfig, load_config  # noqa: E402
from digest.model import Activity, Window  # noqa: E402
from digest.pipeline import compose_activities  # noqa: E402
from digest.prose.engine import window_events  # noqa: E402
from digest.prose.facts import build_facts  # noqa: E402
from digest.prose_settings import ProseSettings  # noqa: E402
from digest.sources.replay import ReplaySource  # noqa: E402
from tests.fakes.openai_server import LIES, FakeOpenAI, good  # noqa: E402


class Reasons(logging.Handler):
    """Collects why "wire.prose" fell back to the rules' text."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage().split(": ", 1)[1])


ACTIVITY = ROOT / "tests" / "data" / "activity"
FILES = ("pytorch-executorch-2026-q2.jsonl", "pytorch-ci-infra-2026-05.jsonl")
START = datetime(2026, 4, 1, tzinfo=UTC)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def line(label: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"{label:<44} median {statistics.median(ms):7.2f} ms   p95 {percentile(ms, 0.95):7.2f} ms"
        f"   max {max(ms):7.2f} ms"
    )


async def measure(latency: float, days: int, repeat: int) -> None:
    base = load_config(ROOT / "config" / "wire.example.toml")
    activities: list[Activity] = [a for f in FILES for a in ReplaySource(ACTIVITY / f).read_all()]
    windows = [
        Window(since=START + timedelta(days=d), until=START + timedelta(days=d + 1))
        for d in range(days)
    ]
    reasons = Reasons()
    prose_log = logging.getLogger("wire.prose")
    prose_log.addHandler(reasons)
    prose_log.propagate = False
    async with FakeOpenAI(latency=latency) as fake:
        prose = ProseSettings(engine="llm", base_url=fake.url, model=fake.model, timeout=10)
        config: WireConfig = base.model_copy(update={"prose": prose})
        rules_times, llm_times, own_times, own_cpus, accepted, stories = [], [], [], [], 0, 0
        await compose_activities(activities, config=config, window=windows[0])  # warm up
        fake.requests.clear()
        for window in windows:
            rules = compose(activities, config=base, window=window)
            if not rules.body:
                continue
            stories += 1
            best = None  # the fastest of `repeat` runs: the machine is shared
            for _ in range(repeat):
                started, cpu = time.perf_counter(), time.process_time()
                compose(activities, config=base, window=window)
                rules_time = time.perf_counter() - started
                rules_cpu = time.process_time() - cpu
                fake.script(good)
                asked, fallbacks = len(fake.requests), len(reasons.seen)
                started, cpu = time.perf_counter(), time.process_time()
                story = await compose_activities(activities, config=config, window=window)
                elapsed = time.perf_counter() - started
                llm_cpu = time.process_time() - cpu
                requests = len(fake.requests) - asked
                fake.clear()
                own = elapsed - requests * latency - rules_time
                run = (own, elapsed, rules_time, llm_cpu - rules_cpu)
                best = run if best is None or run < best else best
            accepted += len(reasons.seen) == fallbacks and story != rules
            own_time, elapsed, rules_time, own_cpu = best
            rules_times.append(rules_time)
            llm_times.append(elapsed)
            own_times.append(own_time)
            own_cpus.append(own_cpu)

        good_reasons = list(reasons.seen)
        lies_sent, lies_through, through = 0, 0, []
        for window in windows:
            rules = compose(activities, config=base, window=window)
            if not rules.body:
                continue
            events = window_events(rules, activities=activities, config=base)
            facts = build_facts(rules, events=events, config=base).as_prompt()
            for name, lie in LIES.items():
                try:
                    lie(facts)
                except (StopIteration, IndexError):
                    continue  # this lie needs a story shape the day does not have
                fake.script(lie, lie)
                story = await compose_activities(activities, config=config, window=window)
                fake.clear()
                lies_sent += 1
                if (story.lede, story.body) != (rules.lede, rules.body):
                    lies_through += 1
                    through.append(f"{name} on {window.since.date()}")
        problems = list(fake.problems)

    print(
        f"{stories} daily stories with a body out of {days} days; scripted latency {latency * 1000:.0f} ms"
    )
    print(line("rules path (compose)", rules_times))
    print(line("LLM path, wall (compose + rewrite)", llm_times))
    print(line("LLM path minus latency minus compose", own_times))
    print(line("  the same in CPU time (this process)", own_cpus))
    print(f"(each figure the best of {repeat} runs a day; CPU time includes the fake's share)")
    print(f"good rewrites accepted: {accepted}/{stories}")
    for reason in sorted(set(good_reasons)):
        print(f"  {good_reasons.count(reason)} × {reason[:150]}")
    print(f"lying answers that reached a story: {lies_through}/{lies_sent}")
    for case in through:
        print(f"  {case}")
    print(f"request problems seen by the fake: {problems or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05, help="scripted seconds an answer")
    parser.add_argument("--days", type=int, default=91, help="days from 2026-04-01")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs a day (best is kept)")
    args = parser.parse_args()
    asyncio.run(measure(args.latency, args.days, args.repeat))


if __name__ == "__main__":
    main()
