"""The Wire's digest engine: repository activity in, a cited news story out.

Pure library code: no chat SDK, no database. See `digest.pipeline.compose_window`.
"""
