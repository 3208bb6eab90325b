"""Index posted parts by message id: a reaction names only the message it was added to.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_posted_parts_message", "posted_parts", ["message_id"])


def downgrade() -> None:
    op.drop_index("ix_posted_parts_message", table_name="posted_parts")
