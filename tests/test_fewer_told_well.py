"""Fewer changes, told well (EDITORIAL.md): beyond a project's first three, a story names a
change only when its sentence can say why or readers must hear of it, and a story too long
for its limits counts its lowest-ranked such changes before it drops any reason."""

from __future__ import annotations

import re
from datetime import timedelta
from itertools import pairwise

from digest.compose import compose
from digest.config import DigestSettings, WireConfig
from digest.english.similarity import slots
from digest.model import Story, Window
from digest.reading.classify import classify_one
from tests.test_audience import START, USERS, change

CONFIG = WireConfig(projects=(USERS,))
WEEK = Window(since=START, until=START + timedelta(days=7))

FEATURES = [
    ("Add a streaming decoder", "src/decoder.py"),
    ("Add a TOML parser", "src/toml.py"),
    ("Add retries to the client", "src/client.py"),
    ("Add a progress bar", "src/progress.py"),
    ("Add a dark theme", "src/theme.py"),
    ("Add a JSON exporter", "src/export.py"),
]
# What each change's description says of why, the same length and shape for each.
REASON = "Users of the {} asked for it, because their long runs failed without it."


def week(bodies: dict[int, str], *, config: WireConfig = CONFIG) -> Story:
    work = [
        change(title, path, n=n, body=bodies.get(n, "")) for n, (title, path) in enumerate(FEATURES)
    ]
    return compose(work, config=config, window=WEEK)


def named(story: Story) -> list[str]:
    """The titles of the changes the body names (cites in a sentence of its own)."""
    text = " ".join(s.text for s in story.body if " more change" not in s.text)
    return [
        r.title
        for r in story.references
        if re.search(rf"\[{r.n}\]", text) and r.title.split(" (#")[0] in dict(FEATURES)
    ]


def test_beyond_three_changes_a_change_without_a_reason_is_counted() -> None:
    story = week({})
    assert len(named(story)) == 3, named(story)
    text = " ".join(s.text for s in story.body)
    assert "lands three more changes" in text, text


def test_a_change_whose_description_says_why_is_named_with_its_reason() -> None:
    story = week({4: REASON.format("theme"), 5: REASON.format("exporter")})
    told = {title.split(" (#")[0] for title in named(story)}
    assert {"Add a dark theme", "Add a JSON exporter"} <= told, told
    text = " ".join(s.text for s in story.body)
    for part in ("theme", "exporter"):
        assert f"“Users of the {part} asked for it" in text, text
    # (they rank above the others for it: the third plain change is the first of those)
    assert "lands three more changes" in text, text


def test_a_story_too_long_counts_its_lowest_changes_before_it_drops_a_reason() -> None:
    # Every change says why at length: not all fit a week's words with their reasons.
    reasons = (
        "Decoding large archives ran out of memory, so nightly imports crashed halfway.",
        "Hand-edited configuration files were rejected, because only JSON could be read before.",
        "Flaky networks made every upload fail outright, so mirrors had to be retried manually.",
        "Long exports looked frozen to operators, who then killed jobs that were still working.",
        "Reading dashboards at night hurt people's eyes, as several maintainers reported.",
        "Spreadsheets could not open the results, since the CSV output mangled nested fields.",
    )
    # (a body of at most 120 words: 60 for a day, 20 for each of a week's three more units)
    short = CONFIG.model_copy(update={"digest": DigestSettings(max_body_words=60)})
    story = week(dict(enumerate(reasons)), config=short)
    assert story.checks is not None and story.checks.problems == (), story.checks
    quoted = [s.text for s in story.body if "“" in s.text]
    told = [s.text for s in story.body if " more change" not in s.text]
    assert len(quoted) == len(told) >= 3, told  # every named change keeps its reason
    assert len(told) < len(FEATURES)  # … and the rest are counted
    text = " ".join(s.text for s in story.body)
    assert re.search(r"lands (one|two|three) more changes?", text), text


def test_a_security_fix_no_action_item_cites_is_counted_and_cited() -> None:
    titles = (
        "fix: prevent XSS in the overlay",
        "fix: reject path traversal in static files",
        "fix: sanitize HTML to stop XSS in markdown previews",
        "fix: block prototype pollution in the config merge",
        "fix: guard against ReDoS in the router",
    )
    fixes = [change(title, f"src/f{n}.py", n=n) for n, title in enumerate(titles)]
    story = compose(fixes, config=CONFIG, window=WEEK)
    cited = {n for s in story.body for n in s.refs} | {
        n for item in story.action_items for n in item.refs
    }
    assert len(cited) == len(fixes), (story.body, story.action_items)
    text = " ".join(s.text for s in story.body)
    assert re.search(r"lands (one|two) more security fix(es)? \[", text), text


def test_fixes_of_one_shape_told_in_one_clause_say_how_many() -> None:
    fixes = [
        change(f"fix: prevent XSS in the {where}", f"src/{where}.py", n=n)
        for n, where in enumerate(("overlay", "client", "server"))
    ]
    text = " ".join(s.text for s in compose(fixes, config=CONFIG, window=WEEK).body)
    assert re.search(
        r"prevents XSS in the \w+ \[\d\], \w+ \[\d\] and \w+ \[\d\], three security fixes", text
    ), text


def test_a_change_its_author_says_no_user_sees_is_internal() -> None:
    unseen = "This isn't really a fix since these should never surface to the user, but it helps."
    symbols = change("fix: use named symbols everywhere", "src/symbols.py", body=unseen)
    assert classify_one(symbols, USERS).internal
    plain = change("Refine output", "src/out.py", body="No functional change — formatting only.")
    assert classify_one(plain, USERS).internal
    # … of the whole change: a list item speaks of one part of it
    part = "- **Float**: byte-identical. No behavior change.\n- **Half**: accumulates in fp32."
    assert not classify_one(change("Accumulate in fp32", "src/grid.py", body=part), USERS).internal
    # … and for everyone: a change for some users is theirs
    some = "No behavior change for existing users; new users get the faster path."
    assert not classify_one(change("Speed up loading", "src/load.py", body=some), USERS).internal


def test_titles_that_share_a_verb_and_a_long_tail_are_one_shape() -> None:
    one = "Add `tanh` support with new Neutron flow"
    other = "Add `mean.dim` support with new Neutron flow"
    found = slots([one, other])
    assert found is not None and found[2] == [["`tanh`"], ["`mean.dim`"]], found
    # a verb alone and a short tail is no shape: "Fix crash" and "Fix leak"
    assert slots(["Fix crash on exit", "Fix leak on exit"]) is None
    work = [change(t, "src/neutron/ops.py", n=n) for n, t in enumerate((one, other))]
    story = compose(work, config=CONFIG, window=WEEK)
    text = " ".join(s.text for s in story.body)
    assert re.search(r"adds `(tanh|mean\.dim)` \[\d\] and `(tanh|mean\.dim)` \[\d\] support ", text)


def test_what_a_count_leaves_out_is_told_as_more_not_as_the_whole() -> None:
    # "Beyond these, NumPy lands 13 more changes. It makes 13 documentation … changes" read
    # as if the 13 were all
    from tests.digest_data import every_story

    after = re.compile(r"lands \w+ more (changes|fixes): [^.]*\.$")
    for label, story in every_story():
        texts = [s.text for s in story.body]
        for count, following in pairwise(texts):
            if after.search(count):
                assert not following.startswith(("It makes", "It updates")), (label, following)
