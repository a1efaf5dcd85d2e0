"""What an assignment withholds stays withheld on every surface a learner, another learner or a
visitor can reach, and no surface times a grading for them (issue 31, items 4 and 5).

Two sites are built the same way (:func:`tests.web.world.route_world`) but for one hidden
outcome: ann's first attempt passes its hidden case in one site and fails it in the other (same
public results, same ids). At ``nothing`` every GET route of the URL map must answer the same
bytes on both sites, for each viewer, once CSRF tokens and timestamps are set aside: no field may
depend on a withheld case. At ``diagnosis`` hidden verdicts are shown, so only the rule text is
checked. Each level is checked before and after the due date.

Times: a submission that sleeps in proportion to a hidden value could read the value back from
when its grading finished, so learner-reachable answers carry no grading start or finish time and
no time finer than the minute.
"""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from tests.web.site_client import build_url, rules, stop_site
from tests.web.world import ACCOUNT, route_world, store_graded
from web.core.models import Assignment, Exercise, Grading, Submission, User, Visibility, as_utc
from web.services import services

HIDDEN_RULE = "zipf row 7: the draws do not follow the target"
HIDDEN_MESSAGE = "row 7 of 12 drew token 3 too often"
DIAGNOSIS = "top-k keeps one token too many"
PUBLIC = {"name": "softmax", "suite": "public", "verdict": "AC", "message": "", "time_ms": 3.0, "checks": []}


def report(hidden_passes: bool) -> dict:
    """A report whose public case passes and whose hidden case passes or fails."""
    hidden = {"name": "zipf", "suite": "hidden", "verdict": "AC" if hidden_passes else "WA",
              "message": "" if hidden_passes else HIDDEN_MESSAGE, "rule": HIDDEN_RULE, "time_ms": 4.0,
              "checks": [{"kind": "fit", "label": "row 7", "passed": hidden_passes, "alpha": 1e-9}]}
    if hidden_passes:
        return {"verdict": "AC", "score": {"passed": 2, "total": 2}, "message": "", "seed": 11,
                "cases": [PUBLIC, hidden]}
    return {"verdict": "WA", "score": {"passed": 1, "total": 2}, "message": "zipf failed", "seed": 11,
            "diagnosis": DIAGNOSIS, "cases": [PUBLIC, hidden]}


# When ann submitted (seconds and microseconds on purpose) and, per hidden outcome, when grading
# finished: a slow hidden case is the timing channel item 5 closes. Grading times fall in other
# seconds than the submission's, which a course page may show (test_no_learner_reachable_...).
SUBMITTED = (dt.datetime.now(dt.UTC) - dt.timedelta(hours=2)).replace(second=17, microsecond=250_000)
STARTED = SUBMITTED + dt.timedelta(seconds=1.1)
FINISHED = {True: SUBMITTED + dt.timedelta(seconds=1.6), False: SUBMITTED + dt.timedelta(seconds=7.3)}

NOW = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)  # due dates are set to the minute
LEVELS = {  # name → (visibility before, after, due date)
    "nothing-before-due": ("nothing", "rule", NOW + dt.timedelta(days=30)),
    "nothing-after-due": ("rule", "nothing", NOW - dt.timedelta(days=1)),
    "diagnosis-before-due": ("diagnosis", "rule", NOW + dt.timedelta(days=30)),
    "diagnosis-after-due": ("rule", "diagnosis", NOW - dt.timedelta(days=1)),
}
VIEWERS = ("learner", "outsider", None)  # the author ann, a learner in no course, a visitor


def _site(module_databases, first_passes: bool):
    from judge.engine.process import LocalLauncher
    from web.app import create_app
    from web.core.config import Settings

    def make_site(start_workers=False):
        settings = Settings(database_url=module_databases.new(), secret_key="test", workers=1,
                            sandbox="local", max_code_bytes=64 * 1024, rate_limits=False)
        return create_app(settings, launcher=LocalLauncher(), start_workers=start_workers)

    world = route_world(make_site())
    with services(world.app).sessions() as session:
        ann = session.scalar(select(User).where(User.name == ACCOUNT["learner"]))
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        made = []
        for passes in (first_passes, False):  # a withheld AC (or WA) and a withheld WA
            submission_id = store_graded(session, ann, exercise, "x = 3\n",
                                         report(passes), seed=11, finished_at=FINISHED[passes],
                                         started_at=STARTED, created_at=SUBMITTED)
            session.get(Submission, submission_id).created_at = SUBMITTED
            made.append(submission_id)
        session.commit()
    world.made = made
    world.clients = {}
    for role in ("learner", "outsider"):
        world.clients[role] = world.client(role)
    world.clients[None] = world.app.test_client()
    return world


