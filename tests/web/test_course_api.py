"""The course API end to end: courses, joining, rosters, assignments, extensions, overrides,
rejudges, a submission's history and code, results.json; and who may do each."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from judge.reports.exports import validate_results_json
from tests.web.world import store_graded
from web.core.models import ApiToken, Exercise, Grading, Priority, Role, Status, Submission, User
from web.services import services

PEOPLE = (("tia", Role.instructor), ("tom", Role.instructor), ("ann", Role.learner), ("bob", Role.learner),
          ("cy", Role.learner), ("root", Role.admin))


@pytest.fixture
def site(make_site):
    return people_site(make_site)


def people_site(make_site):
    """A site with PEOPLE, each with an API token (``call`` sends it)."""
    app = make_site(start_workers=False)
    tokens = {}
    with services(app).sessions() as session:
        for name, role in PEOPLE:
            user = User(name=name, role=role)
            user.set_password("password123")
            token, secret = ApiToken.issue(user)
            session.add_all([user, token])
            tokens[name] = {"Authorization": f"Bearer {secret}"}
        session.commit()
    app.config["HEADERS"] = tokens
    return app


def call(site, who, method, url, json=None, **kwargs):
    headers = dict(site.config["HEADERS"][who]) if who else {}
    return site.test_client().open(url, method=method, json=json, headers=headers, **kwargs)


def course_with_learners(site, *learners, teacher="tia", time_zone="UTC"):
    made = call(site, teacher, "POST", "/api/v1/courses", {"name": "Sampling 101", "time_zone": time_zone})
    assert made.status_code == 201, made.json
    for learner in learners:
        joined = call(site, learner, "POST", "/api/v1/courses/join", {"join_code": made.json["join_code"].lower()})
        assert joined.status_code == 200 and joined.json["role"] == "learner"
    return made.json


def assignment(site, course_id, who="tia", **fields):
    body = {"title": "Week 1", "exercises": [39], "opens_at": "2020-01-01T00:00Z", "due_at": "2099-01-01T00:00Z"}
    body.update(fields)
    return call(site, who, "POST", f"/api/v1/courses/{course_id}/assignments", body)


def graded(site, name, number=39, verdict="WA", report=None):
    with services(site).sessions() as session:
        user = session.scalar(select(User).where(User.name == name))
        exercise = session.scalar(select(Exercise).where(Exercise.number == number))
        report = report or {"verdict": verdict, "score": {"passed": 1, "total": 2}, "seed": 99, "cases": [
            {"name": "softmax", "suite": "public", "verdict": "AC", "message": "", "checks": []},
            {"name": "zipf", "suite": "hidden", "verdict": verdict, "message": "row 3: p=1e-12", "rule": "a rule",
             "checks": [{"kind": "fit", "label": "row 3", "statistic": 50.0, "p_value": 1e-12, "alpha": 1e-9,
                         "passed": verdict == "AC"}]}]}
        return store_graded(session, user, exercise, "print('mine')\n", report, seed=99)


def test_instructors_create_courses_and_learners_cannot(site):
    course = course_with_learners(site, time_zone="Europe/Berlin")
    assert len(course["join_code"]) == 8 and course["role"] == "instructor" and course["time_zone"] == "Europe/Berlin"
    assert call(site, "ann", "POST", "/api/v1/courses", {"name": "Mine"}).status_code == 403
    assert call(site, "root", "POST", "/api/v1/courses", {"name": "Admin's"}).status_code == 201
    for body in ({}, {"name": ""}, {"name": "x" * 201}, {"name": "ok", "time_zone": "Mars/Base"},
                 {"name": "ok", "time_zone": 5}):
        answer = call(site, "tia", "POST", "/api/v1/courses", body)
        assert answer.status_code == 400 and answer.json["message"], body
    assert call(site, None, "POST", "/api/v1/courses", {"name": "x"}).status_code == 401


def test_joining_is_by_code_idempotent_and_learners_see_no_join_code(site):
    course = course_with_learners(site, "ann")
    again = call(site, "ann", "POST", "/api/v1/courses/join", {"join_code": course["join_code"]})
    assert again.status_code == 200 and "join_code" not in again.json
    assert call(site, "bob", "POST", "/api/v1/courses/join", {"join_code": "NOPE1234"}).status_code == 404
    assert call(site, "bob", "POST", "/api/v1/courses/join", {}).status_code == 400
    listed = call(site, "ann", "GET", "/api/v1/courses").json["courses"]
    assert [(c["id"], c["role"]) for c in listed] == [(course["id"], "learner")] and "join_code" not in listed[0]
    assert call(site, "ann", "GET", f"/api/v1/courses/{course['id']}").status_code == 200
    assert call(site, "bob", "GET", f"/api/v1/courses/{course['id']}").status_code == 404
    assert call(site, "tom", "GET", f"/api/v1/courses/{course['id']}").status_code == 404
    assert call(site, "root", "GET", f"/api/v1/courses/{course['id']}").status_code == 200


def test_a_roster_invites_existing_accounts_and_names_the_rest(site):
    course = course_with_learners(site, "ann")
    url = f"/api/v1/courses/{course['id']}/roster"
    answer = call(site, "tia", "POST", url, data="name,email\nANN,a@x\nbob,b@x\nnobody,n@x\nbob,b@x\n",
                  content_type="text/csv")
    assert answer.status_code == 200
    assert answer.json == {"invited": ["bob"], "pending": [], "already": ["ann"], "unknown": ["nobody"]}
    again = call(site, "tia", "POST", url, {"csv": "bob\ncy\n"}).json
    assert again["invited"] == ["cy"] and again["pending"] == ["bob"]  # inviting twice makes no second one
    assert call(site, "tia", "POST", url, data=b"\xff\xfe", content_type="text/csv").status_code == 400
    assert call(site, "tia", "POST", url, data="\n\n", content_type="text/csv").status_code == 400
    assert call(site, "ann", "POST", url, data="bob\n", content_type="text/csv").status_code == 403
    assert call(site, "tom", "POST", url, data="bob\n", content_type="text/csv").status_code == 404


def test_a_course_can_have_several_instructors_each_by_their_consent(site):
    course = course_with_learners(site, "ann")
    url = f"/api/v1/courses/{course['id']}/instructors"
    added = call(site, "tia", "POST", url, {"user": "tom"})
    assert added.status_code == 200 and added.json["outcome"] == "invited"
    assert call(site, "tom", "GET", f"/api/v1/courses/{course['id']}").status_code == 404  # not until tom accepts
    invitation = call(site, "tom", "GET", "/api/v1/invitations").json["invitations"][0]
    assert invitation["role"] == "instructor" and invitation["invited_by"] == "tia"
    assert call(site, "tom", "POST", f"/api/v1/invitations/{invitation['id']}/accept").status_code == 200
    assert call(site, "tom", "GET", f"/api/v1/courses/{course['id']}").json["role"] == "instructor"
    assert call(site, "tia", "POST", url, {"user": "tom"}).json["outcome"] == "member"
    assert call(site, "tia", "POST", url, {"user": "zed"}).status_code == 400


def test_assignments_are_checked_and_stored_in_utc(site):
    course = course_with_learners(site, time_zone="America/New_York")
    made = assignment(site, course["id"], opens_at="2027-03-01T09:00", due_at="2027-03-14T23:59",
                      late_policy="penalty", penalty_per_day=0.1, visibility_before="diagnosis")
    assert made.status_code == 201, made.json
    body = made.json
    assert body["due_at"] == "2027-03-15T03:59:00+00:00"  # EDT (UTC-4) after the March 14 change
    assert body["opens_at"] == "2027-03-01T14:00:00+00:00"  # EST (UTC-5)
    assert (body["late_policy"], body["penalty_per_day"], body["visibility_before"]) == ("penalty", 0.1, "diagnosis")
    bad = [
        dict(exercises=[39]),  # already in Week 1
        dict(exercises=[404]),
        dict(exercises=[]),
        dict(exercises=[1, 1]),
        dict(exercises=[1], due_at="2019-01-01T00:00Z"),
        dict(exercises=[1], due_at="2027-03-14T02:30"),  # skipped by the DST change in New York
        dict(exercises=[1], late_policy="sometimes"),
        dict(exercises=[1], late_policy="penalty", penalty_per_day=0),
        dict(exercises=[1], late_policy="penalty", penalty_per_day=1.5),
        dict(exercises=[1], visibility_after="everything"),
        dict(exercises=[1], colour="blue"),
    ]
    for fields in bad:
        answer = assignment(site, course["id"], **fields)
        assert answer.status_code == 400 and answer.json["message"], fields
    assert assignment(site, course["id"], exercises=[1], title=None).status_code == 400
    changed = call(site, "tia", "PUT", f"/api/v1/courses/{course['id']}/assignments/{body['id']}",
                   {"due_at": "2027-03-21T23:59", "exercises": [39, 1]})
    assert changed.status_code == 200 and changed.json["exercises"] == [39, 1]
    assert changed.json["title"] == "Week 1" and changed.json["late_policy"] == "penalty"
    assert assignment(site, course["id"], who="ann", exercises=[1]).status_code == 404  # not a member: 404
    assert assignment(site, course["id"], who="bob", exercises=[1]).status_code == 404


def test_extensions_and_overrides_are_for_the_courses_learners(site):
    course = course_with_learners(site, "ann")
    work = assignment(site, course["id"], due_at="2027-03-08T00:00Z").json
    url = f"/api/v1/courses/{course['id']}/assignments/{work['id']}/extensions"
    granted = call(site, "tia", "POST", url, {"user": "ann", "due_at": "2027-03-10T00:00Z"})
    assert granted.status_code == 200 and granted.json["due_at"] == "2027-03-10T00:00:00+00:00"
    assert call(site, "tia", "POST", url, {"user": "ann", "due_at": "2027-03-01T00:00Z"}).status_code == 400
    assert call(site, "tia", "POST", url, {"user": "bob", "due_at": "2027-03-10T00:00Z"}).status_code == 404
    overrides = f"/api/v1/courses/{course['id']}/overrides"
    made = call(site, "tia", "POST", overrides, {"user": "ann", "exercise": 39, "score": 0.5, "comment": "partial"})
    assert made.status_code == 201 and made.json["by"] == "tia" and made.json["score"] == 0.5
    for body in ({"user": "ann", "exercise": 39, "score": 2, "comment": "x"},
                 {"user": "ann", "exercise": 39, "score": 1, "comment": " "},
                 {"user": "ann", "exercise": 1, "score": 1, "comment": "not in the course"}):
        assert call(site, "tia", "POST", overrides, body).status_code == 400, body
    assert call(site, "ann", "POST", overrides, {"user": "ann", "exercise": 39, "score": 1,
                                                 "comment": "mine"}).status_code == 403


def test_a_submission_shows_its_code_and_history_to_its_author_and_teachers_only(site):
    course = course_with_learners(site, "ann")
    assignment(site, course["id"])
    submission_id = graded(site, "ann")
    mine = call(site, "ann", "GET", f"/api/v1/submissions/{submission_id}").json
    assert mine["user"] == "ann" and mine["code"] == "print('mine')\n"
    assert [g["seed"] for g in mine["gradings"]] == [None] and mine["gradings"][0]["current"] is True
    assert "row 3" not in str(mine["cases"]) and mine["seed"] is None
    taught = call(site, "tia", "GET", f"/api/v1/submissions/{submission_id}").json
    assert taught["seed"] == 99 and taught["gradings"][0]["seed"] == 99
    assert taught["cases"][1]["message"] == "row 3: p=1e-12"
    assert taught["cases"][1]["checks"][0] == {"kind": "fit", "label": "row 3", "statistic": 50.0, "p_value": 1e-12,
                                               "alpha": 1e-9, "passed": False}
    for other in ("bob", "tom"):  # another learner; an instructor who does not teach ann
        assert call(site, other, "GET", f"/api/v1/submissions/{submission_id}").status_code == 404


def test_results_json_follows_gradescopes_format_and_the_viewers_rights(site):
    course = course_with_learners(site, "ann")
    assignment(site, course["id"])
    submission_id = graded(site, "ann")
    url = f"/api/v1/submissions/{submission_id}/results.json"
    for who in ("ann", "tia", "root"):
        body = call(site, who, "GET", url).json
        assert validate_results_json(body) == [], who
        assert body["score"] == 1 and [t["status"] for t in body["tests"]] == ["passed", "failed"]
    assert "row 3: p=1e-12" not in str(call(site, "ann", "GET", url).json)
    assert "1e-12" in str(call(site, "tia", "GET", url).json["tests"][1]["extra_data"])
    assert call(site, "bob", "GET", url).status_code == 404


def test_rejudge_adds_a_low_priority_grading_and_keeps_the_old_one(site):
    course = course_with_learners(site, "ann", "bob")
    work = assignment(site, course["id"]).json
    first, second = graded(site, "ann"), graded(site, "bob", verdict="AC")
    assert call(site, "ann", "POST", f"/api/v1/submissions/{first}/rejudge").status_code == 403
    assert call(site, "tom", "POST", f"/api/v1/submissions/{first}/rejudge").status_code == 404
    one = call(site, "tia", "POST", f"/api/v1/submissions/{first}/rejudge")
    assert one.status_code == 202 and one.json["queued"] == 1 and one.json["status"] == "queued"
    again = call(site, "tia", "POST", f"/api/v1/submissions/{first}/rejudge")
    assert again.json["queued"] == 0  # already waiting: not queued twice
    whole = call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/rejudge", {"assignment": work["id"]})
    assert whole.status_code == 202 and whole.json["queued"] == 1  # bob's; ann's is still waiting
    by_exercise = call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/rejudge", {"exercise": 39})
    assert by_exercise.json["queued"] == 0
    assert call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/rejudge", {}).status_code == 400
    with services(site).sessions() as session:
        gradings = session.scalars(select(Grading).where(Grading.submission_id.in_([first, second]))
                                   .order_by(Grading.id)).all()
        assert [(g.submission_id, g.status, g.priority) for g in gradings] == [
            (first, Status.done, Priority.live), (second, Status.done, Priority.live),
            (first, Status.queued, Priority.rejudge), (second, Status.queued, Priority.rejudge)]
        assert gradings[2].replaces_id == gradings[0].id and gradings[2].seed is None
        assert session.get(Submission, first).current_grading_id == gradings[0].id  # until the new one finishes
    status = call(site, "tia", "GET", f"/api/v1/rejudges/{whole.json['rejudge']}").json
    assert status["pending"] == 1 and status["gradings"][0]["before"] == "AC" and status["gradings"][0]["after"] is None
    assert call(site, "tom", "GET", f"/api/v1/rejudges/{whole.json['rejudge']}").status_code == 404
    assert call(site, "ann", "GET", f"/api/v1/rejudges/{one.json['rejudge']}").status_code == 404


@pytest.mark.parametrize("typed, stored", [("flagged", "flagged"), ("Accepted and flagged", "flagged"),
                                           ("penalty-per-day", "penalty"), ("NOT_ACCEPTED", "not_accepted"),
                                           ("reject", "not_accepted")])
# SQLite only (docs/testing.md): reading a policy's spellings is parsing, not the database.
@pytest.mark.parametrize("database_backend", ["sqlite"])
def test_late_policies_are_read_in_their_usual_spellings(site, typed, stored):
    course = course_with_learners(site)
    made = assignment(site, course["id"], late_policy=typed, penalty_per_day=0.1)
    assert made.status_code == 201 and made.json["late_policy"] == stored
    assert made.json["penalty_per_day"] == (0.1 if stored == "penalty" else 0.0)
