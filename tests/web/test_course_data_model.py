"""Instructors see the work done for their course, nothing else (issue 31, the course-data model).

The attack: ``teach_b`` rosters ann (a learner of course A) into course B, which assigns the same
exercise 39. Ann's work for course A must stay course A's: teach_b cannot read its code, seed,
hidden messages or results.json, rejudge it, withhold it, or see it in B's gradebook, analytics,
exports or submission list. Ann's work for course B is teach_b's to see (the positive control),
and a practice submission is seen by its author and admins only.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from tests.web.site_client import csrf_token
from tests.web.world import attempt, build_world, exercise, moment, store_graded
from web.core.models import Assignment, Course, Grading, Status, Submission, User, Visibility
from web.services import services
from web.teaching.counting import cells
from web.teaching.courses import enroll

HIDDEN_DETAIL = "row 7 of 12: the secret hidden input"
SEED = 4242424242
REPORT = {"verdict": "WA", "score": {"passed": 1, "total": 2}, "seed": SEED, "diagnosis": "a named mistake",
          "cases": [{"name": "softmax", "suite": "public", "verdict": "AC", "message": "", "time_ms": 1.0,
                     "checks": []},
                    {"name": "zipf", "suite": "hidden", "verdict": "WA", "message": HIDDEN_DETAIL, "time_ms": 1.0,
                     "rule": "a rule", "checks": []}]}


@pytest.fixture
def rostered(make_site):
    """The class world, then: ann rostered into course B too; her work in each context."""
    world = build_world(make_site(start_workers=False))
    with services(world.app).sessions() as session:
        ann = session.scalar(select(User).where(User.name == "ann"))
        course_a, course_b = session.get(Course, world.course_id), session.get(Course, world.other_course_id)
        thirty_nine = exercise(session, 39)
        enroll(session, course_b, ann)
        session.flush()
        world.attempts["ann_39_in_b"] = attempt(session, ann, thirty_nine, "2027-03-04 10:00", "WA", passed=3,
                                                course=course_b).id
        world.attempts["ann_practice"] = attempt(session, ann, thirty_nine, "2027-03-04 11:00", "WA", course=None).id
        session.commit()
        world.attempts["ann_39_secret"] = store_graded(session, ann, thirty_nine, "secret = 'course A'\n", REPORT,
                                                       course=course_a, seed=SEED)
        # made while both assignments are open, so that either course would count it
        session.get(Submission, world.attempts["ann_39_secret"]).created_at = moment("2027-03-05 10:00")
        session.commit()
    return world


def _bodies(world, role: str, submission_id: int, other_id: int) -> dict[str, tuple[int, str]]:
    """Every way to read a submission, as ``role``: url → (status, body)."""
    client, headers = world.client(role), world.headers(role)
    found = {}
    for url in (f"/submissions/{submission_id}", f"/submissions/{submission_id}/result",
                f"/submissions/{other_id}/diff/{submission_id}"):
        response = client.get(url)
        found[url] = (response.status_code, response.get_data(as_text=True))
    for url in (f"/api/v1/submissions/{submission_id}", f"/api/v1/submissions/{submission_id}/results.json"):
        response = world.app.test_client().get(url, headers=headers)
        found[url] = (response.status_code, response.get_data(as_text=True))
    return found


def test_another_courses_instructor_cannot_read_a_course_a_submission(rostered):
    """Code, seed, hidden messages and results.json of ann's course-A work: 404 for teach_b."""
    secret = rostered.attempts["ann_39_secret"]
    for url, (status, body) in _bodies(rostered, "other_instructor", secret, rostered.attempts["ann_39_wa"]).items():
        assert status == 404, url
        assert HIDDEN_DETAIL not in body and str(SEED) not in body and "course A" not in body, url


def test_the_courses_own_instructor_and_the_admin_read_it_whole(rostered):
    secret = rostered.attempts["ann_39_secret"]
    for role in ("instructor", "admin"):
        api = rostered.app.test_client().get(f"/api/v1/submissions/{secret}", headers=rostered.headers(role)).json
        assert api["seed"] == SEED and api["cases"][1]["message"] == HIDDEN_DETAIL, role
        assert api["course_id"] == rostered.course_id and api["course"] == "Sampling 101"


