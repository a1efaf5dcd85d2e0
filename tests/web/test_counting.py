"""What counts in a course: best grading before the effective deadline, per the late policy."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.web.world import attempt, course_with_assignment, exercise, learner_in, moment
from web.core.database import make_engine, session_factory
from web.core.models import LatePolicy
from web.learning.exercises import sync_exercises
from web.teaching.counting import cells
from web.teaching.courses import grant_extension, override_score


@pytest.fixture
def session(database_url):
    engine = make_engine(database_url)
    with session_factory(engine)() as session:
        sync_exercises(session)
        yield session
    engine.dispose()


def cell(session, course, learner, number):
    return cells(session, course.id).get((learner.id, exercise(session, number).id))


def test_best_on_time_grading_counts_and_attempts_before_opening_do_not(session):
    _, course, _ = course_with_assignment(session)
    ann = learner_in(session, course, "ann")
    # An AC one second before it opened (2027-03-01 00:00) is practice: it would win if it counted.
    attempt(session, ann, exercise(session, 39), "2027-02-28 23:59:59")
    attempt(session, ann, exercise(session, 39), "2027-03-01 00:00:00", "WA", passed=1)  # the opening: an attempt
    attempt(session, ann, exercise(session, 39), "2027-03-02 10:00", "WA", passed=4)
    best = attempt(session, ann, exercise(session, 39), "2027-03-03 10:00", "WA", passed=7)
    attempt(session, ann, exercise(session, 39), "2027-03-04 10:00", "WA", passed=2)
    found = cell(session, course, ann, 39)
    assert (found.attempts, found.submission_id, found.counted, found.late) == (4, best.id, 0.7, False)
    assert found.verdict.value == "WA" and found.score == 0.7
    assert cell(session, course, ann, 1) is None  # never tried


def test_late_not_accepted_counts_nothing_after_the_deadline(session):
    _, course, _ = course_with_assignment(session, late_policy="not_accepted")
    bob = learner_in(session, course, "bob")
    on_time = attempt(session, bob, exercise(session, 39), "2027-03-07 23:59:59", "WA", passed=5)
    attempt(session, bob, exercise(session, 39), "2027-03-08 00:00:01", "AC")
    found = cell(session, course, bob, 39)
    assert (found.submission_id, found.counted, found.late, found.attempts) == (on_time.id, 0.5, False, 2)


def test_exactly_at_the_deadline_is_on_time(session):
    _, course, _ = course_with_assignment(session)
    bob = learner_in(session, course, "bob")
    attempt(session, bob, exercise(session, 39), "2027-03-08 00:00:00", "AC")
    assert cell(session, course, bob, 39).counted == 1.0


def test_only_late_work_under_not_accepted_counts_zero_but_is_an_attempt(session):
    _, course, _ = course_with_assignment(session)
    cat = learner_in(session, course, "cat")
    attempt(session, cat, exercise(session, 39), "2027-03-09 00:00", "AC")
    found = cell(session, course, cat, 39)
    assert (found.attempts, found.counted, found.score, found.late) == (1, None, 0.0, False)


@pytest.mark.parametrize("late_by, factor", [("00:00:01", 0.9), ("23:59:59", 0.9), ("1 00:00:01", 0.8),
                                             ("9 12:00:00", 0.0), ("30 00:00:00", 0.0)])
def test_penalty_per_started_day(session, late_by, factor):
    _, course, _ = course_with_assignment(session, late_policy="penalty", penalty_per_day=0.1)
    dan = learner_in(session, course, "dan")
    days, _, clock = late_by.rpartition(" ")
    hours, minutes, seconds = map(int, clock.split(":"))
    import datetime as dt
    at = moment("2027-03-08 00:00") + dt.timedelta(days=int(days or 0), hours=hours, minutes=minutes, seconds=seconds)
    attempt(session, dan, exercise(session, 39), at, "AC")
    found = cell(session, course, dan, 39)
    assert found.counted == pytest.approx(factor) and found.late is True


def test_penalty_late_ac_beats_weaker_on_time_work_only_when_worth_more(session):
    _, course, _ = course_with_assignment(session, late_policy="penalty", penalty_per_day=0.25)
    eve, fay = learner_in(session, course, "eve"), learner_in(session, course, "fay")
    for learner, on_time_passed in ((eve, 5), (fay, 8)):
        attempt(session, learner, exercise(session, 39), "2027-03-07 12:00", "WA", passed=on_time_passed)
        attempt(session, learner, exercise(session, 39), "2027-03-08 06:00", "AC")  # 0.75 after one day
    eve_cell, fay_cell = cell(session, course, eve, 39), cell(session, course, fay, 39)
    assert (eve_cell.counted, eve_cell.late) == (pytest.approx(0.75), True)
    assert (fay_cell.counted, fay_cell.late) == (pytest.approx(0.8), False)


def test_flagged_counts_in_full_and_flags_late(session):
    _, course, _ = course_with_assignment(session, late_policy=LatePolicy.flagged)
    gus = learner_in(session, course, "gus")
    attempt(session, gus, exercise(session, 39), "2027-03-20 12:00", "AC")
    found = cell(session, course, gus, 39)
    assert (found.counted, found.late) == (1.0, True)


def test_an_equal_later_score_never_turns_an_on_time_cell_late(session):
    _, course, _ = course_with_assignment(session, late_policy="flagged")
    hal = learner_in(session, course, "hal")
    first = attempt(session, hal, exercise(session, 39), "2027-03-05 12:00", "AC")
    attempt(session, hal, exercise(session, 39), "2027-03-10 12:00", "AC")
    found = cell(session, course, hal, 39)
    assert (found.submission_id, found.late) == (first.id, False)


def test_an_extension_moves_one_learners_deadline(session):
    teacher, course, work = course_with_assignment(session)
    ida, jon = learner_in(session, course, "ida"), learner_in(session, course, "jon")
    grant_extension(session, work, ida, "2027-03-10T00:00Z", teacher)
    for learner in (ida, jon):
        attempt(session, learner, exercise(session, 39), "2027-03-09 12:00", "AC")
    assert cell(session, course, ida, 39).counted == 1.0
    assert cell(session, course, jon, 39).counted is None


def test_effective_due_is_the_learners_extension_on_that_assignment_else_the_assignments(session):
    from web.core.models import as_utc
    from web.teaching.counting import effective_due
    from web.teaching.courses import save_assignment

    teacher, course, first = course_with_assignment(session, exercises=(39,))
    second = save_assignment(session, course, title="Week 2", exercises=[1], opens_at="2027-03-08T00:00Z",
                             due_at="2027-03-15T00:00Z")
    pia, rex = learner_in(session, course, "pia"), learner_in(session, course, "rex")
    grant_extension(session, first, pia, "2027-03-10T00:00Z", teacher)
    grant_extension(session, second, pia, "2027-03-20T00:00Z", teacher)
    grant_extension(session, second, rex, "2027-03-18T00:00Z", teacher)
    session.flush()
    due = {(who.name, work.title): as_utc(effective_due(session, work, who.id))
           for who in (pia, rex) for work in (first, second)}
    assert due == {("pia", "Week 1"): moment("2027-03-10 00:00"), ("pia", "Week 2"): moment("2027-03-20 00:00"),
                   ("rex", "Week 1"): moment("2027-03-08 00:00"), ("rex", "Week 2"): moment("2027-03-18 00:00")}


def test_ungraded_attempts_count_as_attempts_not_scores(session):
    _, course, _ = course_with_assignment(session)
    kim = learner_in(session, course, "kim")
    attempt(session, kim, exercise(session, 39), "2027-03-02 12:00", graded=False)
    found = cell(session, course, kim, 39)
    assert (found.attempts, found.counted, found.grading_id) == (1, None, None)


def test_a_graded_attempt_with_no_cases_counts_zero_not_nothing(session):
    """An IE with no cases (score 0 of 0) is graded: it counts, for 0, and is the counted attempt
    (the cell is not one where nothing counts), in the ranked cells and in the summaries alike."""
    from sqlalchemy import select

    from web.teaching.counting import cell_summaries_query

    _, course, _ = course_with_assignment(session)
    kai = learner_in(session, course, "kai")
    broken = attempt(session, kai, exercise(session, 39), "2027-03-02 12:00", "IE", passed=0, total=0)
    found = cell(session, course, kai, 39)
    assert (found.attempts, found.submission_id, found.counted, found.score, found.late) == (
        1, broken.id, 0.0, 0.0, False)
    (summary,) = session.execute(select(cell_summaries_query(course.id).subquery())).all()
    assert (summary.attempts, summary.counted, bool(summary.late)) == (1, 0.0, False)


def test_the_summaries_of_some_learners_hold_their_cells_alone(session):
    """cell_summaries_query with ``user_ids``: those learners' cells, attempts and overrides, and
    no other learner's (the gradebook's page of learners reads only its own)."""
    from sqlalchemy import select

    from web.teaching.counting import cell_summaries_query

    teacher, course, _ = course_with_assignment(session)
    nia, oli = learner_in(session, course, "nia"), learner_in(session, course, "oli")
    for learner in (nia, oli):
        attempt(session, learner, exercise(session, 39), "2027-03-02 12:00", "WA", passed=4)
        override_score(session, course, learner, exercise(session, 1), 1.0, "excused", teacher)
    session.flush()
    for chosen in ([nia.id], [oli.id], [nia.id, oli.id]):
        rows = session.execute(select(cell_summaries_query(course.id, chosen).subquery())).all()
        assert sorted((row.user_id, row.exercise_id, row.score) for row in rows) == sorted(
            (who, number.id, score) for who in chosen
            for number, score in ((exercise(session, 39), 0.4), (exercise(session, 1), 1.0)))


def test_each_attempt_row_carries_its_learners_effective_due_date(session):
    """attempts_query's ``due_at``: the learner's extension when they have one, else the assignment's."""
    from web.core.models import as_utc
    from web.teaching.counting import attempts_query

    teacher, course, work = course_with_assignment(session)
    ida, jon = learner_in(session, course, "ida"), learner_in(session, course, "jon")
    grant_extension(session, work, ida, "2027-03-10T00:00Z", teacher)
    for learner in (ida, jon):
        attempt(session, learner, exercise(session, 39), "2027-03-09 12:00", "AC")
    session.flush()
    due = {row["user_id"]: (as_utc(row["due_at"]), row["late"])
           for row in session.execute(attempts_query(course.id)).mappings()}
    assert due == {ida.id: (moment("2027-03-10 00:00"), False), jon.id: (moment("2027-03-08 00:00"), True)}


