"""Phrases about one event: its name, object, verb phrase and where it happened.

`event_predicate` turns an event into the verb phrase of a sentence ("backs out XNNPACK
serialization"); the writers of the headline, lede, body and action items build on it.
"""

from __future__ import annotations

import re
from itertools import pairwise

from digest.compose.housekeeping import housekeeping_clause
from digest.config import WireConfig, topic_key
from digest.english.articles import agree_articles, with_article
from digest.english.case import acronym_case
from digest.english.clauses import clause, fit_inability, nominalize, shorten
from digest.english.clean import is_clean, knows_verb, spell_slashes, tidy
from digest.english.nouns import possessive
from digest.english.numbers import count_word
from digest.english.shapes import split_verb, third_person
from digest.english.words import parts_of_speech, verb_form, verb_lemma
from digest.reading.audience import in_folders, is_internal_folder, is_internal_path
from digest.reading.event import Event
from digest.reading.retell import REFERENCE_ONLY
from digest.reading.title_tags import reads_as_word
from digest.reading.titles import split_title
from digest.reading.topics import CI_TOPIC, is_stub_path, is_test_path
from digest.select import NAMED_HOUSEKEEPING
from digest.untrusted import clean_fragment


def project_name(config: WireConfig, repo: str) -> str:
    """The name a story calls the project of `repo` by (its canonical name in the config)."""
    return config.project(repo).name


# Abbreviations whose full stop would read as a sentence's end ("(incl. m7g.metal)").
_ABBREVIATIONS = {"incl.": "including", "e.g.": "for example", "i.e.": "that is", "vs.": "versus"}
_ABBREVIATION = re.compile(
    r"(?<!\w)(" + "|".join(map(re.escape, _ABBREVIATIONS)) + r")(?=\s)", re.I
)


def _object(event: Event, *, max_words: int) -> str:
    text = _ABBREVIATION.sub(lambda m: _ABBREVIATIONS[m[1].lower()], clean_fragment(event.obj))
    return _fit(_without_own_name(text, event), max_words=max_words)


def _fit(text: str, *, max_words: int) -> str:
    if len(text.split()) <= max_words:
        return text
    return fit_inability(text, max_words=max_words) or shorten(text, max_words=max_words)


def _without_own_name(text: str, event: Event) -> str:
    """`text` without a closing "for <project>" or "to <project>": every sentence about the
    change names the project already ("ExecuTorch adds an ImageProcessor library")."""
    match = re.search(r"\s+(?:for|to|into|in)\s+(\S+)$", text)
    if match is None or len(text[: match.start()].split()) < 2:
        return text
    own = topic_key(match[1].strip("`.,")) in event.project.own_keys
    return text[: match.start()] if own else text


_CUT_WORD = re.compile(r"(?<=\S)\s+\w+…$")


def quoted_title(event: Event, *, max_words: int, whole_subject: bool = False) -> str:
    """The title in quotation marks; a quotation cut short ends in an ellipsis inside the
    marks, so it never reads as the whole title ("“Add grammar fields to X for…”").
    `whole_subject` quotes the title's subject, its verb included, not only its object."""
    # verbatim: a quotation keeps the project's name
    whole = clean_fragment(event.subject if whole_subject else event.obj)
    # A title the platform cut mid-word ("… for Qwen3.5 attentio…") loses the cut word
    whole = _CUT_WORD.sub("…", whole)
    quoted = _fit(whole, max_words=max_words)
    cut = len(quoted.split()) < len(whole.split()) and not quoted.endswith("…")
    return f"“{quoted}…”" if cut else f"“{quoted}”"


