"""Titles into clauses (rule N6): explicit shapes, and properties over every real title."""

from __future__ import annotations

import json
import re
from functools import cache

import lemminflect
import pytest

from digest.english.clauses import clause, nominalize, split_kind_verb
from digest.english.clean import spell_slashes
from digest.english.shapes import split_verb, third_person
from digest.reading.titles import split_title
from tests.digest_data import ACTIVITY


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        (
            "Ignore malformed PEP 723 scripts during project checks",
            "ignores malformed PEP 723 scripts during project checks",
        ),
        (
            "Factor out configured package index precedence",
            "factors out configured package index precedence",
        ),
        ("Use Y's flag in Z", "uses Y's flag in Z"),
        # a noun's "of" left after a verb goes; a verb that takes "of" keeps it
        ("Clarification of error messages", "clarifies error messages"),
        ("Simplify of the parser setup", "simplifies the parser setup"),
        ("Dispose of stale handles", "disposes of stale handles"),
        # a phrasal verb after "and" is conjugated; a compound noun is not
        (
            "Speed up the parser and cleanup the lexer",
            "speeds up the parser and cleans up the lexer",
        ),
        (
            "Upgrade tool to 1.2 and lock down token access",
            "upgrades tool to 1.2 and locks down token access",
        ),
        ("Improve speed and cleanup logic", "improves speed and cleanup logic"),
        # a list joined by commas alone gets its "and"; two lists ("A, B, to C, D") do not
        (
            "Fix cache prefix, stale index, memory cap",
            "fixes cache prefix, stale index and memory cap",
        ),
        (
            "Fix the cache, add logging, drop retries",
            "fixes the cache, adds logging and drops retries",
        ),
        ("Rename first, last, to head, tail", "renames first, last, to head, tail"),
        ("Back out the arena allocator", "backs out the arena allocator"),
        ("Clean up stale caches", "cleans up stale caches"),
        ("Roll back the pin", "rolls back the pin"),
        ("Opt in to strict mode", "opts in to strict mode"),
        ("Set up nightly wheels", "sets up nightly wheels"),
        ("Speed up schema building", "speeds up schema building"),
        ("Python 3.15 wheels for macOS", "adds Python 3.15 wheels for macOS"),
        ("Support for `TypedDict` extra items", "adds support for `TypedDict` extra items"),
        ("Adds JSON schema titles", "adds JSON schema titles"),
        ("Fixed flaky test", "fixes flaky test"),
        ("Adding Qwen3 support", "adds Qwen3 support"),
        ("Handling of `None` defaults", "handles `None` defaults"),
        ("Globally serialize XNNPACK execution", "globally serializes XNNPACK execution"),
        ("Only deepcopy non-updated fields", "only deepcopies non-updated fields"),
        ("Don't link libdl when cross-compiling", "stops linking libdl when cross-compiling"),
        ("Do not skip the fusion pass", "stops skipping the fusion pass"),
        ("Drop ignored files", "drops ignored files"),  # a participle before a noun
        # only a verb follows "don't", one the lexicon knows as a noun too
        ("don't error on `{type}` in widget tags", "stops erroring on `{type}` in widget tags"),
        # the only comma between two verb phrases is an "and"
        (
            "Implement import allowlist in AutoWidget, limit access in megawidget",
            "implements import allowlist in AutoWidget and limits access in megawidget",
        ),
        # a verb after a comma's adverb is conjugated like the first
        (
            "Update GPT-QWidget, fully remove AutoWidget",
            "updates GPT-QWidget and fully removes AutoWidget",
        ),
        ("Module implements Closeable", "makes Module implement Closeable"),
        ("Cadence tests should retry", "makes Cadence tests retry"),
        ("Addition of new APIs for QNN", "adds new APIs for QNN"),
        ("Removal of `eval_type_backport()`", "removes `eval_type_backport()`"),
        ("MoE prefill perf improvement", "brings MoE prefill perf improvement"),
        (
            "Integer overflow in Allocator::allocate()",
            "fixes integer overflow in Allocator::allocate()",
        ),
        ("New Neutron-C flow support", "adds new Neutron-C flow support"),
        ("Cleanup dim-order handling", "cleans up dim-order handling"),
        ("Fallback to `create_model()` overloads", "falls back to `create_model()` overloads"),
        ("Re-land XNNPACK update", "re-lands XNNPACK update"),
        ("Sympify tosa.RESIZE lowering", "sympifies tosa.RESIZE lowering"),
        ("Precompute T1 offset", "precomputes T1 offset"),
        (
            "Add AI policy, update contributing guidelines",
            "adds AI policy and updates contributing guidelines",
        ),
        ("Build and install shared libraries", "builds and installs shared libraries"),
        ("Split CI into fast and slow gates", "splits CI into fast and slow gates"),
        ("Recognise `WindowsPath` as a schema type", "recognises `WindowsPath` as a schema type"),
        ("heap profiling at runtime", "adds heap profiling at runtime"),
        ("Do X.", "does X"),
        # parts of a list that left their verb out take the first part's
        ("Drop X; gate Y on Z", "drops X and gates Y on Z"),
        (
            "Highlight `start()` as a function; `end()` as a modifier only after `@`",
            "highlights `start()` as a function and `end()` as a modifier only after `@`",
        ),
    ],
)
def test_clause_of_each_title_shape(subject: str, expected: str) -> None:
    assert clause(subject) == expected