def test_the_newest_override_replaces_the_score_and_keeps_the_history(session):
    teacher, course, _ = course_with_assignment(session)
    lea = learner_in(session, course, "lea")
    attempt(session, lea, exercise(session, 39), "2027-03-02 12:00", "WA", passed=3)
    override_score(session, course, lea, exercise(session, 39), 0.5, "partial credit", teacher)
    session.flush()
    override_score(session, course, lea, exercise(session, 39), 0.9, "regraded by hand", teacher)
    override_score(session, course, lea, exercise(session, 1), 1.0, "excused", teacher)  # no attempt at all
    session.flush()
    found = cell(session, course, lea, 39)
    assert (found.counted, found.override, found.score, found.override_comment) == (
        pytest.approx(0.3), 0.9, 0.9, "regraded by hand")
    excused = cell(session, course, lea, 1)
    assert (excused.attempts, excused.score, excused.submission_id) == (0, 1.0, None)


@pytest.mark.parametrize("mode, override, passed, score, below", [
    ("replace", 0.2, 7, 0.2, True),  # below the computed 0.7: counts, flagged
    ("replace", 0.9, 3, 0.9, False),  # above the computed 0.3
    ("replace", 0.7, 7, 0.7, False),  # equal is not below
    ("at_least", 0.2, 7, 0.7, False),  # a floor under a better computed score: the computed counts
    ("at_least", 0.9, 3, 0.9, False),  # a floor above it: the floor counts
    ("at_least", 0.5, None, 0.5, False),  # nothing computed: the floor
    ("replace", 0.5, None, 0.5, False),
])
def test_an_overrides_mode_decides_how_it_meets_the_computed_score(session, mode, override, passed, score, below):
    """One rule (web.teaching.counting.overridden_score) for both queries: the ranked cells and the summaries."""
    from sqlalchemy import select

    from web.teaching.counting import cell_summaries_query

    teacher, course, _ = course_with_assignment(session)
    lea = learner_in(session, course, "lea")
    if passed is not None:
        attempt(session, lea, exercise(session, 39), "2027-03-02 12:00", "WA", passed=passed)
    override_score(session, course, lea, exercise(session, 39), override, "by hand", teacher, mode)
    session.flush()
    found = cell(session, course, lea, 39)
    assert (found.score, found.override, found.override_mode.value, found.override_below) == (
        pytest.approx(score), override, mode, below)
    summary = session.execute(select(cell_summaries_query(course.id).subquery())).one()
    assert (summary.score, bool(summary.override_below)) == (pytest.approx(score), below)


