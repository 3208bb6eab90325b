"""Sentences of a description that are no reason for its change: the author's asides and
hedges, steps of a series, pointers elsewhere, notes on how the change was written or
tested, and sentences that lean on the one before them (see `digest.reading.why`)."""

from __future__ import annotations

import re

# Sentences that are no reason: the author's asides and hedges, steps of a series,
# pointers elsewhere, and notes on how the change was written ("I am not 100% sure why
# …", "This is intended for next commit", "This PR was authored with the assistance of
# …", "See the inline comments for rationale", "Temporary debug commit …").
NOT_A_REASON = re.compile(
    r"\b(I|I'm|I've|me|my)\b|\bnot\s+(100%\s+)?sure\b|\bseems?\b|\bmaybe\b|\bprobably\b"
    # a doubt or a shrug: "X isn't sure we should bother", "Don't know how those got here"
    r"|\b(isn't|aren't|wasn't)\s+sure\b|\bunsure\b|\b(don't|do\s+not)\s+know\b|\bno\s+(idea|clue)\b"
    r"|\bhopefully\b|\bshould\s+(now\s+)?(work|help|do\s+it)\b|,?\s+though\W*$"
    r"|\b(first|next|second|last|final)\s+(step|commit|pr|part)\b|\bpart\s+(\d+\b|of\s+(#|(the|a|an)\s+"
    r"(series|stack|effort|larger|bigger|broader|wider|ongoing|plan|work|implementation"
    r"|migration|refactor|rework|rewrite|cleanup|port|transition|project|initiative"
    r"|rollout|roadmap)\b))"
    r"|\bfollow[- ]?up\b|\bintended\s+for\b|\bin\s+preparation\b|\bprecursor\b|\bstacked\b"
    r"|\bsee\s+(the\s+)?(inline\s+)?(comments?|issue|discussion|above|below|description)\b"
    r"|\b(authored|written|generated)\s+(with|by)\b|\bassistance\s+of\b"
    r"|\btemporary\b|\bdebug\s+commit\b|\baccidentally\b|\bwill\s+resolve\s+any\s+conflicts\b"
    # how it was merged or split off: "will self-merge this bit", "extracted from #18047",
    # "Didn't include this in the previous commit"
    r"|\bself-?merg\w*|\b(extracted|split|carved)\s+(out\s+)?(from|of)\b"
    r"|\b(previous|earlier|last|next|other)\s+(commit|pr|pull\s+request)\b"
    r"|\bthis\s+(pr|change|commit|patch)\s+(is|was)\s+(a|the)\s+(copy|cherry|port|backport)"
    # a state of the work or of its review, not why it was done: "Note: still a WIP for
    # native histograms", "Addresses divergences flagged in PR review"
    r"|\bchange(set|st)s?\b|\bWIP\b|\bwork\s+in\s+progress\b|^\s*(note|nb|n\.b\.|todo|fixme)\b\s*:"
    r"|\b(flagged|raised|requested|suggested|found|noted|pointed\s+out)\s+(in|by|during)\s+"
    r"(the\s+)?(pr\s+|code\s+)?(review|reviewers?)\b"
    r"|\b(review|reviewer)\s+(feedback|comments?|findings|suggestions|nits?)\b"
    # what the change's tests or reproduction show, not what users get: "This makes the
    # test intent misleading", "In the reproduction this happens because …"
    r"|\b(tests?|tested|testing|reproduction|repro)\b|\bpass(es)?\s+(the\s+)?(\w+\s+){0,3}suite\b"
    r"|\bregression\s+guard\b"
    # what a piece of code is, not why it changed: "`parsefactories` is the function which …"
    r"|^\W*\S+\W*\s+is\s+(the|a|an)\s+(\w+\s+)?(function|method|class|module|helper|hook|macro"
    r"|file|type|struct|variable|field|parameter)\s+(which|that|used)\b"
    # what another pull request or issue does: "PR #3300 drafts the idea of …"; where a
    # bug came from: "Regression from #18039 - we need to …"
    r"|^\s*(pr|pull\s+request|issue)?\s*#\d+\b|^\s*regression\s+(from|of|in|since|by)\s+#\d+"
    # how the change goes about "this", which the sentence never says: "We can avoid this
    # by checking if a decrement is queued"
    r"|\b(avoid|fix|solv|address|handl|prevent|achiev|do|work\s+around)\w*\s+(this|that|it)\s+by\b"
    r"|\b(this|that|it)\s+is\s+(fixed|solved|done|avoided|achieved|addressed|handled)\s+by\b"
    # a sentence that leans on the one before it, quoted alone: "As a result production
    # build could …", "This means …", "Therefore …"
    r"|^\s*(to\s+(allow|enable|support|do|achieve|make)\s+(this|that)\b|also|additionally"
    r"|moreover|furthermore|however|but|in\s+addition|on\s+top\s+of\s+that|besides"
    r"|consequently|this\s+one|the\s+(pr|change|patch)\s+now|noticed|attempt\s+\d"
    r"|separately|together|specifically|in\s+(this|that)\s+way|this\s+(time|version)|else"
    r"|(it|they|these|those)\s"
    r"|as\s+a\s+result|this\s+means|that\s+means|therefore|thus|hence|in\s+that\s+case"
    r"|in\s+this\s+case|because\s+of\s+this|due\s+to\s+this)\b"
    # a "this" that points at what the sentence before said went wrong, not at the change:
    # "This causes every multi-process NCCL collective to fail", "This was missed because …"
    r"|^\s*(this|that)\s+(is|was|were|causes?|caused|leads?|led|results?|resulted|happens?"
    r"|happened|breaks?|broke|means|meant|triggers?|triggered|calls|incorporates|implies)\b"
    # one that introduces what follows: "A common pattern from CI logs is the following"
    r"|\b(the\s+following|as\s+follows)\W*$"
    # what the code does instead: "Instead use np._NoValue and only forward …"
    r"|^\s*instead\s*,?\s+(use|we|this|it|call|do|return|check|store|keep|make|match|pass)\b"
    # a fragment with no subject: "Applied across all ~30 functions …", "Built in the …";
    # where the code came from: "Ported from the MLX delegate PR (#18785) Metal shader"
    r"|^\s*(applied|built|verified|validated|added|moved)\s"
    r"|^\s*(ported|copied|taken|adapted|borrowed|cherry-picked|backported)\s+(over\s+)?from\b"
    # an aside or a list's dash: "(because the batch …)", "— Unify and …"
    r"|^\s*[(\[—–-]"
    # what the change is not, or what already was: "The goal is not to make serve fully
    # runtime agnostic", "That path is already supported through …", "The default hook
    # returns true, preserving existing behavior"; its scope or size: "This is done for
    # conv, …", "This is a substantial commit which introduces …"
    r"|\b(goal|aim|intent|point)\s+(is|was)\s+not\b|\bnon-?goals?\b"
    r"|\b(is|are|was|were)\s+already\s+(supported|possible|handled|covered|done|available)\b"
    r"|\bpreserv\w*\s+(the\s+)?(existing|current|previous|old)\s+behaviou?r\b"
    r"|^\s*this\s+is\s+done\s+for\b"
    r"|^\s*this\s+is\s+an?\s+(substantial|large|big|small|minor|quick|simple)\s+"
    r"(commit|pr|change|patch)\b",
    re.I,
)
