"""Understanding a change: its kind, topics, headline verb and what it reverts (N2–N8).

`classify(activities, config)` is pure: the same activity and configuration always give
the same events.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from digest.config import Project, WireConfig, topic_key
from digest.english.clauses import split_kind_verb
from digest.english.words import bare, parts_of_speech
from digest.model import Activity
from digest.reading.audience import (
    fragment_types,
    has_release_note,
    housekeeping_of,
    is_internal,
    is_security_fix,
)
from digest.reading.bodies import clean_body
from digest.reading.event import Event, Kind
from digest.reading.releases import Release, is_own_version_bump, release_of
from digest.reading.retell import (
    drop_told_tags,
    fold_relands,
    fold_renames,
    link_reverts,
    retitle_fork_merges,
    withdraw_unshipped,
)
from digest.reading.shipping import changeset_files
from digest.reading.signals import (
    dependency_bump,
    is_breaking,
    is_ci_gate,
    is_cleanup_of_deprecated,
    is_deprecation,
    is_new_support,
)
from digest.reading.title_tags import COMMIT_TYPES, product_in_paths
from digest.reading.titles import split_title
from digest.reading.topics import (
    TopicContext,
    build_context,
    default_context,
    is_ci_path,
    is_doc_path,
    is_stub_path,
    is_test_path,
    topics_for,
)
from digest.reading.trivia import is_housekeeping_path, trivia_kind

# "Revert X", "Back out of X", and a tool's 'revert, "fix: X (#22687)"'
_REVERT = re.compile(r"^(?:revert|back\s*out|backout|roll\s*back)(?:,|\s)\s*(?:of\s+)?(.+)$", re.I)
_RELAND = re.compile(
    r"^(?:reland|re-land|reapply|re-apply|re-enable|restore,)(?:\b|(?<=,))\s*(.*)$", re.I
)
# A body that opens by saying the change is back after a revert ("Resubmit X after the
# original change was reverted", "Reland of #N").
_RELAND_BODY = re.compile(
    r"^\s*(resubmit\w*|re-?lands?|re-?landing|re-?appl(y|ies))\b.{0,200}\b(revert\w*|back\w* out)"
    r"|^\s*(this\s+is\s+a\s+)?re-?land\s+of\b",
    re.I | re.S,
)
_QUOTED = re.compile(r'^["“\'](.+?)["”\']\s*(?:\(#\d+\))?\s*(.*)$')

# Which part of a series a title is: "(part 1)", "[2/3]", "(take 2)"; no news of its own.
_PART_MARK = re.compile(
    r"\s*[(\[]\s*(?:(?:part|pt\.?|take|step)\s*\d+(?:\s*(?:/|of)\s*\d+)?|\d+\s*/\s*\d+)\s*[)\]]\s*$"
    # unbracketed at the end: "MLX delegate part 3", "Mlx delegate part2"
    r"|,?\s+(?:part|pt\.?)\s*\d+(?:\s*(?:/|of)\s*\d+)?\s*$",
    re.I,
)
_RISK = re.compile(r"\*\*risk:?\*\*:?\s*(high|medium|low)", re.I)
_LINT = re.compile(r"\b(lint\w*|format\w*|typos?|codemod|clang-format|pyre|spelling)\b", re.I)


# What a title's own type prefix says a change is, where its paths do not say more.
_TITLE_KINDS: dict[str, Kind] = {
    "docs": "docs",
    "fix": "fix",
    "refactor": "refactor",
    "chore": "chore",
    "style": "chore",
    "typing": "chore",
}


def _kind(
    activity: Activity,
    subject: str,
    verb: str | None,
    bump: bool,
    body: str,
    hint: str | None,
    fragments: frozenset[str],
) -> Kind:
    paths = [f.path for f in activity.files]
    depth, _ = undo_target(subject)
    if depth:
        return "revert" if depth % 2 else "reland"
    if _RELAND.match(subject) and not subject.lower().startswith("re-enable"):
        return "reland"
    if _RELAND_BODY.search(body):
        return "reland"
    # "docs: update tox python version from 3.9 to 3.12": prose about a version, no update
    prose_only = bool(paths) and all(
        is_doc_path(p) and p.lower().endswith((".rst", ".md", ".mdx", ".html", ".ipynb"))
        for p in paths
    )
    if bump and not (hint == "docs" and prose_only):
        return "bump"
    if paths and all(is_doc_path(p) for p in paths):
        return "docs"
    if paths and all(is_ci_path(p) for p in paths):
        return "ci"
    if paths and all(is_test_path(p) for p in paths):
        return "test"
    if hint in _TITLE_KINDS:
        return _TITLE_KINDS[hint]
    if hint is None and fragments & _FIX_FRAGMENTS:
        return "fix"  # "changelog/14591.bugfix.rst": the project files it as a fix
    if _LINT.search(subject) or verb in {"refactor", "rename", "move", "clean up", "consolidate"}:
        return "refactor" if verb in {"refactor", "rename", "move", "consolidate"} else "chore"
    if verb in {"fix", "repair", "resolve", "correct", "mitigate", "prevent", "guard", "harden"}:
        return "fix"
    return "feature"


def _unquoted(text: str) -> str:
    """A title without the quotes around it: '"X"' → 'X'."""
    text = re.sub(r"\s*\(#\d+\)\s*$", "", text.strip())
    return re.sub(r'^["“\']+|["”\']+$', "", text).strip()


# "revert X to Y" unquoted, before any comma: X returned to the state Y ("revert
# es-module-lexer to 2.1.0", "Revert preview release to single job, …"), no back-out of X.
# A noun that takes "to" keeps the back-out: "Revert change to default timeout".
_RETURNS_TO = re.compile(
    r"""^(?!["“'])[^,;"“]*?(?<!\bchange)(?<!\bchanges)(?<!\bupdate)(?<!\bupgrade)"""
    r"""(?<!\bmove)(?<!\bswitch)(?<!\bmigration)(?<!\bbump)(?<!\baddition)\sto\s""",
    re.I,
)


_DID_HARM = re.compile(
    r"\b(that|which)\s+(caused|causes|broke|breaks)\b|\bcaus(ed|ing)\s+(a\s+)?"
    r"(\w+\s+)?(regressions?|breakage|failures?|crash(es)?)\b",
    re.I,
)


def undo_target(subject: str) -> tuple[int, str]:
    """How many revert layers a title has, and the title underneath them.

    'Back out "T"' → (1, "T"); 'Revert "Revert "T""' → (2, "T"); a plain title → (0, title).
    """
    depth, text = 0, subject.strip()
    while match := _REVERT.match(text):
        if _RETURNS_TO.match(match.group(1)):
            break  # "Revert es-module-lexer to 2.1.0": it returns something to a state
        depth += 1
        text = re.sub(r"\s*\(#\d+\)\s*$", "", match.group(1).strip())
        text = text.strip().removeprefix('"').removeprefix("“").removeprefix("'")
        text = re.sub(r'["”\']+$', "", text).strip()
        text = re.sub(r"\s*\(#\d+\)$", "", text)  # 'revert, "fix: X (#22687)"'
    return depth, text


@dataclass(frozen=True)
class Reading:
    """What one activity says on its own: its event with no topics yet, and the tags its
    title gives them. Topics wait for the window (`TopicContext`), nothing else does, so a
    reading can be taken while the rest of the window is still being read."""

    event: Event
    tags: tuple[str, ...]


# News fragment types of changes that break users' code or deprecate part of it: towncrier's
# "breaking" and "removal" (pytest), numpy's "compatibility" and "expired" (deprecations
# whose time is up), and "deprecation" in both.
_BREAKING_FRAGMENTS = frozenset({"breaking", "removal", "compatibility", "incompatible", "expired"})
_DEPRECATION_FRAGMENTS = frozenset(t for t in COMMIT_TYPES if t.startswith("deprecat"))
_FIX_FRAGMENTS = frozenset({"bugfix", "bugfixes", "bug", "fix", "fixes"})


def classify_one(
    activity: Activity,
    project: Project,
    context: TopicContext | None = None,
    reading: Reading | None = None,
) -> Event:
    """Classify one activity of `project`; `context` carries what the window says about
    topics (containers, spellings), else only the configured container folders count.
    `reading` is `read_change(activity, project)` when it was taken ahead."""
    reading = reading or read_change(activity, project)
    topics = topics_for(activity, project, list(reading.tags), context or default_context())
    return replace(reading.event, topics=topics)


# A merge commit's own title says nothing of the change: "Merge pull request #31488 from
# luhenry/riscv" (the pull request's title is the first line of its body), "Merge branch
# 'main' into next".
_MERGED_PULL = re.compile(r"^merge pull request #(?P<number>\d+) from \S+$", re.I)


def _titled(activity: Activity) -> Activity:
    """`activity` with its pull request's title when its own is a merge commit's."""
    match = _MERGED_PULL.match(activity.title)
    first = activity.body.strip().split("\n", 1)[0].strip()
    if match is None or not first:
        return activity
    number = activity.number or int(match["number"])
    body = activity.body.strip()[len(first) :].strip()
    return activity.model_copy(update={"title": first, "number": number, "body": body})


def _releases(activity: Activity, title: str, project: Project) -> bool:
    """True when `title`, of a change with `activity`'s files, reads as a release."""
    undone = activity.model_copy(update={"title": title})
    return release_of(undone, split_title(title).subject, project.own_keys) is not None


def release_in(activity: Activity, project: Project) -> Release | None:
    """The release of `project` that `activity` is, read alone as `read_change` reads it."""
    activity = _titled(activity)
    return _release_in(activity, split_title(activity.title).subject, project)


def _release_in(activity: Activity, subject: str, project: Project) -> Release | None:
    # ("Revert “release: v2.3.0”" names a release it is not)
    return None if undo_target(subject)[0] else release_of(activity, subject, project.own_keys)


# The verb a title of each kind takes when it opens with a noun phrase.
_NOUN_VERBS = {"fix": "fix", "feat": "add", "feature": "add"}


def _named_as_a_noun(subject: str, body: str) -> bool:
    """True when the description names the title's first two words as a thing: "the state
    dict", "a state_dict" for "State dict injection with weight conversion", whose "State"
    is no verb. The first word must be a noun as well as a verb."""
    words = subject.split()
    if len(words) < 3 or "NOUN" not in parts_of_speech(words[0]):
        return False
    first, second = (re.escape(bare(w).lower()) for w in words[:2])
    return (
        re.search(
            rf"\b(the|a|an|this|that|its|each|every|our|their|any)\s+{first}[\s_-]{second}\b"
            rf"|\b{first}_{second}\b",
            body,
            re.I,
        )
        is not None
    )


def read_change(activity: Activity, project: Project) -> Reading:
    """Everything `classify_one` finds in `activity` that needs no other change of the window."""
    activity = _titled(activity)
    parts = split_title(activity.title)
    ignored = {topic_key(t) for t in project.ignore_tags} | {topic_key(project.name)}
    tags = [t for t in parts.tags if topic_key(t) not in ignored]
    subject = parts.subject
    verb, obj = split_kind_verb(subject, parts.kind)
    if verb is not None and parts.kind in _NOUN_VERBS and _named_as_a_noun(subject, activity.body):
        # "FIX State dict injection …" fixes the state dict injection; it "states" nothing
        head, _, tail = subject.partition(" ")
        verb, obj = (
            _NOUN_VERBS[parts.kind],
            f"{head.lower() if head[1:].islower() else head} {tail}",
        )
    obj = _PART_MARK.sub("", obj)  # "Add MLX delegate (part 1)" adds the MLX delegate
    release = _release_in(activity, subject, project)
    # (the project's own version moved, "bump UI version", is no dependency's update)
    own_version = is_own_version_bump(activity, subject)
    bump = dependency_bump(activity, subject) if release is None and not own_version else None
    body = clean_body(activity.body)
    # How the project files the change for its release notes, where it writes news fragments.
    fragments = fragment_types(activity)
    kind = (
        "release"
        if release
        else _kind(activity, subject, verb, bump is not None, body, parts.kind, fragments)
    )
    depth, target = undo_target(subject)
    reverts_title = target if depth else None
    reland = _RELAND.match(subject) if kind == "reland" and not depth else None
    if depth or reland:
        # The undone or relanded title loses its own prefixes, which name its topics:
        # 'Revert "Arm backend: X"' backs out X, in Arm.
        inner = split_title(target if depth else _unquoted(reland.group(1)) if reland else "")
        tags += [t for t in inner.tags if topic_key(t) not in ignored and t not in tags]
    if kind == "revert":
        verb, obj = "back out", inner.subject
    elif kind == "reland" and (depth or reland):
        # A reland known only from its body keeps its own verb ("Lower X", said again).
        verb, obj = "reland", inner.subject or obj
    risk = _RISK.search(activity.body)
    ci_touch = (
        kind == "ci"
        or any(is_ci_path(f.path) for f in activity.files)
        or any(topic_key(t) == "ci" for t in tags)
        or re.search(r"\bCI\b", subject) is not None
    )
    # A revert or reland is watched ([monitor]), whatever the change it undoes was.
    undoes = kind in ("revert", "reland")
    code = kind not in ("docs", "test", "ci", "bump", "release")
    # A release reaches users, whatever type its title gives it ("[ci] release", "ci: release").
    internal = kind != "release" and (
        is_internal(activity, project)
        # A back-out of documentation, type stubs, tests or the linters' settings changes no
        # behaviour ('revert: Enable ruff linting in test_linalg.py'): nothing to watch.
        or (
            undoes
            and bool(activity.files)
            and all(
                is_doc_path(f.path)
                or is_stub_path(f.path)
                or is_test_path(f.path)
                or is_housekeeping_path(f.path)
                for f in activity.files
            )
        )
        # Nor does one of a change that was itself internal ('Revert "TST: …"').
        or (depth > 0 and is_internal(activity.model_copy(update={"title": target}), project))
        # Nor does one of a dependency bump ("Revert PyTorch 2.12 pin bump"): a pin moves back.
        or (depth > 0 and dependency_bump(activity, target) is not None)
        # Nor does one of a release commit ('Revert "axum-core 0.5.6"'): the version goes
        # back to what users have, and what the release carried stays on the branch.
        or (depth > 0 and _releases(activity, target, project))
    )
    # Hardening what only maintainers run (a cooldown for CI's dependency bot) fixes
    # nothing users run.
    security = (
        not undoes
        and not internal
        and kind != "release"
        and (bump.security_fix if bump else is_security_fix(activity, subject, body))
    )
    cleanup = is_cleanup_of_deprecated(subject)
    event = Event(
        activity=activity,
        project=project,
        kind=kind,
        subject=subject,
        verb=verb,
        obj=obj.strip(),
        topics=(),
        reverts_title=reverts_title,
        # No user sees an internal change (tests, CI, tooling, a refactor that says it changes
        # no behaviour): it breaks nothing of theirs.
        breaking=not undoes
        and not internal
        and not cleanup
        and not (bump is not None and bump.by_bot)
        and (
            bool(fragments & _BREAKING_FRAGMENTS)
            or is_breaking(activity, subject, parts.tags, parts.breaking_marker, code=code)
        ),
        ci_gate=not undoes and is_ci_gate(activity, subject, body, ci_touch),
        deprecation=not undoes
        and not internal
        and (
            bool(fragments & _DEPRECATION_FRAGMENTS)
            # a package deprecated by its release note alone ("feat: deprecate @astrojs/db"
            # with a changeset and a README notice) is deprecated all the same
            or ((code or has_release_note(activity)) and is_deprecation(subject, body, parts.kind))
        ),
        new_support=not undoes and kind == "feature" and is_new_support(subject),
        bump=bump if kind == "bump" else None,
        risk=risk.group(1).lower() if risk else None,
        body=body,
        release=release,
        security=security,
        internal=internal,
        # A back-out filed as a fix, or of a change its title says did harm ("Revert X that
        # caused a build regression"): nothing users relied on goes.
        filed_as_fix=undoes
        and (bool(fragments & _FIX_FRAGMENTS) or _DID_HARM.search(reverts_title or "") is not None),
        # A back-out that deletes the changeset its change added: no release consumed it,
        # so no user got the change, wherever the change itself landed.
        withdrawn=kind == "revert" and bool(changeset_files(activity, "D")),
        title_kind=parts.kind,
        product=_product(parts.product, activity, project),
    )
    if security and kind not in ("revert", "reland"):
        event = replace(event, kind="fix")
    quiet = event.urgency is not None or kind in ("bump", "release") or event.risk
    if not (event.must_act or quiet):
        paths = [f.path for f in activity.files]
        if own_version:
            event = replace(event, trivia="version")
        elif chore := housekeeping_of(subject, paths, title=activity.title):
            event = replace(event, trivia=chore)
        elif trivia := trivia_kind(subject, paths, docs_only=kind == "docs"):
            event = replace(event, trivia=trivia)
        elif _stubs_only(paths):
            # What type checkers read, never what runs: a long window counts it.
            event = replace(event, trivia="typing")
    return Reading(event, tuple(tags))


def _stubs_only(paths: list[str]) -> bool:
    """True when a change's code is type stubs alone, tests of them aside."""
    code = [p for p in paths if not is_test_path(p)]
    return bool(code) and all(is_stub_path(p) for p in code)


def _product(tag: str | None, activity: Activity, project: Project) -> str | None:
    """The title's product tag, when the change's files live in that product's package and
    it is not the project itself."""
    if tag is None or topic_key(tag) in project.own_keys:
        return None
    return tag if product_in_paths(tag, (f.path for f in activity.files)) else None


def classify(
    activities: Iterable[Activity],
    config: WireConfig,
    readings: Mapping[tuple[str, str], Reading] | None = None,
    *,
    earlier: Sequence[Activity] = (),
) -> list[Event]:
    """Classify every activity and link reverts to their originals. `readings` holds the
    `read_change` of activities read ahead, by `Activity.key`; the others are read here.
    `earlier` is the history before them: a back-out of a change it holds that no release
    shipped is withdrawn (`retell.withdraw_unshipped`)."""
    readings = readings or {}
    activities = list(activities)
    by_repo: dict[str, list[Activity]] = {}
    for activity in activities:
        by_repo.setdefault(activity.repo.lower(), []).append(activity)
    contexts = {
        repo: build_context(
            group,
            config.project(group[0].repo),
            config.digest,
            tags=[split_title(a.title).tags for a in group],
        )
        for repo, group in by_repo.items()
    }
    events = [
        classify_one(a, config.project(a.repo), contexts[a.repo.lower()], readings.get(a.key))
        for a in activities
    ]
    events = withdraw_unshipped(
        link_reverts(events),
        earlier,
        reading=lambda a: read_change(a, config.project(a.repo)).event,
        release=lambda a: release_in(a, config.project(a.repo)),
    )
    return fold_renames(fold_relands(retitle_fork_merges(drop_told_tags(events))))