def test_another_courses_instructor_sees_the_work_done_for_their_course(rostered):
    """The positive control: ann's course-B attempt is teach_b's to read in full, not teach_a's."""
    in_b = rostered.attempts["ann_39_in_b"]
    response = rostered.app.test_client().get(f"/api/v1/submissions/{in_b}",
                                              headers=rostered.headers("other_instructor"))
    assert response.status_code == 200 and response.json["seed"] == 1234
    assert response.json["course_id"] == rostered.other_course_id
    assert rostered.client("other_instructor").get(f"/submissions/{in_b}").status_code == 200
    for url, (status, _) in _bodies(rostered, "instructor", in_b, rostered.attempts["ann_39_wa"]).items():
        assert status == 404, url


def test_a_diff_shows_nothing_of_an_attempt_made_for_a_course_one_does_not_teach(rostered):
    """A diff pairs two of ann's attempts at 39; either side made for another course (or for
    practice) makes it a 404 for one who teaches only one of them, whichever side it is on."""
    a_side, b_side = rostered.attempts["ann_39_secret"], rostered.attempts["ann_39_in_b"]
    practice = rostered.attempts["ann_practice"]
    for role, other in (("instructor", b_side), ("instructor", practice), ("other_instructor", a_side)):
        mine = a_side if role == "instructor" else b_side
        client = rostered.client(role)
        for old, new in ((mine, other), (other, mine)):
            response = client.get(f"/submissions/{old}/diff/{new}")
            assert response.status_code == 404, (role, old, new, response.status_code)
            assert "secret = " not in response.get_data(as_text=True), (role, old, new)
    # The positive controls: both sides one's own to see.
    assert rostered.client("instructor").get(
        f"/submissions/{rostered.attempts['ann_39_wa']}/diff/{a_side}").status_code == 200
    for role in ("learner", "admin"):
        assert rostered.client(role).get(f"/submissions/{b_side}/diff/{a_side}").status_code == 200, role


def test_a_practice_submission_is_seen_by_its_author_and_admins_only(rostered):
    practice = rostered.attempts["ann_practice"]
    for role, expected in (("instructor", 404), ("other_instructor", 404), ("learner", 200), ("admin", 200)):
        response = rostered.app.test_client().get(f"/api/v1/submissions/{practice}", headers=rostered.headers(role))
        assert response.status_code == expected, role
    author = rostered.app.test_client().get(f"/api/v1/submissions/{practice}", headers=rostered.headers("learner"))
    assert author.json["course_id"] is None and author.json["course"] is None


def _gradings(world, submission_id: int) -> list[int]:
    with services(world.app).sessions() as session:
        return [grading.id for grading in session.get(Submission, submission_id).gradings]


def test_another_courses_instructor_cannot_rejudge_a_course_a_submission(rostered):
    secret = rostered.attempts["ann_39_secret"]
    before = _gradings(rostered, secret)
    client = rostered.client("other_instructor")
    page = client.post(f"/submissions/{secret}/rejudge", data={"csrf_token": csrf_token(client, "/profile/")})
    api = rostered.app.test_client().post(f"/api/v1/submissions/{secret}/rejudge",
                                          headers=rostered.headers("other_instructor"))
    assert (page.status_code, api.status_code) == (404, 404)
    assert _gradings(rostered, secret) == before
    with services(rostered.app).sessions() as session:
        assert session.scalar(select(Grading.id).where(Grading.status == Status.queued)) is None


def _finish_queued_as_accepted(world) -> None:
    """What the workers would do, done by hand: every queued grading ends AC and becomes current."""
    with services(world.app).sessions() as session:
        for grading in session.scalars(select(Grading).where(Grading.status == Status.queued)):
            grading.status, grading.verdict, grading.score_passed, grading.score_total = Status.done, "AC", 10, 10
            session.flush()
            grading.submission.current_grading_id = grading.id
        session.commit()


