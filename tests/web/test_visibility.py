"""What a learner sees of hidden cases follows the visibility of the assignment of each
submission's own context, before and after their own due date, on every page and API answer;
one course's setting never changes what another course's submissions, or practice, show."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from tests.web.site_client import sign_in
from tests.web.world import store_graded
from web.access.contexts import NOT_GIVEN
from web.access.visibility import learner_visibility, withheld_exercises
from web.core.models import ApiToken, Course, Exercise, Role, Submission, User, Visibility
from web.services import services
from web.teaching.courses import create_course, enroll, grant_extension, save_assignment

NOW = dt.datetime.now(dt.UTC)
PAST, FUTURE = (NOW - dt.timedelta(days=30)).isoformat(), (NOW + dt.timedelta(days=30)).isoformat()
SOON = (NOW + dt.timedelta(days=1)).isoformat()
HIDDEN_RULE = "sample, row 7: the draws do not follow the target"
REPORT = {"verdict": "WA", "score": {"passed": 1, "total": 2}, "diagnosis": "top-k keeps one token too many",
          "message": "zipf failed", "seed": 5, "cases": [
              {"name": "softmax", "suite": "public", "verdict": "AC", "message": "", "time_ms": 3.0, "checks": []},
              {"name": "zipf", "suite": "hidden", "verdict": "WA", "message": "row 7 of 12", "rule": HIDDEN_RULE, "time_ms": 4.0,
               "checks": [{"kind": "fit", "label": "row 7", "passed": False, "alpha": 1e-9}]}]}


@pytest.fixture
def site(make_site):
    app = make_site(start_workers=False)
    with services(app).sessions() as session:
        teacher = User(name="tia", role=Role.instructor)
        ann = User(name="ann")
        for user in (teacher, ann):
            user.set_password("password123")
        token, secret = ApiToken.issue(ann)
        session.add_all([teacher, ann, token])
        session.flush()
        app.config["ANN"] = {"Authorization": f"Bearer {secret}"}
        app.config["IDS"] = (teacher.id, ann.id)
        session.commit()
    return app


def course(app, before, after, due, *, exercises=(39,), extension=None):
    with services(app).sessions() as session:
        teacher, ann = (session.get(User, user_id) for user_id in app.config["IDS"])
        made = create_course(session, teacher, "C", "UTC")
        enroll(session, made, ann)
        work = save_assignment(session, made, title="W", exercises=list(exercises), opens_at=PAST, due_at=due,
                               visibility_before=before, visibility_after=after)
        if extension:
            grant_extension(session, work, ann, extension, teacher)
        session.commit()
        return made.id


def submission(app, course_id=NOT_GIVEN):
    """Ann's graded submission, made for course ``course_id`` (None: practice; not given: the default)."""
    with services(app).sessions() as session:
        ann = session.get(User, app.config["IDS"][1])
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        context = course_id if course_id in (NOT_GIVEN, None) else session.get(Course, course_id)
        return store_graded(session, ann, exercise, "code\n", REPORT, course=context)


def seen(app, submission_id):
    client = app.test_client()
    sign_in(client, "ann")
    pages = ""
    for url in (f"/submissions/{submission_id}", "/exercises/39", "/exercises/39/submissions", "/profile/", "/"):
        response = client.get(url)
        assert response.status_code == 200, url
        pages += response.get_data(as_text=True)
    api = app.test_client().get(f"/api/v1/submissions/{submission_id}", headers=app.config["ANN"]).json
    return pages, api


def test_no_assignment_shows_the_rule(site):
    submission_id = submission(site)
    pages, api = seen(site, submission_id)
    assert HIDDEN_RULE in pages and api["verdict"] == "WA" and api["cases"][1]["rule"] == HIDDEN_RULE


def test_diagnosis_level_before_the_due_date_hides_the_rule_but_not_the_diagnosis(site):
    course(site, "diagnosis", "rule", FUTURE)
    submission_id = submission(site)
    pages, api = seen(site, submission_id)
    assert HIDDEN_RULE not in pages and HIDDEN_RULE not in str(api)
    assert api["verdict"] == "WA" and api["diagnosis"] == REPORT["diagnosis"] and REPORT["diagnosis"] in pages
    assert api["cases"][1]["verdict"] == "WA"


def test_nothing_level_withholds_the_verdict_everywhere(site):
    course(site, "nothing", "rule", FUTURE)
    submission_id = submission(site)
    pages, api = seen(site, submission_id)
    assert api["withheld"] and api["verdict"] is None and api["score"] is None and api["diagnosis"] is None
    assert [case["suite"] for case in api["cases"]] == ["public"]
    assert [grading["verdict"] for grading in api["gradings"]] == [None]
    assert HIDDEN_RULE not in pages and REPORT["diagnosis"] not in pages and "zipf" not in pages
    assert "1/2" not in pages and 'verdict v-WA' not in pages
    with services(site).sessions() as session:
        assert withheld_exercises(session, site.config["IDS"][1]) != set()


def test_after_the_due_date_the_after_level_applies(site):
    course(site, "nothing", "rule", PAST if False else (NOW - dt.timedelta(days=1)).isoformat())
    pages, api = seen(site, submission(site))
    assert api["verdict"] == "WA" and HIDDEN_RULE in pages


