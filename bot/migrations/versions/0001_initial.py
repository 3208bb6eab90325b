"""Initial schema: subscriptions, channel settings, stories, deliveries, posted parts, acks,
reminders.

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "subscriptions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("platform", sa.String(32), nullable=False),
        sa.Column("workspace", sa.String(128), nullable=False),
        sa.Column("channel", sa.String(128), nullable=False),
        sa.Column("repo", sa.String(200), nullable=True),
        sa.Column("topic", sa.String(200), nullable=True),
        sa.Column("excludes", sa.JSON(), nullable=False),
        sa.Column("created_by", sa.String(128), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_subscriptions"),
    )
    op.create_index(
        "uq_subscriptions_target",
        "subscriptions",
        [
            "platform",
            "workspace",
            "channel",
            sa.text("coalesce(repo, '')"),
            sa.text("coalesce(topic, '')"),
        ],
        unique=True,
    )
    op.create_table(
        "channel_settings",
        sa.Column("platform", sa.String(32), nullable=False),
        sa.Column("workspace", sa.String(128), nullable=False),
        sa.Column("channel", sa.String(128), nullable=False),
        sa.Column("schedule", sa.String(200), nullable=True),
        sa.Column("timezone", sa.String(64), nullable=True),
        sa.Column("muted_until", TS, nullable=True),
        sa.Column("last_window_until", TS, nullable=True),
        sa.PrimaryKeyConstraint("platform", "workspace", "channel", name="pk_channel_settings"),
    )
    op.create_table(
        "stories",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("json", sa.Text(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_stories"),
    )
    op.create_table(
        "deliveries",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("story_id", sa.String(64), nullable=False),
        sa.Column("platform", sa.String(32), nullable=False),
        sa.Column("workspace", sa.String(128), nullable=False),
        sa.Column("channel", sa.String(128), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", TS, nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("claimed_by", sa.String(128), nullable=True),
        sa.Column("claimed_until", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("delivered_at", TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["story_id"],
            ["stories.id"],
            name="fk_deliveries_story_id_stories",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_deliveries"),
        sa.UniqueConstraint("story_id", "platform", "channel", name="uq_deliveries_story_id"),
    )
    op.create_index("ix_deliveries_due", "deliveries", ["state", "next_attempt_at"])
    op.create_index("ix_deliveries_lease", "deliveries", ["state", "claimed_until"])
    op.create_table(
        "posted_parts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("delivery_id", sa.Integer(), nullable=False),
        sa.Column("part_index", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(128), nullable=False),
        sa.Column("thread_id", sa.String(128), nullable=True),
        sa.Column("item_id", sa.String(64), nullable=True),
        sa.Column("posted_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["delivery_id"],
            ["deliveries.id"],
            name="fk_posted_parts_delivery_id_deliveries",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_posted_parts"),
        sa.UniqueConstraint("delivery_id", "part_index", name="uq_posted_parts_delivery_id"),
    )
    op.create_index("ix_posted_parts_item", "posted_parts", ["item_id"])
    op.create_table(
        "acks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("item_id", sa.String(64), nullable=False),
        sa.Column("platform", sa.String(32), nullable=False),
        sa.Column("channel", sa.String(128), nullable=False),
        sa.Column("user_id", sa.String(128), nullable=False),
        sa.Column("user_name", sa.String(200), nullable=False),
        sa.Column("acked_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_acks"),
        sa.UniqueConstraint("item_id", "channel", "user_id", name="uq_acks_item_id"),
    )
    op.create_table(
        "reminders",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("item_id", sa.String(64), nullable=False),
        sa.Column("channel", sa.String(128), nullable=False),
        sa.Column("sent_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_reminders"),
        sa.UniqueConstraint("item_id", "channel", name="uq_reminders_item_id"),
    )


def downgrade() -> None:
    for table in (
        "reminders",
        "acks",
        "posted_parts",
        "deliveries",
        "stories",
        "channel_settings",
        "subscriptions",
    ):
        op.drop_table(table)
