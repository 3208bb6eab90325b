"""How long `wire` takes to start, and how long it takes to read a clone next to git itself.

Reports, in one run:

- wall time of `wire --help` and `wire digest --help` (best of `--runs`): target under 0.25 s,
  next to the help of a bare one-command Typer app (what typer, click and rich cost alone);
- `python -X importtime` of the console script's module (bot.app.cli), of the digest command
  (bot.app.digest_cli), of the pipeline it calls (digest.pipeline, which reads sources) and of
  the composer that pipeline imports while the sources are read (digest.compose);
- `wire digest --source git:CLONE` against `git log --numstat` over the same range (best of
  `--runs` each) and their ratio: target 1.5 at most. Both also with their CPU time (the
  process and its children): wire shows a long window with one `git log` per core, so its
  wall time can fall below its CPU time.

Without `--clone`, a stand-in for a local executorch clone is built once under var/bench/ from
the replay file: every commit of the quarter with its author, dates, message and files, the
files given the line counts of the record (git fast-import, then a repack as a clone has).

    .venv/bin/python bench/cli_startup.py [--clone PATH] [--since ISO] [--until ISO] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

from digest.sources.git import reader_count

ROOT = Path(__file__).resolve().parents[1]
REPLAY = ROOT / "tests/data/activity/pytorch-executorch-2026-q2.jsonl"
CLONE = ROOT / "var/bench/executorch-clone"
WIRE = [sys.executable, "-c", "from bot.app.cli import main; main()"]
SINCE, UNTIL = "2026-05-01T00:00:00Z", "2026-06-15T00:00:00Z"
HELP_TARGET, RATIO_TARGET = 0.25, 1.5
# The same help from a bare Typer app of one command: what typer, click and rich cost alone.
BARE_TYPER = [
    sys.executable,
    "-c",
    "import typer\n"
    "app = typer.Typer(add_completion=False)\n"
    "@app.command()\n"
    "def digest(since: str = typer.Option(..., help='Window start.')) -> None:\n"
    "    'Compose the story of a window and print it.'\n"
    "app()",
]


def build_clone(
    path: Path,
    replay: Path = REPLAY,
    commits: list[dict] | None = None,
    *,
    max_lines: int | None = None,
    line_bytes: int | None = None,
) -> Path:
    """A linear git history with the commits of `replay` (or the records `commits`), oldest
    first, at `path`; `max_lines` caps a file's length (its oldest lines go first), and
    `line_bytes` a line's."""
    if commits is None:
        commits = [json.loads(line) for line in replay.read_text(encoding="utf-8").splitlines()]
    commits = sorted(commits, key=lambda row: datetime.fromisoformat(row["committed_at"]))
    path.mkdir(parents=True, exist_ok=True)
    git = ["git", "-C", str(path)]
    subprocess.run([*git, "init", "--quiet", "--initial-branch=main"], check=True)
    subprocess.run(
        [*git, "remote", "add", "origin", "https://github.com/pytorch/executorch.git"], check=True
    )
    stream = _fast_import_stream(commits, max_lines, line_bytes)
    subprocess.run([*git, "fast-import", "--quiet"], input=stream, check=True)
    subprocess.run([*git, "repack", "-adq"], check=True)
    subprocess.run([*git, "reset", "--quiet", "--soft", "main"], check=True)
    return path


def _fast_import_stream(
    commits: list[dict], max_lines: int | None = None, line_bytes: int | None = None
) -> bytes:
    """The fast-import commands for a first commit holding every file that later commits
    change or delete, then one commit per record with its files' line counts (a file cut
    to its last `max_lines` lines, when given)."""
    rng = random.Random(1209)
    lines: dict[str, list[bytes]] = {}
    created = {f["path"] for c in commits for f in c["files"] if f["status"] == "A"}
    touched = [f for c in commits for f in c["files"] if f["status"] != "A"]
    deleted: dict[str, int] = {}
    for change in (f for c in commits for f in c["files"]):
        deleted[change["path"]] = deleted.get(change["path"], 0) + (change["deletions"] or 0)
    chunks: list[bytes] = []

    def line(path: str) -> bytes:
        text = f"{path}: {rng.getrandbits(160):040x} {rng.random():.12f}"
        return (text[-line_bytes + 1 :] if line_bytes else text).encode() + b"\n"

    def blob(path: str) -> None:
        body = b"".join(lines[path])
        chunks.append(f"M 100644 inline {path}\ndata {len(body)}\n".encode() + body + b"\n")

    def header(author: str, moment: str, message: str) -> None:
        stamp = int(datetime.fromisoformat(moment).timestamp())
        ident = f"{author} <{re.sub(r'[^a-z]', '', author.lower()) or 'dev'}@example.com>"
        body = message.encode()
        chunks.append(
            f"commit refs/heads/main\nauthor {ident} {stamp} +0000\n"
            f"committer {ident} {stamp} +0000\ndata {len(body)}\n".encode()
            + body
            + b"\n"
        )

    before = datetime.fromisoformat(commits[0]["committed_at"]) - timedelta(days=30)
    header("Import", before.isoformat(), "Import the tree before the first record")
    for change in touched:
        path = change["path"]
        if path not in lines and path not in created:
            count = deleted[path] + rng.randint(50, 400)
            lines[path] = [line(path) for _ in range(min(count, max_lines or count))]
            blob(path)
    for commit in commits:
        header(commit["author_name"], commit["committed_at"], commit["message"])
        for change in commit["files"]:
            path, status = change["path"], change["status"]
            if status == "D":
                if lines.pop(path, None) is not None:
                    chunks.append(f"D {path}\n".encode())
                continue
            kept = lines.get(path, [])[(change["deletions"] or 0) :]
            lines[path] = kept + [line(path) for _ in range(change["additions"] or 1)]
            if max_lines is not None:
                del lines[path][:-max_lines]
            blob(path)
    return b"".join(chunks)


