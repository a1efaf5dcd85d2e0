"""The gradebook in a real browser: an instructor sees a "replace" override flagged below the
computed score, sets an "at least" override on another cell and removes it, and the gradebook
and the cell page fit a 390 px phone (the table scrolls in its own box, the page never sideways);
an empty course's gradebook says what to do next.

The course is built straight in the database (no grading runs): the pages are what is tested.
Every page passes axe-core. With ``PROBJUDGE_SCREENSHOTS=1`` the run refreshes
docs/screenshots/gradebook.png (at 1280x800).
"""

from __future__ import annotations

import pytest
from browser_support import PASSWORD, ServedSite, accessibility_violations, shoot, sideways_overflow
from playwright.sync_api import expect

from tests.web.world import attempt, exercise
from web.accounts.users import create_user
from web.core.models import Role
from web.services import services
from web.teaching.courses import create_course, enroll, override_score, save_assignment


def build_course(site: ServedSite) -> tuple[int, dict[str, int], int]:
    """iris teaches "Probability 101" (exercises 1 and 39); ann has 30 % on 39, bob 70 % under
    iris's "replace" 50 % (set before a rejudge raised it, say), cy 100 % on 1; dan never tried.
    And "Empty", with no learner and no assignment. Returns the ids of both courses and the people."""
    with services(site.app).sessions() as session:
        iris = create_user(session, "iris", PASSWORD, role=Role.instructor)
        course = create_course(session, iris, "Probability 101", "Europe/Berlin")
        save_assignment(session, course, title="Week 1", exercises=[1, 39], opens_at="2027-03-01T00:00Z",
                        due_at="2027-03-08T00:00Z")
        people = {}
        for name in ("ann", "bob", "cy", "dan"):
            people[name] = create_user(session, name, PASSWORD)
            enroll(session, course, people[name])
        session.flush()
        one, thirty_nine = exercise(session, 1), exercise(session, 39)
        attempt(session, people["ann"], thirty_nine, "2027-03-02 10:00", "WA", passed=3)
        attempt(session, people["bob"], thirty_nine, "2027-03-02 10:00", "WA", passed=7)
        attempt(session, people["cy"], one, "2027-03-03 10:00", "AC")
        override_score(session, course, people["bob"], thirty_nine, 0.5, "oral exam", iris, "replace")
        empty = create_course(session, iris, "Empty", "Europe/Berlin")
        session.commit()
        return course.id, {name: row.id for name, row in people.items()}, empty.id


@pytest.mark.audit
def test_an_instructor_floors_a_score_removes_it_and_sees_an_override_below_the_computed_one(page, served_site):
    course, people, empty = build_course(served_site)
    page.set_viewport_size({"width": 1280, "height": 800})  # the size of the pictures in docs/
    page.goto("/auth/sign-in")
    page.get_by_label("User name").fill("iris")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()

    # The gradebook flags bob's "replace" 50 % under his computed 70 %, and counts it at the top.
    page.goto(f"/courses/{course}/gradebook")
    expect(page.locator("#overrides-below")).to_contain_text("1 override is below the computed score")
    bob = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="bob", exact=True))
    expect(bob.locator(".override-below")).to_have_text("override below the computed score")
    expect(page.locator("thead")).to_contain_text(exercise_title(served_site, 39))
    page.wait_for_load_state("networkidle")
    assert accessibility_violations(page) == [], "gradebook"
    shoot(page, "gradebook.png")

    # ann's 39: computed 30 %; "at least 60 %" counts 60 %; removing it gives back 30 %.
    page.goto(f"/courses/{course}/gradebook/{people['ann']}/39")
    page.get_by_label("Score (% of the exercise's point)").fill("60")
    page.get_by_label("At least: the better of this and the computed score").check()
    page.get_by_label("Comment (the learner reads it)").fill("floor after the oral exam")
    page.get_by_role("button", name="Set the score").click()
    expect(page.locator("#cell-score")).to_have_text("60%")
    expect(page.locator("#override-in-force")).to_contain_text("60% (at least), set by iris")
    page.wait_for_load_state("networkidle")
    assert accessibility_violations(page) == [], "cell page with an override in force"
    page.get_by_role("button", name="Remove the override").click()
    expect(page.locator("#cell-score")).to_have_text("30%")
    expect(page.get_by_role("button", name="Remove the override")).to_have_count(0)

    # On a phone: the page never scrolls sideways; the gradebook's table scrolls in its own box.
    page.set_viewport_size({"width": 390, "height": 844})
    assert sideways_overflow(page) == [], "cell page at 390 px"
    page.goto(f"/courses/{course}/gradebook")
    assert sideways_overflow(page) == [], "gradebook at 390 px"
    assert page.locator(".table-scroll").evaluate("box => box.scrollWidth > box.clientWidth")

    # An empty course says what to do next: share the join code, invite, create an assignment.
    page.goto(f"/courses/{empty}/gradebook")
    expect(page.locator("#no-learners")).to_contain_text("Give them the join code")
    expect(page.get_by_role("link", name="Create an assignment")).to_be_visible()
    assert sideways_overflow(page) == [], "empty gradebook at 390 px"
    page.wait_for_load_state("networkidle")
    assert accessibility_violations(page) == [], "empty gradebook"
    assert page.console_errors == []


def exercise_title(site: ServedSite, number: int) -> str:
    with services(site.app).sessions() as session:
        return exercise(session, number).title_en
