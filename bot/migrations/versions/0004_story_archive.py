"""The story archive's listing: each story's topic, whether it is listed, its repositories.

Filtering 10,000 stories by reading their JSON takes about 55 ms on SQLite; these columns
and their indexes make a page of the archive one indexed query. Existing stories are
filled in from their JSON.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _listed(story: dict[str, Any]) -> bool:
    """Shown in the archive: it has news, and its checks passed (or never ran)."""
    checks = story.get("checks") or {}
    return bool(story.get("references")) and not checks.get("problems")


def upgrade() -> None:
    with op.batch_alter_table("stories") as batch:
        batch.add_column(sa.Column("topic", sa.String(200), nullable=True))
        batch.add_column(
            sa.Column("listed", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_index("ix_stories_listed", "stories", ["listed", "created_at"])
    op.create_table(
        "story_repos",
        sa.Column("story_id", sa.String(64), nullable=False),
        sa.Column("repo", sa.String(200), nullable=False),
        sa.ForeignKeyConstraint(
            ["story_id"],
            ["stories.id"],
            name="fk_story_repos_story_id_stories",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("story_id", "repo", name="pk_story_repos"),
    )
    op.create_index("ix_story_repos_repo", "story_repos", ["repo"])
    stories = sa.table(
        "stories",
        sa.column("id", sa.String),
        sa.column("json", sa.Text),
        sa.column("topic", sa.String),
        sa.column("listed", sa.Boolean),
    )
    repos = sa.table("story_repos", sa.column("story_id", sa.String), sa.column("repo", sa.String))
    conn = op.get_bind()
    for story_id, raw in conn.execute(sa.select(stories.c.id, stories.c.json)).all():
        story = json.loads(raw)
        conn.execute(
            stories.update()
            .where(stories.c.id == story_id)
            .values(topic=story.get("topic"), listed=_listed(story))
        )
        rows = [{"story_id": story_id, "repo": repo} for repo in dict.fromkeys(story["repos"])]
        if rows:
            conn.execute(repos.insert(), rows)


def downgrade() -> None:
    op.drop_index("ix_story_repos_repo", table_name="story_repos")
    op.drop_table("story_repos")
    op.drop_index("ix_stories_listed", table_name="stories")
    with op.batch_alter_table("stories") as batch:
        batch.drop_column("listed")
        batch.drop_column("topic")