def test_a_rejudge_in_course_b_never_changes_what_counts_in_course_a(rostered):
    """Same learner, same exercise in A and B, attempts in each: B's rejudge rebuilds B's only."""
    with services(rostered.app).sessions() as session:
        thirty_nine = exercise(session, 39)
        ann = session.scalar(select(User).where(User.name == "ann"))
        a_cell = cells(session, rostered.course_id)[(ann.id, thirty_nine.id)]
        a_current = dict(session.execute(select(Submission.id, Submission.current_grading_id)
                                         .where(Submission.course_id == rostered.course_id)).all())
    response = rostered.app.test_client().post(f"/api/v1/courses/{rostered.other_course_id}/rejudge",
                                               json={"exercise": 39}, headers=rostered.headers("other_instructor"))
    assert response.status_code == 202, response.json
    with services(rostered.app).sessions() as session:
        queued = set(session.scalars(select(Grading.submission_id).where(Grading.status == Status.queued)))
    assert queued == {rostered.attempts["ann_39_in_b"], rostered.attempts["cleo_39"]}
    _finish_queued_as_accepted(rostered)
    with services(rostered.app).sessions() as session:
        assert cells(session, rostered.course_id)[(ann.id, thirty_nine.id)] == a_cell
        assert dict(session.execute(select(Submission.id, Submission.current_grading_id)
                                    .where(Submission.course_id == rostered.course_id)).all()) == a_current
        assert cells(session, rostered.other_course_id)[(ann.id, thirty_nine.id)].score == 1.0


def test_another_course_cannot_withhold_course_a_verdicts(rostered):
    """teach_b sets course B's visibility to nothing: ann's course-A view is unchanged."""
    secret = rostered.attempts["ann_39_secret"]
    ann = rostered.app.test_client()

    def seen() -> dict:
        return ann.get(f"/api/v1/submissions/{secret}", headers=rostered.headers("learner")).json

    def course_a_page() -> str:
        page = rostered.client("learner").get(f"/courses/{rostered.course_id}").get_data(as_text=True)
        return re.sub(r'(name="csrf_token"[^>]*?) value="[^"]*"', r"\1", page)  # CSRF tokens differ per request

    before, page_before = seen(), course_a_page()
    with services(rostered.app).sessions() as session:
        work = session.scalar(select(Assignment).where(Assignment.course_id == rostered.other_course_id))
        work.visibility_before = work.visibility_after = Visibility.nothing
        session.commit()
    after = seen()
    assert after == before and after["withheld"] is False and after["verdict"] == "WA"
    # Course A's page counts course A's work at course A's level: B's setting withholds none of it.
    assert course_a_page() == page_before and "withheld" not in page_before
    in_b = ann.get(f"/api/v1/submissions/{rostered.attempts['ann_39_in_b']}", headers=rostered.headers("learner"))
    assert in_b.json["withheld"] is True  # course B's own work follows course B's setting


def _get(world, url: str):
    response = world.app.test_client().get(url, headers=world.headers("other_instructor"))
    assert response.status_code == 200, (url, response.get_data(as_text=True)[:300])
    return response


def test_course_b_lists_and_counts_none_of_ann_s_course_a_work(rostered):
    """B's submission list, gradebook (JSON and CSV export) and analytics: ann's B work only."""
    course_b, in_b = rostered.other_course_id, rostered.attempts["ann_39_in_b"]
    listed = {row["id"] for row in _get(rostered, f"/api/v1/courses/{course_b}/submissions").json["submissions"]}
    assert listed == {in_b, rostered.attempts["cleo_39"]}
    book = _get(rostered, f"/api/v1/courses/{course_b}/gradebook").json
    ann_row = next(row for row in book["learners"] if row["user"] == "ann")
    assert ann_row["exercises"]["39"]["attempts"] == 1 and ann_row["exercises"]["39"]["submission"] == in_b
    csv = _get(rostered, f"/api/v1/courses/{course_b}/gradebook.csv").get_data(as_text=True)
    assert str(rostered.attempts["ann_39_secret"]) not in csv
    overview = _get(rostered, f"/api/v1/courses/{course_b}/analytics").json["exercises"]
    assert [(row["exercise"], row["attempts"]) for row in overview] == [(39, 2)]
    page = rostered.client("other_instructor").get(f"/courses/{course_b}/submissions").get_data(as_text=True)
    assert f"/submissions/{rostered.attempts['ann_39_secret']}" not in page and f"/submissions/{in_b}" in page