def test_a_known_verb_is_conjugated_without_reading_the_title_again() -> None:
    assert clause("missing `max_length` check", verb="fix") == "fixes missing `max_length` check"
    assert clause("", verb="back out") == "backs out"


@pytest.mark.parametrize(
    ("imperative", "third"),
    [
        ("apply", "applies"),
        ("do", "does"),
        ("switch", "switches"),
        ("go", "goes"),
        ("back out", "backs out"),
    ],
)
def test_third_person_comes_from_the_lexicon(imperative: str, third: str) -> None:
    assert third_person(imperative) == third


def test_split_verb_keeps_particles_and_declines_noun_phrases() -> None:
    assert split_verb("Factor out index precedence") == ("factor out", "index precedence")
    assert split_verb("Cleanup of stale caches") == ("clean up", "stale caches")
    assert split_verb("Support for X") == (None, "Support for X")
    assert split_verb("Python 3.15 wheels") == (None, "Python 3.15 wheels")


def test_nominalize_is_unchanged_for_reverts() -> None:
    assert (
        nominalize("Globally serialize XNNPACK execution, add logging") == "XNNPACK serialization"
    )
    assert nominalize("Frobnicate the widgets") is None


# ---------------------------------------------------------------- properties on real titles

_FILES = (
    "pydantic-pydantic-2026-q2.jsonl",
    "pytorch-executorch-2026-q2.jsonl",
    "pytorch-ci-infra-2026-05.jsonl",
)
_ADVERB = re.compile(r"^(\w+ly|only|always|also|just|still|now|early)$")


@cache
def real_subjects() -> tuple[str, ...]:
    if not ACTIVITY.exists():
        return ()
    subjects = []
    for name in _FILES:
        for line in (ACTIVITY / name).read_text().splitlines():
            title = json.loads(line)["message"].splitlines()[0]
            subjects.append(split_title(title).subject)
    return tuple(subjects)


def _is_third_person(word: str) -> bool:
    """A third-person singular verb form, asked of lemminflect directly (OOV rules included)."""
    for head in (word, word.rpartition("-")[2]):
        lemmas = lemminflect.getAllLemmas(head).get("VERB") or lemminflect.getAllLemmasOOV(
            head, upos="VERB"
        ).get("VERB", ())
        if any(
            head in lemminflect.getAllInflections(lemma, upos="VERB").get("VBZ", ())
            for lemma in lemmas
        ):
            return True
        if any(lemminflect.getInflection(lemma, tag="VBZ")[0] == head for lemma in lemmas):
            return True
    return False


def _identifiers(subject: str) -> list[str]:
    spans = re.findall(r"`[^`]+`", subject)
    words = re.findall(r"(?<![\w`])[A-Za-z_][\w.]*[A-Z_.][\w.]*", re.sub(r"`[^`]+`", " ", subject))
    return spans + [w.rstrip(".") for w in words if not w.istitle() and len(w) > 1]


def test_every_real_title_becomes_a_clause_led_by_a_third_person_verb() -> None:
    subjects = real_subjects()
    assert subjects, "no real titles read from tests/data/activity"
    failures = []
    for subject in subjects:
        words = clause(subject).split()
        while len(words) > 1 and _ADVERB.match(words[0]):
            words = words[1:]
        if not _is_third_person(words[0]) or words[0] == "lands" or words[0] != words[0].lower():
            failures.append((subject, clause(subject)))
    assert len(subjects) > 1300
    assert failures == []


