"""Keep the ``exercise`` table in step with the exercise folders of the configured packs.

The packs are those of ``PROBJUDGE_EXERCISES`` (default: the repository's ``exercises/``), read by
:func:`judge.exercises.exercise.load_all`, the same list the CLI reads. A course's private pack is synced like
the repository's; its hidden tests and solutions stay on the server.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.exercises.exercise import load_all
from web.core.models import Exercise, utcnow


@dataclass(frozen=True)
class SyncResult:
    added: list[int]
    changed: list[int]
    unchanged: list[int]


def sync_exercises(session: Session) -> SyncResult:
    """Insert new exercises and update those whose content hash changed; commit. Never deletes."""
    added, changed, unchanged = [], [], []
    for spec in load_all():
        digest = spec.content_hash()
        row = session.scalar(select(Exercise).where(Exercise.number == spec.number))
        fields = {
            "slug": spec.slug,
            "title_en": spec.title("en"),
            "title_zh": spec.title("zh"),
            "difficulty": spec.difficulty,
            "tags": list(spec.tags),
            "runs_in": list(spec.runs_in),
        }
        if row is None:
            session.add(Exercise(number=spec.number, content_hash=digest, **fields))
            added.append(spec.number)
        elif row.content_hash != digest or any(getattr(row, k) != v for k, v in fields.items()):
            for key, value in fields.items():
                setattr(row, key, value)
            row.content_hash = digest
            row.synced_at = utcnow()
            changed.append(spec.number)
        else:
            unchanged.append(spec.number)
    session.commit()
    return SyncResult(added, changed, unchanged)