def test_a_computed_score_that_passes_a_replace_override_raises_the_flag_and_removal_restores_it(session):
    """A rejudge (a new current grading) lifts the computed score from 0.3 past the override's 0.5:
    the override still counts, flagged; withdrawing it gives the computed 0.8."""
    from web.core.models import Grading, Status
    from web.teaching.courses import withdraw_override

    teacher, course, _ = course_with_assignment(session)
    lea = learner_in(session, course, "lea")
    work = attempt(session, lea, exercise(session, 39), "2027-03-02 12:00", "WA", passed=3)
    override_score(session, course, lea, exercise(session, 39), 0.5, "partial credit", teacher)
    session.flush()
    assert (cell(session, course, lea, 39).score, cell(session, course, lea, 39).override_below) == (0.5, False)
    regraded = Grading(status=Status.done, verdict=work.current.verdict, score_passed=8, score_total=10, seed=1,
                       attempts=1, created_at=work.created_at)
    work.gradings.append(regraded)
    session.flush()
    work.current_grading_id = regraded.id
    session.flush()
    after = cell(session, course, lea, 39)
    assert (after.counted, after.score, after.override_below) == (pytest.approx(0.8), 0.5, True)
    withdraw_override(session, course, lea, exercise(session, 39), teacher)
    session.flush()
    restored = cell(session, course, lea, 39)
    assert (restored.score, restored.override, restored.override_mode, restored.override_below) == (
        pytest.approx(0.8), None, None, False)