def test_course_a_no_longer_counts_ann_s_course_b_work(rostered):
    with services(rostered.app).sessions() as session:
        ann = session.scalar(select(User).where(User.name == "ann"))
        cell = cells(session, rostered.course_id)[(ann.id, exercise(session, 39).id)]
    assert cell.attempts == 3  # ann_39_wa, ann_39_ac, ann_39_secret: not her B or practice attempts


def _submit(world, role: str, body: dict):
    return world.app.test_client().post("/api/v1/submissions", json={"exercise": 39, "code": "x = 1\n", **body},
                                        headers=world.headers(role))


def _context_of(world, submission_id: int) -> int | None:
    with services(world.app).sessions() as session:
        return session.get(Submission, submission_id).course_id


def test_a_submission_is_made_for_the_course_named_or_the_default(rostered):
    in_b = _submit(rostered, "learner", {"course": rostered.other_course_id})
    assert in_b.status_code == 202 and in_b.json["course_id"] == rostered.other_course_id
    assert _context_of(rostered, in_b.json["id"]) == rostered.other_course_id
    practice = _submit(rostered, "learner", {"course": None})
    assert practice.status_code == 202 and _context_of(rostered, practice.json["id"]) is None
    # ann is a learner of two courses assigning 39: no single default, so practice
    assert _context_of(rostered, _submit(rostered, "learner", {}).json["id"]) is None
    # cleo is in course B only: B by default
    assert _context_of(rostered, _submit(rostered, "learner_elsewhere", {}).json["id"]) == rostered.other_course_id


@pytest.mark.parametrize("course", ["A", 999999, "3", True, -1])
def test_a_course_that_is_not_allowed_is_a_400_and_nothing_is_stored(rostered, course):
    """cleo is not in course A; a course that does not exist; not a course id at all."""
    with services(rostered.app).sessions() as session:
        count = len(session.scalars(select(Submission.id)).all())
    named = rostered.course_id if course == "A" else course
    response = _submit(rostered, "learner_elsewhere", {"course": named})
    assert response.status_code == 400 and "course" in response.json["message"], response.json
    with services(rostered.app).sessions() as session:
        assert len(session.scalars(select(Submission.id)).all()) == count


def test_the_submit_form_offers_the_learners_courses_and_follows_the_link(rostered):
    client = rostered.client("learner")
    page = client.get(f"/exercises/39?course={rostered.other_course_id}").get_data(as_text=True)
    assert 'name="course"' in page and "Sampling 101" in page and "Other course" in page
    assert f'<option value="{rostered.other_course_id}" selected>' in page
    token = csrf_token(client, "/exercises/39")
    made = client.post("/exercises/39/submit", data={"csrf_token": token, "code": "x = 1\n",
                                                     "course": str(rostered.other_course_id)})
    assert made.status_code == 302
    submission_id = int(made.location.rsplit("/", 1)[-1])
    assert _context_of(rostered, submission_id) == rostered.other_course_id
    shown = client.get(f"/submissions/{submission_id}").get_data(as_text=True)
    assert "for the course Other course" in shown
    refused = rostered.client("learner_elsewhere")
    token = csrf_token(refused, "/exercises/39")
    answer = refused.post("/exercises/39/submit", data={"csrf_token": token, "code": "kept = 1\n",
                                                        "course": str(rostered.course_id)})
    assert answer.status_code == 400 and "kept = 1" in answer.get_data(as_text=True)


def test_the_course_page_links_its_exercises_with_the_course(rostered):
    page = rostered.client("learner").get(f"/courses/{rostered.other_course_id}").get_data(as_text=True)
    assert f"/exercises/39?course={rostered.other_course_id}" in page

