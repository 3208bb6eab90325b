"""Why a change was made, in its own words: a short quotation from its description.

A title says what; the description often says why. `stated_reason(body)` reads the body's
Markdown (markdown-it-py) and takes a sentence of a "Why", "Motivation", "Impact",
"Problem", "Context" or "Summary" section, of an `**Impact:**` line, or else of the first
prose paragraph: the first that says what the change lets, allows, enables or prevents or
what went wrong before it, else the first. `quotation` takes a whole sentence of at most
`MAX_QUOTE_WORDS` words, verbatim, with no Markdown, links, @-mentions or trailers, and
never an aside, a hedge, a step of a series or a note on how the change was written; a
sentence too long to quote whole is not cut before its point but left out. `plain` is the text a
quotation is checked against (`digest.check.claims.quotations`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from digest.english.sentences import split_sentences
from digest.english.words import (
    CHANGE_VERBS,
    DETERMINERS,
    LOOSE_PARTICLES,
    PARTICLES,
    is_base_verb,
    is_identifier,
    parts_of_speech,
    verb_form,
    verb_lemma,
)
from digest.reading.asides import NOT_A_REASON

MAX_QUOTE_WORDS = 25
# What the composer quotes: a whole sentence short enough to sit inside one of ours.
QUOTE_WORDS = 25
_SECTIONS = ("why", "motivation", "impact", "problem", "context", "summary")
_LABEL = re.compile(r"^(why|motivation|impact|problem|context)\s*:\s*", re.I)
# "Summary: …", or a heading run into its paragraph: "Summary Lets the model …"
_LEAD_LABEL = re.compile(
    r"^(summary|description|details|results?)(\s*:\s*|\s+(?=(?-i:[A-Z])))", re.I
)
# Paragraphs that are no prose of the author's: bots, trailers, stacks, links, checklists.
_BOILERPLATE = re.compile(
    r"^(this pr was (opened|created|generated) by|bumps?\s|updates? the requirements|stack from"
    r"|differential revision|pull request resolved|co-authored-by|signed-off-by|fixes\s+#|"
    r"closes\s+#|resolves\s+#|cc\s|test plan|this reverts commit|reverts?\s+#|\[x\]|\[ \])",
    re.I,
)
_UNQUOTABLE = re.compile(
    r"@\w|https?://|\]\(|<[a-z/]|```|\||^\[|pull request resolved|differential revision"
    # a bracketed number ("args[0]"), which would read as one of our citations
    r"|\[\d+\]"
    # a full stop inside ("etc. and"), which would end the sentence it is quoted in; not
    # an "e.g." or "i.e.", which ends no sentence (`split_sentences`)
    r"|(?<!\be\.g)(?<!\bi\.e)\.\s",
    re.I,
)

_MD = MarkdownIt("commonmark")
# "Fixes #18924" on the first line of a paragraph whose next lines say what was wrong: the
# link goes, the prose stays.
_ISSUE_LINKS = re.compile(
    r"^(?:(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s+(?:[\w.-]+/[\w.-]+)?#\d+[.,;]?\s*)+", re.I
)


def _inline_text(token: Token) -> str:
    """An inline token as plain text: code spans keep their backticks, links their words."""
    parts = []
    for child in token.children or ():
        if child.type == "text":
            parts.append(child.content)
        elif child.type == "code_inline":
            parts.append(f"`{child.content}`")
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return re.sub(r"\s+", " ", "".join(parts)).strip()


@lru_cache(maxsize=4096)
def _blocks(body: str) -> tuple[tuple[str | None, str, bool], ...]:
    """The body's paragraphs as (heading above them, plain text, inside a list)."""
    found = []
    heading: str | None = None
    in_heading = False
    depth = 0
    for token in _MD.parse(body):
        if token.type == "heading_open":
            in_heading = True
        elif token.type == "heading_close":
            in_heading = False
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif token.type == "inline":
            text = _inline_text(token)
            if in_heading:
                heading = text.lower().strip(" :#*")
            elif text := _ISSUE_LINKS.sub("", text):
                found.append((heading, text, depth > 0))
    return tuple(found)


def plain(text: str) -> str:
    """`text` as the words a reader sees: Markdown read, whitespace collapsed."""
    return " ".join(text for _, text, _ in _blocks(text))