@pytest.fixture(scope="module")
def sites(module_databases):
    built = [_site(module_databases, first_passes) for first_passes in (True, False)]
    assert built[0].made == built[1].made and built[0].values == built[1].values  # same ids on both
    yield built
    for world in built:
        stop_site(world.app)


def set_level(world, level: str) -> None:
    before, after, due = LEVELS[level]
    with services(world.app).sessions() as session:
        assignment = session.get(Assignment, world.values["assignment_id"])
        assignment.visibility_before, assignment.visibility_after = Visibility(before), Visibility(after)
        assignment.due_at = due
        session.commit()


def reachable(world):
    """(viewer, url, body) for every GET route of the URL map, for each viewer, with ann's two
    attempts as the submission (and the diff's pair)."""
    first, second = world.made
    for rule in rules(world.app, method="GET"):
        for submission_id in ((first, second) if "submission_id" in rule.rule else (first,)):
            values = {**world.values, "submission_id": submission_id, "old_id": first, "new_id": second}
            url = build_url(rule, **values)
            for viewer in VIEWERS:
                if rule.rule.startswith("/api/"):
                    headers = world.headers(viewer) if viewer else {}
                    response = world.app.test_client().get(url, headers=headers)
                else:
                    response = world.clients[viewer].get(url)
                assert response.status_code < 500, (viewer, url, response.status_code)
                yield viewer, url, response.get_data().decode("utf-8", "replace")
    # The result region as the page polls it, and the exports a learner downloads.
    for viewer in VIEWERS:
        for url in (f"/submissions/{first}/result?wait=1", f"/api/v1/submissions/{first}?wait=1"):
            if url.startswith("/api/"):
                response = world.app.test_client().get(url, headers=world.headers(viewer) if viewer else {})
            else:
                response = world.clients[viewer].get(url)
            yield viewer, url, response.get_data().decode("utf-8", "replace")


_TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)?")
_CSRF = re.compile(r'(name="csrf_token"[^>]*value=")[^"]+"|("csrf_token":\s*")[^"]+"')
_KEY_SET = re.compile(r'^\{"keys":\[.*\]\}$', re.S)  # /lti/jwks: each site makes its own random key


def normalized(body: str) -> str:
    """``body`` without what differs between two builds of one world: CSRF tokens, times, LTI keys."""
    body = _KEY_SET.sub("<keys>", body.strip()) if body.startswith('{"keys":') else body
    return _TIME.sub("<time>", _CSRF.sub(lambda m: (m.group(1) or m.group(2)) + '<csrf>"', body))


@pytest.mark.parametrize("level", ["nothing-before-due", "nothing-after-due"])
def test_no_answer_depends_on_a_withheld_hidden_case(sites, level):
    for world in sites:
        set_level(world, level)
    answers = [list(reachable(world)) for world in sites]
    assert len(answers[0]) == len(answers[1]) > 50
    differing = [(viewer, url) for (viewer, url, one), (_, _, other) in zip(*answers, strict=True)
                 if normalized(one) != normalized(other)]
    assert not differing, f"these answers tell a withheld hidden outcome: {differing}"
    for viewer, url, body in answers[0]:
        assert HIDDEN_RULE not in body and HIDDEN_MESSAGE not in body, (viewer, url)


@pytest.mark.parametrize("level", ["diagnosis-before-due", "diagnosis-after-due"])
def test_diagnosis_shows_hidden_verdicts_but_never_their_rule(sites, level):
    world = sites[1]
    set_level(world, level)
    bodies = list(reachable(world))
    for viewer, url, body in bodies:
        assert HIDDEN_RULE not in body and HIDDEN_MESSAGE not in body and "row 7" not in body, (viewer, url)
    api = world.app.test_client().get(f"/api/v1/submissions/{world.made[0]}", headers=world.headers("learner")).json
    assert api["verdict"] == "WA" and [case["verdict"] for case in api["cases"]] == ["AC", "WA"]


def test_the_public_acceptance_counter_counts_no_withheld_verdict(sites):
    """What the exercise list's "A of G accepted" counts: the verdicts every viewer may know."""
    counters = []
    for world in sites:
        set_level(world, "nothing-before-due")
        page = world.app.test_client().get("/exercises/").get_data(as_text=True)
        counters.append(re.findall(r"\d+% <span class=\"muted\">\([^)]*\)", page))
    assert counters[0] == counters[1]
    for world in sites:
        set_level(world, "diagnosis-before-due")  # shown to ann: counted again
    shown = [world.app.test_client().get("/exercises/").get_data(as_text=True) for world in sites]
    assert "1 of 4" in shown[0] and "0 of 4" in shown[1]


