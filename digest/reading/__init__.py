"""Reading one change: what its title says, what it touches, who it reaches.

The first step of the pipeline, before anything is ranked or written. A PR title is split
into its conventions (`titles`, `title_tags`); `digest.english` turns it into the clause an
editor would write. Its body gives the reason it states (`why`, `bodies`); its paths and
words give its topics (`topics`), its signals (`signals`), its audience (`audience`,
`trivia`) and whether it is a release (`releases`); reverts are linked to what they undo
(`retell`); `classify` puts these together into one `Event` (`event`) per change.

Nothing here imports `compose`, `check`, `render` or the ranking: reading comes first.
"""
