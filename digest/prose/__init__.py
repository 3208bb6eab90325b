"""Optional language-model prose for a composed story, on a leash.

A model may rewrite a story's lede and body, never its facts: it gets the drafted
sentences with their citation markers, the canonical names and the numbers, and returns
JSON sentences that keep their markers. `digest.prose.validation`, `digest.check` and
`digest.check.proofread` judge the answer; anything they reject, and any network failure, leaves the rules' text.

    settings   the [prose] table of the configuration (key from the environment)
    client     an OpenAI-compatible chat-completions client over httpx
    facts      what the model is told: sentences, citations, names, numbers
    prompt     the messages sent, and the retry message with the errors
    validation parsing the answer and finding every new name, number or moved citation
    judge      digest.check and digest.check.proofread on the rewrite, the rules' story as the bar
    engine     `rewrite_story`: ask, judge, retry once, else fall back (logged)

This package's `__init__` imports nothing, so `digest.config` can import the settings
without importing the composer.
"""