def event_predicate(
    event: Event, *, max_words: int, headline: bool = False, articles: bool = True
) -> str:
    """The verb phrase for an event, with reverts named by a noun phrase when the table allows.
    `articles` puts back the article a title leaves out ("adds a topk fallback kernel"); the
    headline passes False to keep the title's telegraphic style."""
    if event.relanded:
        return f"briefly backs out and relands {quoted_title(event, max_words=max_words)}"
    if event.kind == "revert":
        nominal = nominalize(clean_fragment(event.obj))
        if nominal and not headline:
            return f"backs out {nominal}, undoing {quoted_title(event, max_words=max_words)}"
        return f"backs out {backed_out(event, max_words=max_words)}"
    if event.trivia in NAMED_HOUSEKEEPING:
        # "includes everyone in people page", "updates evan's x handle": what the house
        # keeps, said as what it is ("updates its contributor and sponsor pages")
        return housekeeping_clause(event.trivia, [event])[0]
    obj = _object(event, max_words=max_words)
    if event.kind == "reland" and split_verb(obj)[0] is not None:
        return f"relands {quoted_title(event, max_words=max_words)}"
    # A noun-phrase title of a fix says what was fixed ("Out-of-bounds read in X").
    kind = event.title_kind or ("fix" if event.kind == "fix" else None)
    predicate = spell_slashes(clause(obj, verb=event.verb, kind=kind))
    if event.kind == "bump" and event.verb is not None and not knows_verb(event.verb):
        # "[pre-commit.ci] pre-commit autoupdate" is no "pre-commits autoupdate"
        count = event.bump.count if event.bump is not None else 1
        # (a count only where the title gives one: an autoupdate lists its own in its body)
        return f"updates {count_word(count)} dependencies" if count > 1 else "updates dependencies"
    if not event.clean and event.kind not in ("release", "bump"):
        # A change that leads or must be told though its clause would not read cleanly
        # (`select.nameable`): without its parentheticals and "+", or else by its title,
        # quoted ("fixes “Astro unable to …”").
        tidied = tidy(predicate)
        if not is_clean(tidied):
            if kind == "fix" and event.verb == "fix" and obj:
                # "fixes “Fix .svelte files …”" said the verb twice: the object is quoted
                return f"fixes {quoted_title(event, max_words=max_words)}"
            verb = "fixes" if kind == "fix" else "lands"
            return f"{verb} {quoted_title(event, max_words=max_words, whole_subject=True)}"
        predicate = tidied
    predicate = _own_inability(predicate, event)
    predicate = _common_case(predicate, event)
    predicate = acronym_case(agree_articles(with_article(predicate) if articles else predicate))
    # "Also capture logs …" adds to what its pull request did, which the story does not
    # tell; and beside our own "It also" it would read "also also".
    predicate = _ADDING_ADVERB.sub("", predicate)
    # "uses radixsort also for descending sorts": our own "also" may open the sentence
    predicate = _INNER_ALSO.sub("", predicate)
    return predicate + _where_it_lives(event, predicate)


def backed_out(event: Event, *, max_words: int) -> str:
    """What a revert backs out, as a story names it: "an earlier change (#16708)" for a
    title that names only a pull request; a noun phrase ("XNNPACK serialization"); a thing
    the title names, in our words; else the title, quoted."""
    obj = clean_fragment(event.obj)
    if ref := REFERENCE_ONLY.fullmatch(obj):
        # 'Revert "PR 16708"' names no change: quoted, it would read as a title.
        number = ref.group("n") or ref.group("m")
        return f"an earlier change (#{number})" if number else "an earlier change"
    titles = (event.activity.title, *(a.title for a in event.linked))
    thing = _named_thing(obj) if split_verb(obj)[0] is None else None
    if thing and any(_A_FIX.search(t) for t in titles):
        # 'Revert "fix: cloudflare ssr deps optimization"' undid a fix to the optimization:
        # "backs out cloudflare ssr deps optimization" read as the loss of the optimization
        return f"a fix for {thing}"
    # A title that names a thing, not an action ("isNode detection that caused a build
    # regression"), is backed out in our words: quoted, in a headline's capitals, it read
    # as the loss of a feature.
    return nominalize(obj) or _named_thing(obj) or quoted_title(event, max_words=max_words)


# A conventional fix's title, or a back-out's that quotes one: 'Revert "fix(cf): …"'.
_A_FIX = re.compile(r"""^(revert\w*\s*["“'`]?\s*)?fix(\([^)]*\))?!?:""", re.I)


def _named_thing(obj: str) -> str | None:
    """`obj` as the object of "backs out" when it is a short noun phrase, no action: no
    verb opens it, nothing in it needs quoting; else None."""
    words = obj.split()
    if not 1 <= len(words) <= 8 or split_verb(obj)[0] is not None or verb_form(words[0]):
        return None
    # A verb of its own makes it a statement ("parser is broken"), unless a relative
    # pronoun opens its clause ("detection that caused …").
    if any(
        verb_form(w) in ("VBZ", "VBD")
        and "NOUN" not in parts_of_speech(w)  # "cache keys": a plural
        and words[i - 1].lower() not in ("that", "which")
        for i, w in enumerate(words[1:], 1)
        if w.islower()
    ):
        return None
    predicate = f"backs out {obj}"
    if not is_clean(predicate) or re.search(r"[\"“”'():]", obj):
        return None
    return with_article(predicate).removeprefix("backs out ")


def _own_inability(predicate: str, event: Event) -> str:
    """ "fixes Astro being unable to handle X" about Astro itself says "now handles X": the
    project fixes its own inability, and its name twice reads as two."""
    own = re.match(
        rf"fixes (?:{re.escape(event.project.name)}|{re.escape(event.repo.split('/')[1])}) "
        r"(?:being unable|failing) to (?P<verb>[a-z]+)\b(?P<rest>.*)",
        predicate,
        re.I,
    )
    if own is None or verb_lemma(own["verb"]) != own["verb"].lower():
        return predicate
    return f"now {third_person(own['verb'].lower())}{own['rest']}"