def stated_reason(body: str) -> str | None:
    """The sentence of the body that best says why (see the module docstring), or None."""
    found = reason_sentences(body)
    return found[0] if found else None


def reason_sentences(body: str) -> list[str]:
    """The sentences of the body's stated reason: its "Why"-like section (every paragraph of
    it), its `**Impact:**` line, or its first prose paragraph, of six words or more, and of
    the second only those that state an effect (a later aside, "This fixes it and …",
    "Until then this is …", leans on what came before). Those that say what the change
    lets, allows, enables or prevents come first ("Splitting the gates lets fast failures
    block merges immediately"), ahead of a preamble ("With the CI in a stable state for a
    good time, …"); among equals the body's order holds."""
    if not body.strip():
        return []
    sentences = [
        sentence.strip()
        for text, effect_only in _reason_paragraphs(_blocks(body))
        for sentence in split_sentences(text)
        if len(sentence.split()) >= 6 and (not effect_only or _states_effect(sentence))
    ]
    return sorted(sentences, key=lambda sentence: not _states_effect(sentence))


# A squashed commit's title, as its pull request's body lists it first.
_SQUASHED = re.compile(
    r"^(feat|fix|chore|test|tests|docs?|refactor|perf|ci|build|style|wip)(\([^)]*\))?!?:\s"
    r"|^(merge\s+branch|apply\s+suggestions?\s+from\s+code\s+review)\b",
    re.I,
)


def _reason_paragraphs(
    blocks: tuple[tuple[str | None, str, bool], ...],
) -> list[tuple[str, bool]]:
    """The paragraphs a reason is looked for in, each with whether only a sentence of it
    that states an effect may serve."""
    for name in _SECTIONS:
        section = [
            (text, False)
            for heading, text, _ in blocks
            if heading and heading.split()[0].strip(":") == name and _prose(text)
        ]
        if section:
            return section
    for _, text, _ in blocks:
        if _LABEL.match(text) and _prose(_LABEL.sub("", text)):
            return [(_LABEL.sub("", text), False)]
    if blocks and blocks[0][2] and _SQUASHED.match(blocks[0][1]):
        # A squash of commits ("* fix: handle X", "* test: …"): each paragraph is one
        # commit's message, a step of the work ("The restore logic was too broad"), none why
        return []
    # The opening paragraphs: a first that says what moved often leaves what it does for
    # users to the second.
    opening = [text for heading, text, listed in blocks if heading is None and not listed]
    prose = [text for text in opening if _prose(text)][:2]
    return [(text, at > 0) for at, text in enumerate(prose)]


# Words that say what a change lets happen or stops, or what went wrong before it: a
# sentence with one of them says why better than a preamble or the mechanics ("With the
# CI in a stable state for a good time, …", "This adds a new dtype flag used by …").
# Plain English, the same for every repository.
_EFFECT = re.compile(
    r"\b(lets?|allows?|enables?|prevents?|avoids?|so\s+that|because|otherwise|instead\s+of"
    r"|regression|crash\w*|fail(s|ed|ing|ures?)?|broke(n)?|faster|slower|leak\w*|users?)\b"
    r"|\d+(\.\d+)?\s?%"
    # what the change now does, and what it is for: "now drops the labels", "no longer
    # panics", "caps requests at 10/s to stay under the API's limit"
    r"|\bnow\s+(?!is\b|has\b)[a-z]+s\b|\b(no\s+longer|in\s+order\s+to)\b"
    r"|\bto\s+(avoid|stay|keep|reduce|ensure|match|support|speed\s+up|save)\b",
    re.I,
)
# What was wrong before the change: "The decoder previously used a flat KV cache capped at
# …", "A typo silently passes today", "stalls mid-download, causing the job to time out". A
# sentence that says so is quoted ahead of one on how the change works (`_states_effect`);
# it does not rank a change (`says_why`).
_WRONG_BEFORE = re.compile(
    r"\b(previously|silently|causing|stale|stalls?|timeouts?|unable|cannot|can't|bugs?"
    r"|reduc(es|ed|ing)|not\s+available|not\s+possible|flawed|corrupt\w*"
    r"|(did|does|do|would)\s*n[o']t)\b",
    re.I,
)


