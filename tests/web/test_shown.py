"""Submission.shown: the current grading, else the newest; found among loaded gradings without a query."""

from __future__ import annotations

from sqlalchemy import event, select

from judge.verdicts import Verdict
from web.core.database import make_engine, session_factory
from web.core.models import Exercise, Grading, Priority, Status, Submission, User
from web.learning.exercises import sync_exercises


def _selects(engine) -> list[str]:
    seen: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
    return seen


def test_shown_is_the_same_with_the_gradings_loaded_first_and_asks_nothing_more(database_url):
    engine = make_engine(database_url)
    sessions = session_factory(engine)
    with sessions() as session:
        sync_exercises(session)
        user = User(name="ann", password_hash="x")
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        done = Submission(user=user, exercise=exercise, code="x")  # a verdict, and a rejudge under way
        done.gradings += [
            Grading(status=Status.done, verdict=Verdict.AC),
            Grading(status=Status.queued, priority=Priority.rejudge),
        ]
        waiting = Submission(user=user, exercise=exercise, code="y")  # no verdict yet
        waiting.gradings.append(Grading(status=Status.running))
        session.add_all([done, waiting])
        session.flush()
        done.current_grading_id = done.gradings[0].id
        session.commit()
        expected = {done.id: done.gradings[0].id, waiting.id: waiting.gradings[0].id}
    for submission_id, grading_id in expected.items():
        with sessions() as session:  # as before: the current grading asked for on its own
            plain = session.get(Submission, submission_id)
            assert plain is not None and plain.shown is not None and plain.shown.id == grading_id
        with sessions() as session:
            loaded = session.get(Submission, submission_id)
            assert loaded is not None
            loaded.gradings  # noqa: B018 - loaded first, as the API does
            seen = _selects(engine)
            assert loaded.shown is not None and loaded.shown.id == grading_id
            assert seen == []
    engine.dispose()