def test_other_courses_and_non_members_do_not_leak_in(session):
    _, course, _ = course_with_assignment(session)
    _, other, _ = course_with_assignment(session, exercises=(39,))
    mia = learner_in(session, other, "mia")  # in the other course only
    attempt(session, mia, exercise(session, 39), "2027-03-02 12:00", "AC")
    assert cells(session, course.id) == {}
    assert len(cells(session, other.id)) == 1


ATTEMPT = st.tuples(st.integers(0, 3),  # which learner
                    st.integers(-50, 300),  # hours after the due date (negative: before)
                    st.integers(0, 4))  # cases passed of 4


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(policy=st.sampled_from(["not_accepted", "penalty", "flagged"]), attempts=st.lists(ATTEMPT, max_size=14),
       overridden=st.dictionaries(st.integers(0, 3), st.tuples(st.sampled_from(["replace", "at_least"]),
                                                                st.sampled_from([0.0, 0.5, 0.75, 1.0])), max_size=2))
def test_the_summaries_agree_with_the_ranked_cells(session, policy, attempts, overridden):
    """cell_summaries_query (plain aggregates, for totals and sorting) gives every cell the same
    attempts, counted score, late flag, override, score and below-the-computed flag as cells_query
    (ranked per cell), whatever the overrides' modes."""
    import datetime as dt

    from sqlalchemy import select

    from web.teaching.counting import cell_summaries_query

    teacher, course, _ = course_with_assignment(session, exercises=(39,), late_policy=policy,
                                                penalty_per_day=0.25 if policy == "penalty" else 0)
    people = [learner_in(session, course, f"p{course.id}x{index}") for index in range(4)]
    due = moment("2027-03-08 00:00")
    for who, hours, passed in attempts:
        attempt(session, people[who], exercise(session, 39), due + dt.timedelta(hours=hours),
                "AC" if passed == 4 else "WA", passed=passed, total=4)
    for who, (mode, score) in overridden.items():
        override_score(session, course, people[who], exercise(session, 39), score, "by hand", teacher, mode)
    session.flush()
    ranked = cells(session, course.id)
    summaries = {(row.user_id, row.exercise_id): row
                 for row in session.execute(select(cell_summaries_query(course.id).subquery())).all()}
    assert set(summaries) == set(ranked)
    for key, cell in ranked.items():
        row = summaries[key]
        assert (row.attempts, bool(row.late), row.override) == (cell.attempts, cell.late, cell.override), key
        assert bool(row.override_below) == cell.override_below, key
        assert row.counted == pytest.approx(cell.counted) and row.score == pytest.approx(cell.score), key