def test_the_course_page_withholds_the_counted_score(sites):
    for world in sites:
        set_level(world, "nothing-before-due")
    pages = [world.clients["learner"].get(f"/courses/{world.values['course_id']}").get_data(as_text=True)
             for world in sites]
    assert "100%" not in pages[0] and "withheld" in pages[0]
    for world in sites:
        set_level(world, "diagnosis-before-due")
    shown = sites[0].clients["learner"].get(f"/courses/{sites[0].values['course_id']}").get_data(as_text=True)
    assert "100%" in shown


def test_an_at_least_override_does_not_reveal_a_withheld_score(sites):
    """The course page shows max(override, computed) for an "at least" override: with hidden
    results withheld that would tell a 100 % from a 50 %, so the score stays withheld and the note
    says "at least"; a "replace" override is the instructor's own word and shows."""
    from web.core.models import Course, CourseRole, Membership
    from web.teaching.courses import override_score, withdraw_override

    def set_override(world, mode: str | None) -> str:
        with services(world.app).sessions() as session:
            course = session.get(Course, world.values["course_id"])
            ann = session.scalar(select(User).where(User.name == ACCOUNT["learner"]))
            teacher = session.scalar(select(User).join(Membership, Membership.user_id == User.id).where(
                Membership.course_id == course.id, Membership.role == CourseRole.instructor))
            exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
            if mode is None:
                withdraw_override(session, course, ann, exercise, teacher)
            else:
                override_score(session, course, ann, exercise, 0.25, "floor", teacher, mode)
            session.commit()
        return world.clients["learner"].get(f"/courses/{world.values['course_id']}").get_data(as_text=True)

    for world in sites:
        set_level(world, "nothing-before-due")
    pages = [set_override(world, "at_least") for world in sites]
    assert normalized(pages[0]) == normalized(pages[1])
    assert "Your instructor gives you at least 25%" in pages[0] and "100%" not in pages[0] and "withheld" in pages[0]
    replaced = [set_override(world, "replace") for world in sites]
    assert normalized(replaced[0]) == normalized(replaced[1]) and "25%" in replaced[0]
    for world in sites:
        set_override(world, None)


_FINE_TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:(\d\d)(\.\d+)?")


def _own_submission_times(world) -> set[str]:
    """Each course submission's created_at to the second, as the pages write it: ISO in UTC (a
    ``<time datetime>``) and wall-clock in its course's zone."""
    written = set()
    with services(world.app).sessions() as session:
        for submission in session.scalars(select(Submission).where(Submission.course_id.is_not(None))):
            moment = as_utc(submission.created_at).replace(microsecond=0)
            written.add(moment.strftime("%Y-%m-%dT%H:%M:%S"))
            local = moment.astimezone(ZoneInfo(submission.course.time_zone))
            written.add(local.strftime("%Y-%m-%d %H:%M:%S"))
    return written


@pytest.mark.parametrize("level", ["nothing-before-due", "diagnosis-after-due"])
def test_no_learner_reachable_answer_times_a_grading(sites, level):
    """No grading start, finish or request time, and nothing finer than the minute, except one: a
    course submission's own time, to the second where it decides lateness (issue 33: "late by
    13 s"). It is the learner's own act, which their clock already knows; it times no grading.
    Never its microseconds."""
    world = sites[0]
    set_level(world, level)
    own = _own_submission_times(world)
    timed = []
    for viewer, url, body in reachable(world):
        timed += [(viewer, url, found.group(0)) for found in _FINE_TIME.finditer(body)
                  if (found.group(1) != "00" or found.group(2)) and found.group(0) not in own]
        timed += [(viewer, url, field) for field in ("finished_at", "started_at")
                  if re.search(rf'"{field}":\s*"', body)]
    assert not timed, f"these answers time a grading (or to the second): {sorted(set(timed))}"


def test_those_who_teach_the_author_keep_full_times(sites):
    world = sites[0]
    set_level(world, "nothing-before-due")
    api = world.app.test_client().get(f"/api/v1/submissions/{world.made[0]}", headers=world.headers("instructor")).json
    assert api["finished_at"] is not None and dt.datetime.fromisoformat(api["created_at"]).second == 17
    with services(world.app).sessions() as session:
        assert session.get(Grading, api["grading"]).finished_at is not None