def test_an_extension_keeps_the_before_level_until_the_learners_own_due_date(site):
    course(site, "nothing", "rule", (NOW - dt.timedelta(days=1)).isoformat(), extension=SOON)
    _, api = seen(site, submission(site))
    assert api["withheld"] is True


@pytest.mark.parametrize("extended", [False, True], ids=["assignment-due", "extension-due"])
def test_the_due_date_turns_the_level_at_the_same_moment_everywhere(site, extended):
    """The learner's view (learner_visibility), the lists (withheld_exercises) and what others
    count (withheld_submissions, in SQL) turn from the before level to the after level at the
    effective due date itself: one second before it withholds, the due date and after do not."""
    from web.access.visibility import withheld_submissions

    due = (NOW + dt.timedelta(days=10)).replace(second=0, microsecond=0)
    extension = due + dt.timedelta(days=2)
    course(site, "nothing", "rule", due.isoformat(), extension=extension.isoformat() if extended else None)
    submission_id = submission(site)
    turn = extension if extended else due
    second = dt.timedelta(seconds=1)
    with services(site).sessions() as session:
        row = session.get(Submission, submission_id)
        for now, withheld in ((due - second, True), (turn - second, True), (turn, False), (turn + second, False)):
            expected = Visibility.nothing if withheld else Visibility.rule
            assert learner_visibility(session, row, now) is expected, now
            assert withheld_exercises(session, row.user_id, now) == ({row.exercise_id} if withheld else set()), now
            ids = set(session.scalars(withheld_submissions(now)))
            assert ids == ({submission_id} if withheld else set()), now


def test_each_submission_shows_at_its_own_contexts_level(site):
    """Course B (diagnosis) no longer makes course A's (rule) or practice submissions less revealing."""
    in_a = course(site, "rule", "rule", FUTURE)
    in_b = course(site, "diagnosis", "rule", FUTURE)
    for_a, for_b, practice = submission(site, in_a), submission(site, in_b), submission(site, None)
    with services(site).sessions() as session:
        levels = [learner_visibility(session, session.get(Submission, sid)) for sid in (for_a, for_b, practice)]
    assert levels == [Visibility.rule, Visibility.diagnosis, Visibility.rule]
    _, api_a = seen(site, for_a)
    _, api_b = seen(site, for_b)
    _, api_practice = seen(site, practice)
    assert api_a["cases"][1]["rule"] == HIDDEN_RULE and api_practice["cases"][1]["rule"] == HIDDEN_RULE
    assert HIDDEN_RULE not in str(api_b)


def test_another_course_cannot_withhold_this_courses_verdicts(site):
    """Course B withholds everything; ann's course-A attempt keeps its verdict on every page,
    and the exercise page's list shows each attempt at its own context's level."""
    in_a = course(site, "rule", "rule", FUTURE)
    in_b = course(site, "nothing", "nothing", FUTURE)
    for_a, for_b = submission(site, in_a), submission(site, in_b)
    _, api_a = seen(site, for_a)
    _, api_b = seen(site, for_b)
    assert api_a["withheld"] is False and api_a["verdict"] == "WA"
    assert api_b["withheld"] is True and api_b["verdict"] is None
    client = site.test_client()
    sign_in(client, "ann")
    listing = client.get("/exercises/39/submissions").get_data(as_text=True)
    assert listing.count("verdict v-WA") == 1  # course A's attempt, not course B's


@pytest.mark.parametrize("before, after, due", [("nothing", "nothing", FUTURE), ("diagnosis", "diagnosis", FUTURE),
                                                 ("rule", "nothing", (NOW - dt.timedelta(days=1)).isoformat())],
                         ids=["nothing-before-due", "diagnosis-before-due", "nothing-after-due"])
def test_instructors_always_see_everything(site, before, after, due):
    """Whoever teaches the author (the course's instructor, a site admin) reads the whole report at
    every level: verdict, score, the hidden case's message in full, the seed; pages and API alike."""
    course(site, before, after, due)
    submission_id = submission(site)
    with services(site).sessions() as session:
        root = User(name="root", role=Role.admin)
        root.set_password("password123")
        session.add(root)
        headers = {}
        for user in (root, session.get(User, site.config["IDS"][0])):
            token, secret = ApiToken.issue(user)
            session.add(token)
            headers[user.name] = {"Authorization": f"Bearer {secret}"}
        session.commit()
    for who in ("tia", "root"):
        client = site.test_client()
        assert sign_in(client, who).status_code == 302
        page = client.get(f"/submissions/{submission_id}").get_data(as_text=True)
        for shown in ("row 7 of 12", "seed 5", "1/2", "verdict v-WA", REPORT["diagnosis"]):
            assert shown in page, (who, shown)
        api = site.test_client().get(f"/api/v1/submissions/{submission_id}", headers=headers[who]).json
        assert (api["withheld"], api["verdict"], api["score"], api["seed"]) == (False, "WA", REPORT["score"], 5), who
        assert [case["message"] for case in api["cases"]] == ["", "row 7 of 12"], who
        assert api["cases"][1]["checks"] == REPORT["cases"][1]["checks"], who
        assert [(grading["verdict"], grading["seed"]) for grading in api["gradings"]] == [("WA", 5)], who