def test_real_titles_keep_their_identifiers_and_never_paste_a_capitalised_verb() -> None:
    subjects = real_subjects()
    assert subjects, "no real titles read from tests/data/activity"
    lost, pasted = [], []
    for subject in subjects:
        result = clause(subject)
        lost += [(subject, i) for i in _identifiers(subject) if i not in result]
        after_verb = result.split()[1] if len(result.split()) > 1 else ""
        own_words = subject.split()[1:2] == [after_verb]  # "Enable Add Tensor": the Add op
        if after_verb[:1].isupper() and after_verb[1:].islower() and not own_words:
            pos = lemminflect.getAllLemmas(after_verb.lower())
            if set(pos) == {"VERB"}:
                pasted.append((subject, result))
    assert lost == []
    assert pasted == []


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        # A comma list of noun phrases lists things, even when its first word can be a verb.
        (
            "chat template, inv_freq dedup, CI hardening",
            "adds chat template, inv_freq dedup and CI hardening",
        ),
        # An imperative with a list for its object stays one.
        ("Update docs, CI config, README", "updates docs, CI config and README"),
        ("Fix crash, inv_freq leak, CI hang", "fixes crash, inv_freq leak and CI hang"),
        ("Cache results, index pages, sort keys", "caches results, index pages and sort keys"),
    ],
)
def test_a_list_of_noun_phrases_is_read_as_one(subject: str, expected: str) -> None:
    assert clause(subject) == expected
    verb, rest = split_verb(subject)
    assert clause(rest, verb=verb) == expected


@pytest.mark.parametrize(
    "subject",
    [
        "Do not resolve recursive `'definitions-ref'` schemas in schema cleaning",
        "Don't link libdl when cross-compiling",
        "No longer emit the legacy header",
    ],
)
def test_a_negated_title_stops_doing_whatever_path_reads_it(subject: str) -> None:
    # classify splits the verb off first: "Do not X" must not become "does not X", which
    # reads as a limitation of the project rather than a change to it.
    verb, rest = split_verb(subject)
    assert verb is None and rest == subject
    assert clause(rest, verb=verb).startswith("stops ")


def test_one_splitter_for_descriptions_and_for_our_own_prose() -> None:
    from digest.english.sentences import split_sentences

    body = "Splitting the gates lets failures block merges. See `ci.yml`. The U.S. Army uses it."
    assert split_sentences(body) == [
        "Splitting the gates lets failures block merges.",
        "See `ci.yml`.",
        "The U.S. Army uses it.",
    ]
    # A description's sentence never opens in lower case; ours may, with a project's name.
    ours = "ExecuTorch adds X [1]. uv adds Y [2]."
    assert split_sentences(ours) == [ours]
    assert split_sentences(ours, own_prose=True) == ["ExecuTorch adds X [1].", "uv adds Y [2]."]


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        # an adjective that opens a noun phrase is never conjugated
        (
            "Fast path for full contiguous reductions",
            "adds fast path for full contiguous reductions",
        ),
        # a name before its version is no verb
        ("react 19 ssr injection preload link", "adds react 19 ssr injection preload link"),
        # a participle as an adjective keeps no capital
        ("Fused quant relu kernel", "adds fused quant relu kernel"),
        # verbs of change stay verbs, in any tense
        ("Fixed crash in the loader", "fixes crash in the loader"),
        ("Record goroutine labels", "records goroutine labels"),
    ],
)
def test_no_noun_phrase_is_read_as_a_verb(title: str, expected: str) -> None:
    assert clause(title) == expected


@pytest.mark.parametrize(
    ("title", "kind", "expected"),
    [
        # a gerund of no verb of change opens a noun phrase
        ("Streaming pyarrow datasets sources", None, "adds streaming pyarrow datasets sources"),
        ("Adding a cache for tokens", None, "adds a cache for tokens"),
        # a deprecation's noun phrase is deprecated, whatever verb its first word could be
        (
            "string-based nodeid APIs with legacy fallback",
            "deprecation",
            "deprecates string-based nodeid APIs with legacy fallback",
        ),
        ("Deprecate the StringCache", "deprecation", "deprecates the StringCache"),
    ],
)
def test_a_title_kind_or_a_gerund_decides_the_verb(
    title: str, kind: str | None, expected: str
) -> None:
    verb, rest = split_kind_verb(title, kind)
    assert clause(rest, verb=verb, kind=kind) == expected


