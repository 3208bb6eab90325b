"""Withdrawn repositories: open projects GitHub no longer calls public, whose archived
stories only the holder of the web token may read.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "withdrawn_repos",
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("repo", sa.String(200), nullable=False),
        sa.Column("withdrawn_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_withdrawn_repos"),
    )


def downgrade() -> None:
    op.drop_table("withdrawn_repos")
