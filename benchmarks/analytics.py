#!/usr/bin/env python3
"""How long the course analytics take on a big class: 1 000 learners x 20 exercises x 10 attempts.

    .venv/bin/python benchmarks/analytics.py [--learners 1000] [--exercises 20] [--attempts 10]
                                             [--repeats 3] [--database sqlite:///PATH] [--covering-index]

Builds the class in a fresh SQLite file (bulk inserts; the exercises are made up, not synced),
then times, best of ``--repeats``, what the analytics pages run: the course overview, the whole
course's figures, one exercise's figures, and the learners behind one diagnosis. Each (learner,
exercise) gets its one AC at a random attempt, or none (3 in 13); every other attempt is a WA
with one of 12 diagnoses and 6 failing cases, spread over 60 days (course zone Europe/Berlin).
``--covering-index`` first adds an index on submission (exercise_id, user_id, created_at,
current_grading_id), not in the migrations, to measure what it would change.
The target is well under a second per page.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import insert, select, text  # noqa: E402  (after the path is set)

from web.core.database import make_engine, session_factory, upgrade  # noqa: E402
from web.core.models import (  # noqa: E402
    Assignment,
    AssignmentExercise,
    Course,
    CourseRole,
    Exercise,
    Grading,
    Membership,
    Status,
    Submission,
    User,
)
from web.teaching.analytics import analytics, learners_with_diagnosis, overview  # noqa: E402

ZONE = "Europe/Berlin"
START = dt.datetime(2027, 3, 1, tzinfo=dt.UTC)


def build(session, learners: int, exercises: int, attempts: int) -> tuple[int, list[int]]:
    rng = random.Random(7)
    session.add(Course(id=1, name="Big", join_code="BIGCLASS", time_zone=ZONE))
    session.add(Assignment(id=1, course_id=1, title="All", opens_at=START, due_at=START + dt.timedelta(days=60)))
    session.execute(
        insert(Exercise),
        [
            dict(
                id=1000 + n,
                number=500 + n,
                slug=f"bench-{n}",
                title_en=f"Bench {n}",
                title_zh=f"基准 {n}",
                difficulty="easy",
                tags=[],
                runs_in=[],
                content_hash="x",
            )
            for n in range(exercises)
        ],
    )
    exercise_ids = [1000 + n for n in range(exercises)]
    session.execute(
        insert(AssignmentExercise),
        [dict(assignment_id=1, exercise_id=e, course_id=1, position=i) for i, e in enumerate(exercise_ids)],
    )
    session.execute(
        insert(User),
        [
            dict(
                id=10 + u, name=f"learner{u}", name_key=f"learner{u}", password_hash="x", role="learner", language="en"
            )
            for u in range(learners)
        ],
    )
    session.execute(
        insert(Membership), [dict(course_id=1, user_id=10 + u, role=CourseRole.learner) for u in range(learners)]
    )
    submissions, gradings = [], []
    next_id = 1
    for u in range(learners):
        for e in exercise_ids:
            solved_at = rng.randint(1, attempts + 3)  # past `attempts`: never solved
            for k in range(1, attempts + 1):
                at = START + dt.timedelta(minutes=rng.randint(0, 60 * 24 * 60))
                ac = k == solved_at
                diagnosis = None if ac else f"mistake {rng.randint(1, 12)}"
                submissions.append(
                    dict(id=next_id, user_id=10 + u, exercise_id=e, code="x", created_at=at, current_grading_id=next_id)
                )
                gradings.append(
                    dict(
                        id=next_id,
                        submission_id=next_id,
                        status=Status.done,
                        verdict="AC" if ac else "WA",
                        score_passed=10 if ac else 3,
                        score_total=10,
                        diagnosis=diagnosis,
                        diagnosis_zh=diagnosis and f"错误 {diagnosis}",
                        failed_case=None if ac else f"case {rng.randint(1, 6)}",
                        created_at=at,
                    )
                )
                next_id += 1
    for chunk in range(0, len(submissions), 20_000):
        session.execute(insert(Submission), submissions[chunk : chunk + 20_000])
        session.execute(insert(Grading), gradings[chunk : chunk + 20_000])
    session.commit()
    return 1, exercise_ids


def best_of(repeats: int, work) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=1000)
    parser.add_argument("--exercises", type=int, default=20)
    parser.add_argument("--attempts", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--database", default=None, help="an empty database (default: a temporary SQLite file)")
    parser.add_argument("--covering-index", action="store_true", help="add the index the docstring names first")
    options = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="probjudge-analytics-")
    url = options.database or f"sqlite:///{folder}/bench.db"
    upgrade(url)
    engine = make_engine(url)
    with session_factory(engine)() as session:
        started = time.perf_counter()
        course_id, exercise_ids = build(session, options.learners, options.exercises, options.attempts)
        count = session.scalar(select(Submission.id).order_by(Submission.id.desc()).limit(1))
        print(f"built {count} attempts in {time.perf_counter() - started:.1f} s ({url})")
        if options.covering_index:
            session.execute(
                text(
                    "CREATE INDEX ix_bench_submission_cover "
                    "ON submission (exercise_id, user_id, created_at, current_grading_id)"
                )
            )
            session.execute(text("ANALYZE"))
            session.commit()
        timings = {
            "overview (per exercise)": lambda: overview(session, course_id),
            "whole course figures": lambda: analytics(session, course_id, ZONE),
            "one exercise's figures": lambda: analytics(session, course_id, ZONE, exercise_ids[0]),
            "learners behind one diagnosis": lambda: learners_with_diagnosis(session, course_id, "mistake 3"),
        }
        for name, work in timings.items():
            print(f"{name:32s} {best_of(options.repeats, work) * 1000:8.0f} ms")
    engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
