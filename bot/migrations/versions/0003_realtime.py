"""Real-time bulletins: GitHub webhook deliveries, changes already handled, bulletins sent,
and each channel's bulletin switch.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "webhook_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("delivery_id", sa.String(100), nullable=False),
        sa.Column("event", sa.String(64), nullable=False),
        sa.Column("repo", sa.String(200), nullable=True),
        sa.Column("hint", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", TS, nullable=False),
        sa.Column("claimed_until", TS, nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("received_at", TS, nullable=False),
        sa.Column("processed_at", TS, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_webhook_events"),
        sa.UniqueConstraint("delivery_id", name="uq_webhook_events_delivery_id"),
    )
    op.create_index("ix_webhook_events_due", "webhook_events", ["state", "next_attempt_at"])
    op.create_index("ix_webhook_events_repo", "webhook_events", ["repo", "received_at"])
    op.create_table(
        "realtime_changes",
        sa.Column("repo", sa.String(200), nullable=False),
        sa.Column("sha", sa.String(64), nullable=False),
        sa.Column("via", sa.String(16), nullable=False),
        sa.Column("seen_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("repo", "sha", name="pk_realtime_changes"),
    )
    op.create_table(
        "bulletins",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("story_id", sa.String(64), nullable=False),
        sa.Column("item_id", sa.String(64), nullable=False),
        sa.Column("platform", sa.String(32), nullable=False),
        sa.Column("workspace", sa.String(128), nullable=False),
        sa.Column("channel", sa.String(128), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["story_id"], ["stories.id"], name="fk_bulletins_story_id_stories", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_bulletins"),
        sa.UniqueConstraint("item_id", "platform", "channel", name="uq_bulletins_item_id"),
    )
    op.create_table(
        "channel_bulletins",
        sa.Column("platform", sa.String(32), nullable=False),
        sa.Column("workspace", sa.String(128), nullable=False),
        sa.Column("channel", sa.String(128), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("platform", "workspace", "channel", name="pk_channel_bulletins"),
    )


def downgrade() -> None:
    for table in ("channel_bulletins", "bulletins", "realtime_changes", "webhook_events"):
        op.drop_table(table)