def _common_case(predicate: str, event: Event) -> str:
    """`predicate` with its object's first word lower-cased when the title gave it a capital
    only because it opened the title, as the change's own description shows by writing the
    word in lower case mid-sentence more often than capitalised ("FIX: Auxiliary modules
    …" → "fixes auxiliary modules …"); a name it writes capitalised ("Rayon") stays."""
    verb, _, rest = predicate.partition(" ")
    first, _, after = rest.partition(" ")
    if not (first[:1].isupper() and first[1:].isalpha() and first[1:].islower()):
        return predicate
    if after[:1].isupper():
        return predicate  # a name of several words: "Add Tensor", "Prefix Tuning"
    mid = re.compile(rf"(?<=[a-z,;] )({first[0]}|{first[0].lower()}){re.escape(first[1:])}\b")
    uses = [m[0][0].islower() for m in mid.finditer(event.activity.body)]
    if not uses or sum(uses) <= len(uses) - sum(uses):
        return predicate
    return f"{verb} {first.lower()} {after}".rstrip()


_INNER_ALSO = re.compile(r"\s+also(?=\s+(?:for|in|on|with|to|when|if|as)\b)", re.I)
_ADDING_ADVERB = re.compile(r"^(also|additionally|further(more)?|moreover)\s+(?=[a-z])", re.I)


_ABOUT_TESTS = re.compile(r"\b(tests?|testing|test suite|specs?|fixtures?|coverage)\b", re.I)
_ABOUT_TYPES = re.compile(r"\b(typ(e|es|ed|ing)|stubs?|annotations?|overloads?|mypy)\b", re.I)


def _where_it_lives(event: Event, predicate: str) -> str:
    """ " in its tests" for a change to the test suite, " in its type stubs" for one to type
    stubs only, unless the predicate says so: "fixes a bug with hard-coded device" of
    "TST FIX …" is no bug users had, and "adds unary predicate ufuncs" of "TYP: …" adds
    no function anyone can call."""
    paths = [f.path for f in event.activity.files]
    if event.kind == "test" and not _ABOUT_TESTS.search(predicate):
        return " in its tests"
    typing = event.title_kind == "typing" or (paths and all(is_stub_path(p) for p in paths))
    if typing and event.kind not in ("revert", "reland", "release", "bump"):
        return "" if _ABOUT_TYPES.search(predicate) else " in its type stubs"
    return ""


def area_of(event: Event) -> str | None:
    """The topic to name as context: the change's main topic (`topic_of`), unless the
    sentence already mentions it. Never a later topic, which the change only touches in
    passing ("pin centralization in Moshi" for one install script among ten CI files), nor
    the project itself ("… in pydantic" of pydantic), a hidden folder (".github") or one of
    the project's internal folders ("method_comparison")."""
    topic = topic_of(event)
    if topic is None or is_internal_folder(topic, event.project) or _only_internal(topic, event):
        return None
    obj = event.obj.lower()
    if topic.lower() in obj or topic_key(topic) in topic_key(obj):
        return None
    return topic


def names_a_place(area: str, event: Event) -> bool:
    """True when `area` reads as the name of a place in a sentence's tail ("… in promql",
    "… in XNNPACK", "… in Netlify"): a configured topic, a word that is no plain English
    one, or one the title's own prefix gives ("Arm backend: …"). A folder named with a
    plain word ("discovery/", "src/core/", "runtime/") is how the code is laid out, and
    reads as a common noun capitalised ("… in Core"); the section heading names it, the
    sentence not."""
    key = topic_key(area)
    if event.project.topic_for_key(key) is not None or not reads_as_word(area):
        return True
    # A prefix the project capitalises names a part ("Arm backend: …"); a lower-case
    # scope ("fix(server): …") is a plain word, which would read "… in Server".
    tags = split_title(event.activity.title).tags
    if any(topic_key(tag) == key and not tag.islower() for tag in tags):
        return True
    return any(_one_of_many(f.path, key) for f in event.activity.files)


def place_phrase(area: str, event: Event) -> str:
    """`area` as the object of "in": a name as it is ("in XNNPACK", "in Netlify"), a
    plain word that only a heading capitalised as a common noun ("in the compiler")."""
    return area if names_a_place(area, event) else f"the {area.lower()}"


def _one_of_many(path: str, key: str, *, top: bool = False) -> bool:
    """True when `path` lies in a folder named `key` that is one of a collection, its parent
    named in the plural ("packages/integrations/netlify/", "plugins/cache/"), or with `top`
    at the top of the tree ("polars-plan/"): a package, a product of its own, where
    "src/core/" or "src/vite-plugin-hmr-reload/" is a part of the code."""
    parts = path.split("/")[:-1]
    if top and parts and topic_key(parts[0]) == key:
        return True
    return _collections(path, key) != []