def says_why(body: str) -> bool:
    """True when the body states an effect somewhere (a user, a failure, a speed-up, "so
    that"): cheap enough to rank every change by, where `quotation` picks the sentence."""
    return len(body.split()) >= 12 and _EFFECT.search(body[:2000]) is not None


# What may follow an imperative's verb: "Update the pass …", "Check that …", "Treat 0 as …".
_OBJECT_OPENERS = DETERMINERS | PARTICLES | LOOSE_PARTICLES | {"it", "them", "to"}
# A clause that gives the purpose of what a sentence says was done.
_PURPOSE = re.compile(
    r"\b(because|so\s+(?!far\b|much\b|many\b|on\b|as\b)\w+|otherwise|in\s+order\s+to"
    r"|to\s+(avoid|prevent|stay|keep|ensure|allow|let|make\s+sure))\b",
    re.I,
)


# Verbs a sentence opens with to say what the change does, as a title would.
_SAYING_VERBS = CHANGE_VERBS | {"introduce", "support", "implement", "create"}


def _says_what(sentence: str) -> bool:
    """True for a sentence that says what the change does, as its title did: one that opens
    with a verb of change ("Adds X", "This PR enables Y") or an imperative ("Check that Y")."""
    sentence = _LEAD_LABEL.sub("", sentence)
    named = re.match(r"^this\s+(pr|change|commit|patch|diff)\s+", sentence, flags=re.I)
    words = sentence[named.end() if named else 0 :].split()
    if not words or words[0].lower().endswith("ing"):
        return False  # "Adding a handler enables …": a gerund opens a reason
    lemma = verb_lemma(words[0]) or words[0].lower()
    if named and verb_form(words[0]) == "VBZ":
        return True  # "This PR rewires all sorts to …": whatever its verb, what it does
    if not named and re.match(r"^this\s+", sentence, flags=re.I) and len(words) > 1:
        # "This uses the fact that …": "this" is the change, its verb how it works
        second = verb_lemma(words[1]) or ""
        return verb_form(words[1]) == "VBZ" and second in _SAYING_VERBS
    return lemma in _SAYING_VERBS or _imperative(sentence)


# Verbs that say what a change lets users do or spares them: a sentence that opens with one
# says what it is for ("Prevents undersized GPU buffer allocations from …", "Allows new
# clusters to be deployed with runners paused"), unless the title opened with it too.
_EFFECT_VERBS = frozenset({"allow", "enable", "prevent", "let", "avoid", "permit", "stop"})


def _mechanics(sentence: str, title: str) -> bool:
    """True for a sentence that says what the change does (`_says_what`) as its mechanics:
    with a verb other than one of `_EFFECT_VERBS`, or with the title's own verb."""
    if not _says_what(sentence):
        return False
    words = re.sub(
        r"^this\s+((pr|change|commit|patch|diff)\s+)?",
        "",
        _LEAD_LABEL.sub("", sentence),
        flags=re.I,
    ).split()
    lemma = verb_lemma(words[0]) or words[0].lower()
    title_words = re.sub(r"^[\w\s()!-]*:\s*", "", title).split()
    title_lemma = (verb_lemma(title_words[0]) or title_words[0].lower()) if title_words else ""
    return lemma not in _EFFECT_VERBS or lemma == title_lemma


def _imperative(sentence: str) -> bool:
    """True for a sentence that opens with an order: "Update the pass …", "Avoid X", "Treat
    0 as …"; not "Right now, …", whose verb is as much a noun no object follows."""
    words = _LEAD_LABEL.sub("", sentence).split()
    if not words or not is_base_verb(words[0]) or words[0].lower() == "let":
        return False
    following = words[1].lower().strip(",") if len(words) > 1 else ""
    return (
        "NOUN" not in parts_of_speech(words[0])
        or following in _OBJECT_OPENERS
        or is_identifier(following)
    )


# Code a reader of the story cannot read: a call, a path, a member, snake_case or
# lowerCamelCase ("resetMatchedSigs used clear() to …"). Code in backticks is often what
# users call ("`$state.snapshot` infers …"), so it counts only towards too much code.
_CODE_WORD = re.compile(r"\w\(|::|\w_\w|\w[./]\w|^[a-z]+[A-Z]")
# Code in backticks that users do not call: a path, a file, a member of a namespace.
_BACKTICKED_CODE = re.compile(
    r"::|\w_|/|\.(py|pyi|h|hpp|cc|cpp|c|rs|go|ts|js|md|ya?ml|toml|json)\b"
)
# This many code words make a sentence about code, not about what its users get.
_MAX_CODE_WORDS = 5