def best_of(runs: int, command: list[str], *, cwd: Path = ROOT) -> float:
    """The shortest wall time of `runs` runs of `command`, output discarded, in seconds."""
    return timed(runs, command, cwd=cwd)[0]


def timed(runs: int, command: list[str], *, cwd: Path = ROOT) -> tuple[float, float]:
    """(wall, CPU) seconds of the fastest of `runs` runs of `command`: CPU is user + system
    time of the command and every process it started."""
    results = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        results.append((wall, cpu))
    return min(results)


def import_time(module: str) -> float:
    """The cumulative import time `python -X importtime` reports for `module`, in seconds."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    pattern = re.compile(r"import time:\s+\d+ \|\s+(\d+) \| " + re.escape(module) + "$")
    return max(int(m[1]) for m in map(pattern.match, done.stderr.splitlines()) if m) / 1e6


def commits_in(clone: Path, since: str, until: str) -> int:
    done = subprocess.run(
        [
            "git",
            "-C",
            str(clone),
            "rev-list",
            "--count",
            f"--since={since}",
            f"--until={until}",
            "HEAD",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clone", type=Path, help="a local clone (default: the stand-in)")
    parser.add_argument("--since", default=SINCE)
    parser.add_argument("--until", default=UNTIL)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    clone = args.clone or (CLONE if (CLONE / ".git").is_dir() else build_clone(CLONE))

    wire_help = best_of(args.runs, [*WIRE, "--help"])
    digest_help = best_of(args.runs, [*WIRE, "digest", "--help"])
    bare_help = best_of(args.runs, [*BARE_TYPER, "--help"])
    modules = ("bot.app.cli", "bot.app.digest_cli", "digest.pipeline", "digest.compose")
    imported = {m: import_time(m) for m in modules}
    span = [f"--since={args.since}", f"--until={args.until}"]
    git_log, git_cpu = timed(args.runs, ["git", "-C", str(clone), "log", "--numstat", *span])
    wire_digest, wire_cpu = timed(
        args.runs,
        [
            *WIRE,
            "digest",
            "--source",
            f"git:{clone}",
            "--since",
            args.since,
            "--until",
            args.until,
            "--format",
            "plain",
        ],
    )
    ratio = wire_digest / git_log

    print(f"python {sys.version.split()[0]}, best of {args.runs} runs")
    print(f"wire --help              {wire_help:6.3f} s   target < {HELP_TARGET} s")
    print(f"wire digest --help       {digest_help:6.3f} s   target < {HELP_TARGET} s")
    print(f"a bare Typer app's help  {bare_help:6.3f} s   (typer, click and rich alone)")
    for module, seconds in imported.items():
        print(f"import {module:<18}{seconds:6.3f} s   (python -X importtime, cumulative)")
    print(
        f"clone                    {clone} ({commits_in(clone, args.since, args.until)} "
        f"commits from {args.since} to {args.until})"
    )
    commits = commits_in(clone, args.since, args.until)
    print(f"git log --numstat        {git_log:6.3f} s   (CPU {git_cpu:.3f} s)")
    print(
        f"wire digest --source git {wire_digest:6.3f} s   (CPU {wire_cpu:.3f} s; "
        f"{reader_count(commits)} git log run(s) side by side on {os.cpu_count()} cores)"
    )
    print(f"ratio                    {ratio:6.2f}×    target ≤ {RATIO_TARGET}×")
    print(
        "help under target: "
        + ("yes" if max(wire_help, digest_help) < HELP_TARGET else "no")
        + f"; ratio within target: {'yes' if ratio <= RATIO_TARGET else 'no'}"
    )


if __name__ == "__main__":
    os.environ.setdefault("NO_COLOR", "1")
    main()