def _collections(path: str, key: str) -> list[str]:
    """The folders of `path` named in the plural whose child is named `key`
    ("integrations" of "packages/integrations/netlify/x.ts" for "netlify")."""
    parts = path.split("/")[:-1]
    return [
        parent
        for parent, part in pairwise(parts)
        if topic_key(part) == key and len(parent) > 3 and parent.endswith("s") and parent.isalpha()
    ]


# A change to this many packages of a monorepo is the project's, not one package's.
SPREAD_PACKAGES = 3


def spans_packages(event: Event) -> bool:
    """True when the change touches `SPREAD_PACKAGES` or more packages, each a folder in a
    collection named in the plural ("packages/db/", "packages/integrations/react/"): a
    monorepo-wide dependency bump is no news of whichever package it touched most."""
    found = set()
    for f in event.activity.files:
        parts = f.path.split("/")[:-1]
        for at in range(len(parts) - 1):
            plural = len(parts[at]) > 3 and parts[at].endswith("s") and parts[at].isalpha()
            if plural and not parts[at + 1].endswith("s"):
                found.add("/".join(parts[: at + 2]))
                break
    return len(found) >= SPREAD_PACKAGES


def collection_of(area: str, event: Event) -> str | None:
    """The kind of part `area` is when its folder is one of a collection named in the
    plural ("packages/integrations/svelte/" → "integration"), for "astro's svelte
    integration"; None when no file of the change lies in such a folder."""
    key = topic_key(area)
    for f in event.activity.files:
        if is_test_path(f.path):
            continue  # "test/units/manifest/": how tests are laid out, no part of the product
        for parent in _collections(f.path, key):
            if not parent.endswith("ss"):  # "process/", "access/" name no collection
                return parent[:-1].lower()
    return None


def is_package(area: str, event: Event) -> bool:
    """True when `area` is a package of the repository that the change touches: a folder at
    the top of the tree or one of a collection (`_one_of_many`)."""
    key = topic_key(area)
    return any(_one_of_many(f.path, key, top=True) for f in event.activity.files)


def is_backend_area(event: Event, area: str) -> bool:
    """True when the change touches `<backend folder>/<area>/` (the project's
    `backend_folders`, by default `backends/`), so "ExecuTorch's Arm backend" is right."""
    key = topic_key(area)
    folders = set(event.project.backend_folders)
    return any(
        f.path.split("/", 1)[0] in folders and topic_key(f.path.split("/")[1]) == key
        for f in event.activity.files
        if f.path.count("/") >= 2
    )


def _only_internal(topic: str, event: Event) -> bool:
    """True when every path of the change with a folder named `topic` is internal: a place
    found only in examples, tests or tooling (`examples/models/moshi/`)."""
    key = frozenset({topic_key(topic)})
    named = [f.path for f in event.activity.files if in_folders(f.path, key)]
    return bool(named) and all(is_internal_path(path, event.project) for path in named)


def topic_of(event: Event) -> str | None:
    """The place of a change a story may name (in "… in X", a section's heading, the counts
    of "In brief"): its first topic that is not the project itself. None when that topic is
    no place a reader follows: a hidden or private folder (".github", "_core": a later topic,
    which the change only touches in passing, does not stand in for it), one of the
    project's internal folders ("method_comparison") or, unless configured, a folder met
    only in examples, tests or tooling (`examples/models/moshi/`). CI is a place, though no
    tail names it (`area_of`)."""
    project = event.project
    topic = next((t for t in event.topics if topic_key(t) not in project.own_keys), None)
    if topic is None or topic.startswith((".", "_")):
        return None
    if topic == CI_TOPIC or project.topic_for_key(topic_key(topic)) is not None:
        return topic
    return None if is_internal_folder(topic, project) or _only_internal(topic, event) else topic


def place(event: Event, name: str) -> str:
    """Where a change happened, as a noun phrase: "ExecuTorch's Arm backend", "Arm in
    ExecuTorch", a part named after the project alone ("polars-stream"), or the project's
    name alone (also when the change's object names a topic
    that is no backend: "… on ExecuTorch: the change adds MLX backend support for Gemma 4
    31B")."""
    topic = topic_of(event)
    if topic is None:
        return name  # "Moshi" of `examples/models/moshi/`: no place a reader follows
    if is_backend_area(event, topic):
        return f"{possessive(name)} {topic} backend"
    if area_of(event) is None or not names_a_place(topic, event):
        # the object names the topic already ("… support for Gemma 4 31B"), or the topic is
        # a folder of the code ("Assertion in pytest" of `src/_pytest/assertion/`)
        return name
    if topic.lower().startswith((f"{name.lower()}-", f"{name.lower()}_")):
        return topic  # "polars-stream", not "polars-stream in polars"
    return f"{topic} in {name}"
