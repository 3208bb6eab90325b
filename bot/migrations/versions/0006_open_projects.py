"""Open projects: repositories a channel added from chat (`/wire subscribe OWNER/REPO`),
one row each, keyed by the repository in lower case.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "open_projects",
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("repo", sa.String(200), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("default_branch", sa.String(200), nullable=False),
        sa.Column("source", sa.String(300), nullable=False),
        sa.Column("topics", sa.JSON(), nullable=False),
        sa.Column("etag", sa.String(200), nullable=True),
        sa.Column("added_by", sa.String(128), nullable=False),
        sa.Column("added_at", TS, nullable=False),
        sa.Column("followed_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_open_projects"),
    )


def downgrade() -> None:
    op.drop_table("open_projects")