def _about_code(sentence: str) -> bool:
    """True for a sentence whose subject is bare code, or that names too much code to read."""
    words = re.sub(r"^the\s+", "", _LEAD_LABEL.sub("", sentence), flags=re.I).split()
    code = [w for w in words if "`" in w or _CODE_WORD.search(w)]
    subject = bool(words) and bool(
        _BACKTICKED_CODE.search(words[0]) if "`" in words[0] else _CODE_WORD.search(words[0])
    )
    return subject or len(code) >= _MAX_CODE_WORDS


def _states_effect(sentence: str) -> bool:
    return _EFFECT.search(sentence) is not None or _WRONG_BEFORE.search(sentence) is not None


def _prose(text: str) -> bool:
    words = text.split()
    return len(words) >= 6 and not _BOILERPLATE.match(text) and sum(w.isalpha() for w in words) >= 4


# A measured result: "from 64.8s to 5.2s", "35.4 GB → 17.6 GB", "~17% higher decode
# throughput", "a 3x speed-up", "reduces layout transitions by ~89%".
_MEASURED = re.compile(
    r"\bfrom\s+~?\d[\d.,]*\s*[a-z/%]*\s+to\s+~?\d"
    r"|\d[\d.,]*\s*[a-z/%]*\s*(?:→|->)\s*~?\d"
    r"|\d+(?:\.\d+)?\s?(?:%|x)\s+(?:higher|lower|faster|slower|less|more|fewer|smaller|larger"
    r"|reduction|improvement|speed-?up|decrease|increase)\b"
    r"|\b(?:speed-?up|speeds?\s+up|reduc\w+|improv\w+|sav\w+|cuts?|shrinks?|drops?)\b[^.;]{0,40}"
    r"\bby\s+~?\d+(?:\.\d+)?\s?%",
    re.I,
)


# What a measured result is of: time, memory, size, speed; not a setting the change moves
# ("Increase std from 0.05 to 0.1", "plan workflow timeout from 30m to 45m").
_RESULT_OF = re.compile(
    r"\b(faster|slower|speed\w*|time|latency|throughput|memory|size|binary|slowdown|overhead"
    r"|footprint|usage|peak|tok/s|reduc\w*|sav\w+|shrinks?|smaller|fewer|higher|lower)\b",
    re.I,
)
_SETTING = re.compile(
    r"^\W*(bump|increas|rais|set|chang|modif|updat|lower|decreas|adjust)\w*\b"
    r"|\b(timeout|replicas?|count|limits?|std|instance\s+type|pool\s+size|cap)\b",
    re.I,
)


_MEASURING = re.compile(r"\b(tests?|tested|testing|benchmarks?|benchmarking)\b", re.I)


def measured(body: str) -> list[str]:
    """The body's prose sentences that state a measured result (`_MEASURED`), in order:
    what a change did, in the figures its author took ("this reduced FuseConstantArgsPass
    time from 64.8s to 5.2s"), not a setting it moves or an order to move one."""
    return [
        sentence.strip()
        for _, text, _ in _blocks(body)
        for sentence in split_sentences(text)
        if len(sentence.split()) >= 5
        and _MEASURED.search(sentence)
        and _RESULT_OF.search(sentence)
        and not _SETTING.search(sentence)
    ]


