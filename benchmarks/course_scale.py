#!/usr/bin/env python3
"""How fast the instructor's pages answer for a big class: 1 000 learners x 20 exercises x 10 attempts.

    .venv/bin/python benchmarks/course_scale.py [--learners 1000] [--exercises 20] [--attempts 10]
                                                [--repeats 5] [--quick] [--keep PATH] [--json PATH]

Builds a fresh SQLite site (the migrations, as ``make run`` does) and fills it straight through
SQLAlchemy Core bulk inserts: ``--exercises`` extra exercise rows numbered from 900, one course
whose two assignments cover them (the first half due a week after opening with 10 % off per day
late, the second half a week later with late work flagged), ``--learners`` learners, and
``--attempts`` attempts per learner and exercise, each with a finished grading (verdict, score,
diagnosis, first failing case), spread over the assignment's week and three days after it (so
some are late). Then, signed in as the course's instructor through Flask's test client, it
times each page (median of ``--repeats`` requests, after one warm-up): the gradebook sorted by
name and by total, its JSON and CSV, and the submission lists and analytics when the site has
them (a page that does not answer 200 is reported "not available").

``--quick`` is 100 learners. The target: well under a second per page.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sqlalchemy import insert, select  # noqa: E402

from benchmarks._common import console, fmt_ms, median, write_json  # noqa: E402
from judge.verdicts import Verdict  # noqa: E402
from web.app import create_app  # noqa: E402
from web.core.config import Settings  # noqa: E402
from web.core.models import (  # noqa: E402
    ApiToken,
    Assignment,
    AssignmentExercise,
    CourseRole,
    Exercise,
    Grading,
    LatePolicy,
    Membership,
    Role,
    Status,
    Submission,
    User,
)
from web.services import services  # noqa: E402
from web.teaching.courses import create_course  # noqa: E402

FIRST_NUMBER = 900
PASSWORD = "benchmark-password"
OPENS = dt.datetime(2027, 3, 1, tzinfo=dt.UTC)
WEEK = dt.timedelta(days=7)
MISTAKES = [
    ("temperature applied after softmax", "temperature"),
    ("top-p keeps the token that crosses p out", "nucleus-edge"),
    ("top-k ties broken by index", "ties"),
    ("min-p relative to the wrong maximum", "min-p"),
    ("probabilities not renormalized", "sums"),
]
CHUNK = 20_000


def build(session, learners: int, exercises: int, attempts: int, seed: int = 7) -> dict:
    """Fill the site; returns the course id and the instructor's name."""
    rng = random.Random(seed)
    teacher = User(name="bench-teacher", role=Role.instructor)
    teacher.set_password(PASSWORD)
    session.add(teacher)
    session.flush()
    course = create_course(session, teacher, "Sampling at scale", "Europe/Berlin")
    session.flush()
    session.execute(
        insert(Exercise),
        [
            {
                "number": FIRST_NUMBER + index,
                "slug": f"bench-{index}",
                "title_en": f"Benchmark exercise {index}",
                "title_zh": f"基准练习 {index}",
                "difficulty": "medium",
                "tags": [],
                "runs_in": ["server"],
                "content_hash": "0" * 64,
            }
            for index in range(exercises)
        ],
    )
    exercise_ids = list(
        session.scalars(select(Exercise.id).where(Exercise.number >= FIRST_NUMBER).order_by(Exercise.number))
    )
    halves = [exercise_ids[: (exercises + 1) // 2], exercise_ids[(exercises + 1) // 2 :]]
    windows = []
    for index, (chosen, policy, penalty) in enumerate(
        zip(halves, (LatePolicy.penalty, LatePolicy.flagged), (0.1, 0.0), strict=True)
    ):
        opens, due = OPENS + index * WEEK, OPENS + (index + 1) * WEEK
        assignment = Assignment(
            course_id=course.id,
            title=f"Week {index + 1}",
            opens_at=opens,
            due_at=due,
            late_policy=policy,
            penalty_per_day=penalty,
        )
        session.add(assignment)
        session.flush()
        for position, exercise_id in enumerate(chosen):
            session.add(
                AssignmentExercise(
                    assignment_id=assignment.id, exercise_id=exercise_id, course_id=course.id, position=position
                )
            )
            windows.append((exercise_id, opens, due))
    session.flush()
    session.execute(
        insert(User),
        [
            {
                "name": f"learner{index:05d}",
                "name_key": f"learner{index:05d}",
                "password_hash": "x",
                "role": Role.learner,
            }
            for index in range(learners)
        ],
    )
    user_ids = list(session.scalars(select(User.id).where(User.name.like("learner%")).order_by(User.id)))
    session.execute(
        insert(Membership),
        [{"course_id": course.id, "user_id": user_id, "role": CourseRole.learner} for user_id in user_ids],
    )
    next_id = (session.scalar(select(Submission.id).order_by(Submission.id.desc()).limit(1)) or 0) + 1
    submissions, gradings = [], []
    span = (WEEK + dt.timedelta(days=3)).total_seconds()
    for user_id in user_ids:
        for exercise_id, opens, _ in windows:
            for _ in range(attempts):
                at = opens + dt.timedelta(seconds=rng.uniform(0, span))
                roll = rng.random()
                verdict = (
                    Verdict.AC if roll < 0.3 else Verdict.WA if roll < 0.8 else rng.choice([Verdict.TLE, Verdict.RE])
                )
                passed = 10 if verdict is Verdict.AC else rng.randint(0, 9)
                mistake = None if verdict is Verdict.AC else rng.choice(MISTAKES)
                submissions.append(
                    {
                        "id": next_id,
                        "user_id": user_id,
                        "exercise_id": exercise_id,
                        "code": "def sample(logits):\n    ...\n",
                        "created_at": at,
                        "current_grading_id": next_id,
                    }
                )
                gradings.append(
                    {
                        "id": next_id,
                        "submission_id": next_id,
                        "status": Status.done,
                        "priority": 0,
                        "seed": rng.getrandbits(62),
                        "verdict": verdict,
                        "score_passed": passed,
                        "score_total": 10,
                        "diagnosis": mistake[0] if mistake else None,
                        "diagnosis_zh": mistake[0] if mistake else None,
                        "failed_case": mistake[1] if mistake else None,
                        "attempts": 1,
                        "created_at": at,
                        "started_at": at,
                        "finished_at": at + dt.timedelta(seconds=2),
                    }
                )
                next_id += 1
    for rows, table in ((submissions, Submission), (gradings, Grading)):
        for start in range(0, len(rows), CHUNK):
            session.execute(insert(table), rows[start : start + CHUNK])
    session.commit()
    return {"course": course.id, "teacher": teacher.name, "submissions": len(submissions)}


def sign_in(client, name: str) -> None:
    page = client.get("/auth/sign-in").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)
    assert token, "no CSRF token on the sign-in page"
    response = client.post("/auth/sign-in", data={"csrf_token": token.group(1), "name": name, "password": PASSWORD})
    assert response.status_code == 302, response.status_code


def api_headers(app, name: str) -> dict[str, str]:
    with services(app).sessions() as session:
        user = session.scalar(select(User).where(User.name == name))
        row, secret = ApiToken.issue(user)
        session.add(row)
        session.commit()
    return {"Authorization": f"Bearer {secret}"}


def time_url(client, url: str, repeats: int, headers: dict | None = None) -> tuple[int, list[float], int]:
    """(status, milliseconds per request, bytes) for ``repeats`` GETs after one warm-up."""
    first = client.get(url, headers=headers)
    if first.status_code != 200:
        return first.status_code, [], 0
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        response = client.get(url, headers=headers)
        samples.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return 200, samples, len(first.get_data())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=1000)
    parser.add_argument("--exercises", type=int, default=20)
    parser.add_argument("--attempts", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="100 learners")
    parser.add_argument("--keep", help="build the database at this path and keep it (default: a temporary folder)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.quick:
        args.learners = min(args.learners, 100)
    out = console()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(args.keep) if args.keep else Path(folder) / "course_scale.db"
        if path.exists():
            path.unlink()
        settings = Settings(
            database_url=f"sqlite:///{path}", secret_key="benchmark", workers=0, sandbox="local", rate_limits=False
        )
        app = create_app(settings, start_workers=False)
        started = time.perf_counter()
        with services(app).sessions() as session:
            built = build(session, args.learners, args.exercises, args.attempts)
        build_s = time.perf_counter() - started
        course = built["course"]
        out.print(
            f"[bold]course_scale[/]: {args.learners} learners x {args.exercises} exercises x {args.attempts} attempts "
            f"= {built['submissions']:,} submissions and gradings, built in {build_s:.1f} s ({path.name}, SQLite)"
        )
        client = app.test_client()
        sign_in(client, built["teacher"])
        headers = api_headers(app, built["teacher"])
        first = FIRST_NUMBER
        pages = [
            ("gradebook, page 1 by name", f"/courses/{course}/gradebook", None),
            ("gradebook, page 1 by total", f"/courses/{course}/gradebook?sort=total&order=desc", None),
            ("gradebook, by one exercise", f"/courses/{course}/gradebook?sort=exercise:{first}&order=desc", None),
            ("gradebook, late filter", f"/courses/{course}/gradebook?filter=late&page=3", None),
            ("gradebook cell page", None, None),
            ("gradebook JSON (API)", f"/api/v1/courses/{course}/gradebook", headers),
            ("gradebook CSV", f"/courses/{course}/gradebook.csv", None),
            ("gradebook CSV (API)", f"/api/v1/courses/{course}/gradebook.csv", headers),
            ("submissions list", f"/courses/{course}/submissions", None),
            ("submissions (API)", f"/api/v1/courses/{course}/submissions", headers),
            (f"analytics, exercise {first}", f"/courses/{course}/analytics?exercise={first}", None),
            (f"analytics (API), exercise {first}", f"/api/v1/courses/{course}/analytics?exercise={first}", headers),
            ("analytics, course overview", f"/courses/{course}/analytics", None),
            ("analytics, whole course", f"/courses/{course}/analytics/course", None),
        ]
        with services(app).sessions() as session:
            someone = session.scalar(select(User.id).where(User.name == "learner00000"))
        from rich.table import Table

        table = Table(title=f"Median of {args.repeats} requests (ms), signed in as the instructor")
        for column in ("page", "median ms", "min ms", "max ms", "bytes"):
            table.add_column(column, justify="left" if column == "page" else "right")
        figures: dict[str, dict] = {}
        for name, url, page_headers in pages:
            url = url or f"/courses/{course}/gradebook/{someone}/{first}"
            status, samples, size = time_url(client, url, args.repeats, page_headers)
            if status != 200:
                table.add_row(name, f"not available ({status})", "", "", "")
                figures[name] = {"url": url, "status": status}
                continue
            table.add_row(name, fmt_ms(median(samples)), fmt_ms(min(samples)), fmt_ms(max(samples)), f"{size:,}")
            figures[name] = {"url": url, "median_ms": median(samples), "samples_ms": samples, "bytes": size}
        out.print(table)
        services(app).engine.dispose()
    if args.json:
        write_json(
            args.json,
            {
                "learners": args.learners,
                "exercises": args.exercises,
                "attempts": args.attempts,
                "build_s": build_s,
                "pages": figures,
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
