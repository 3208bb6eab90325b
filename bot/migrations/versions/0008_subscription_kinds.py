"""Subscription kinds: a channel may follow a repository in full ("all"), or only its
releases ("releases") or its security fixes ("security"). The kind is part of what makes a
subscription unique; every existing subscription is "all".

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_TARGET = ["platform", "workspace", "channel", "coalesce(repo, '')", "coalesce(topic, '')"]


def _unique_target(*extra: str) -> None:
    op.create_index(
        "uq_subscriptions_target",
        "subscriptions",
        [c if "(" not in c else sa.text(c) for c in (*_TARGET, *extra)],
        unique=True,
    )


def upgrade() -> None:
    with op.batch_alter_table("subscriptions") as batch:
        batch.add_column(
            sa.Column("kind", sa.String(16), nullable=False, server_default="all"),
        )
    op.drop_index("uq_subscriptions_target", table_name="subscriptions")
    _unique_target("kind")


def downgrade() -> None:
    op.execute("DELETE FROM subscriptions WHERE kind <> 'all'")
    op.drop_index("uq_subscriptions_target", table_name="subscriptions")
    with op.batch_alter_table("subscriptions") as batch:
        batch.drop_column("kind")
    _unique_target()