@lru_cache(maxsize=8192)
def quotation(body: str, title: str = "", *, max_words: int = QUOTE_WORDS) -> str | None:
    """A verbatim piece of the body's stated reason, at most `max_words` words, that says
    more than the title, never cut short. None when there is none. A measured result comes
    first (`measured`): readers missed "228.6 MB → 162.6 MB" most of all; then the first
    sentence that states an effect (`reason_sentences`), then the first that does not."""
    for result in measured(body):
        # (a result names the test it was measured on: "On an internal export test, this
        # reduced the pass's time from 64.8s to 5.2s" says what users get all the same)
        measuring = _MEASURING.sub("run", result)
        standing = not (NOT_A_REASON.search(measuring) or _about_code(result))
        # (its figures say more than the title, however few words it adds)
        if standing and (said := _quotable(result, title, max_words, fresh=1)):
            return said
    found = [r for r in reason_sentences(body) if not NOT_A_REASON.search(r)]
    # One that states an effect may still be an order of what to do ("Allow users to set
    # …"), as the title was, unless it gives a purpose ("Lower the cap to stay under …").
    # Nor the mechanics of what the change does ("This PR updates the CMake files to enable
    # native Windows builds", "This PR enables the `MM` operators"), however many effect
    # words they hold.
    stating = [
        r
        for r in [r for r in found if _states_effect(r)][:2]
        if not _about_code(r)
        and (_PURPOSE.search(r) or not (_imperative(r) or _mechanics(r, title)))
    ]
    # One that states no effect is a reason only when it is more than the title in other
    # words: one that says what ("Introduce a pass manager …") says what the title did.
    others = [
        r for r in found if not _states_effect(r) and not _says_what(r) and not _about_code(r)
    ][:1]
    for reason in [*stating, *others]:
        if said := _quotable(reason, title, max_words):
            return said
    return None


# Where a sentence's independent clauses meet: a spaced dash or a semicolon.
_CLAUSE_BREAK = re.compile(r"\s+[-–—]\s+|;\s+")
# A clause that says what the one before it brings about, pointing back at it.
_LEANS_BACK = re.compile(
    r"(this|that|which|so|otherwise|thus|hence|therefore|else|and\s+(this|that|so))\b", re.I
)


def _clause_of(sentence: str, title: str, max_words: int) -> str | None:
    """The clause of a sentence too long to quote that says most: the first that states an
    effect, else the first that says more than the title, of six words or more."""
    clauses = [c.strip(" .,") for c in _CLAUSE_BREAK.split(sentence)]
    if len(clauses) < 2:
        return None
    # A clause that the next one leans back on ("… module-scope variable — this shrinks the
    # output", "… must carry a label — otherwise allocation fails") stops before its point.
    following = [*clauses[1:], ""]
    standing = [
        c for c, after in zip(clauses, following, strict=True) if not _LEANS_BACK.match(after)
    ]
    fitting = [c for c in standing if 6 <= len(c.split()) <= max_words and c[:1] != "("]
    for clause in sorted(fitting, key=lambda c: not _states_effect(c)):
        if said := _quotable(clause, title, max_words):
            return said
    return None


_ENDS_IN_ABBREVIATION = re.compile(r"\b(e\.g|i\.e|etc|vs|incl|cf)\.?\s*$", re.I)


def _quotable(reason: str, title: str, max_words: int, *, fresh: int = 3) -> str | None:
    """`reason` as a quotation: whole, no markup, at most `max_words` words (or a clause
    of it that stands alone), with at least `fresh` words of four letters the title lacks."""
    reason = _LEAD_LABEL.sub("", reason)
    if reason[:1].islower() and not is_identifier(reason.split()[0]):
        return None  # the tail of a sentence split where it should not be: "treating it as …"
    if _UNQUOTABLE.search(reason) or reason.count(")") > reason.count("("):
        return None  # markup, or the tail of a sentence split at "e.g." inside a parenthesis
    if reason.rstrip().endswith(":"):
        return None  # it introduces what follows (a list, an example): its point is there
    reason = reason.rstrip(".!:;, ")
    if len(reason.split()) > max_words:
        # A quotation cut short stops before its point: none at all is better, unless a
        # clause of the sentence stands on its own ("Minor improvement - `f` is part of the
        # Limited API from 3.12 so the guard can be adjusted").
        return _clause_of(reason, title, max_words)
    if reason.count("(") > reason.count(")"):
        # A parenthesis the cut (or a sentence split at "e.g.") left open: the piece ends
        # before it, so no quotation opens what it never closes.
        reason = reason[: reason.rfind("(")].rstrip(" ,;:—-") + "…"
        if len(reason.split()) < 6:
            return None
    if _ENDS_IN_ABBREVIATION.search(reason):
        return None  # a sentence split at "e.g." ends before its example: its point is there
    mine = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", reason)}
    theirs = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", title)}
    if not mine or len(mine - theirs) < fresh:
        return None  # it says what the title says
    return None if '"' in reason else reason