def test_adding_something_for_removal_marks_it() -> None:
    verb, rest = split_kind_verb("Add `Config.load()` for removal in 10.0", None)
    assert clause(rest, verb=verb) == "marks `Config.load()` for removal in 10.0"


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        # a fault stated as a progressive or a passive keeps no finite verb after "fixes"
        (
            "Fix `str.to_time` was raising unnecessarily when input was all nulls",
            "fixes `str.to_time` raising unnecessarily when input was all nulls",
        ),
        (
            "Streaming sort by-expressions were lowered incorrectly",
            "fixes streaming sort by-expressions being lowered incorrectly",
        ),
    ],
)
def test_a_fault_stated_in_the_title_is_fixed_without_its_finite_verb(
    title: str, expected: str
) -> None:
    verb, rest = split_kind_verb(title, "fix")
    assert clause(rest, verb=verb, kind="fix") == expected


def test_a_fix_that_states_the_new_behaviour_is_not_told_as_its_fault() -> None:
    # present tense says what the fix makes true, not what was wrong
    verb, rest = split_kind_verb("the cache is invalidated on reload", "fix")
    assert "being invalidated" not in clause(rest, verb=verb, kind="fix")


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        # a word as much a noun as a verb, and no verb titles open with, before a noun
        ("Image generation results", "adds image generation results"),
        ("Option to seed the RNG", "adds an option to seed the RNG"),
        # verbs titles do open with stay verbs
        ("Record goroutine labels", "records goroutine labels"),
        ("Cache compiled regexes", "caches compiled regexes"),
        ("Support division with integer tensors", "supports division with integer tensors"),
    ],
)
def test_a_word_as_much_noun_as_verb_opens_a_noun_phrase_unless_titles_use_it_as_a_verb(
    title: str, expected: str
) -> None:
    from digest.english.articles import with_article

    verb, rest = split_kind_verb(title, None)
    assert with_article(clause(rest, verb=verb)) == expected


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        # what did not work, the fix makes work
        ("pager not working on Windows", "makes pager work on Windows"),
        ("retries not working correctly", "makes retries work correctly"),
        ("the export doesn't work with symlinks", "makes the export work with symlinks"),
        # what a thing did not do, the fix makes it do (polars' "fix: lazy concat
        # horizontal not raising on mismatching heights …")
        (
            "lazy concat horizontal not raising on mismatching heights",
            "makes lazy concat horizontal raise on mismatching heights",
        ),
        ("the parser doesn't raise on bad input", "makes the parser raise on bad input"),
        ("`skip_batches` not handling negated masks", "makes `skip_batches` handle negated masks"),
        # a state, not a deed: told as it is
        ("config not found when cwd differs", "fixes config not found when cwd differs"),
        # how a thing looked is the fault, as a gerund (vite's "fix: `hmrClient.logger.debug`
        # and `…error` looked different from other …")
        (
            "`logger.debug` and `logger.error` looked different from other logs",
            "fixes `logger.debug` and `logger.error` looking different from other logs",
        ),
        ("the overlay seemed frozen on Safari", "fixes the overlay seeming frozen on Safari"),
        # what the code lost is the fault (polars' "fix: Filter at scan dropped in CSPE …")
        (
            "Filter at scan dropped in widget pushdown",
            "fixes filter at scan being dropped in widget pushdown",
        ),
        ("cache entries lost on restart", "fixes cache entries being lost on restart"),
        # what is missing goes before the word (pydantic's "`field_name` missing with …")
        (
            "`WidgetInfo.name` missing with `validate_json()`",
            "fixes a missing `WidgetInfo.name` with `validate_json()`",
        ),
        ("Headers missing in redirect responses", "fixes missing headers in redirect responses"),
    ],
)
def test_a_fix_title_that_states_its_fault_reads_alike_with_its_verb_or_its_type(
    subject: str, expected: str
) -> None:
    assert clause(subject, verb="fix") == expected
    assert clause(subject, kind="fix") == expected


@pytest.mark.parametrize(
    ("predicate", "spelled"),
    [
        # polars' "lower `skew` / `kurtosis` to streaming aggregations"
        ("lowers `skew` / `kurtosis` to streaming", "lowers `skew` and `kurtosis` to streaming"),
        ("adds fp64 RoPE for Phi-3 / Phi-4 family", "adds fp64 RoPE for Phi-3 and Phi-4 family"),
        # code, paths and unspaced slashes keep theirs
        ("fixes `a / b` in src/x/y.py", "fixes `a / b` in src/x/y.py"),
        ("fixes incorrect when/then", "fixes incorrect when/then"),
    ],
)
def test_a_spaced_slash_of_a_title_is_spelled_and_in_prose(predicate: str, spelled: str) -> None:
    assert spell_slashes(predicate) == spelled
