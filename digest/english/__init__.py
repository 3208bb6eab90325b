"""English for news prose, knowing nothing of changes or repositories.

`clauses` turns a title into the verb phrase of a sentence, with `shapes` (what a title's
words are), `nouns` and `faults` (noun phrases and statements of a fault), `articles`
(a/an/the), `words` (every closed word class, once) and `lexicon` (lemminflect's word
lists, loaded fast). `numbers` counts and lists, `case` makes headline case, and
`similarity` compares titles.
"""
