"""On a phone (390×844) no page of the site scrolls sideways: wide tables scroll in their own box,
long words, links and code wrap; and each page passes the accessibility checker at that width too
(a table's scrolling box must be reachable by keyboard and named). One browser context walks every
page of a small course world as a visitor, a learner and the course's instructor."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest
from browser_support import PASSWORD, accessibility_violations, sideways_overflow
from playwright.sync_api import Page, expect

from tests.web.world import attempt, exercise
from web.accounts.users import create_user
from web.core.models import Rejudge, RejudgeScope, Role
from web.services import services
from web.teaching.courses import create_course, enroll, save_assignment

SHOTS = os.environ.get("PROBJUDGE_MOBILE_SHOTS")  # a folder: a picture of each page, to look at
WIDTH = 390
# Long unbroken text a learner or an instructor may type: it must wrap, not widen the page.
LONG_WORD = "https://example.org/" + "a-very-long-path-segment" * 6


@dataclass
class World:
    course: int
    assignment: int
    ann: int
    wrong: int
    right: int
    rejudge: int


def _world(app) -> World:
    """A course in Berlin taught by teach_a with one assignment (1 and 39, its title one long
    word) and its learner ann,
    who tried 39 twice (WA, then AC); one rejudge of the assignment."""
    with services(app).sessions() as session:
        teacher = create_user(session, "teach_a", PASSWORD, role=Role.instructor)
        ann = create_user(session, "ann", PASSWORD)
        course = create_course(session, teacher, "Sampling 101 with a rather long course name", "Europe/Berlin")
        work = save_assignment(session, course, title=LONG_WORD, exercises=[1, 39], opens_at="2026-01-01T00:00Z",
                               due_at="2099-01-01T00:00Z")
        enroll(session, course, ann)
        session.flush()
        wrong = attempt(session, ann, exercise(session, 39), "2026-03-02 10:00", "WA", passed=4)
        right = attempt(session, ann, exercise(session, 39), "2026-03-03 10:00", "AC")
        rejudge = Rejudge(scope=RejudgeScope.assignment, course_id=course.id, assignment_id=work.id)
        session.add(rejudge)
        session.commit()
        return World(course.id, work.id, ann.id, wrong.id, right.id, rejudge.id)


def _sign_in(page: Page, name: str) -> None:
    page.goto("/auth/sign-in")
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()


def _problems(page: Page, url: str) -> list[str]:
    """What is wrong with ``url`` on a phone: how wide it is when the page is wider than the
    screen, and each accessibility violation at this width, each line naming the page."""
    page.goto(url)
    page.wait_for_load_state("networkidle")
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{url.strip('/').replace('/', '_').replace('?', '_') or 'home'}.png",
                        full_page=True)
    problems = [f"{url}: {violation}" for violation in accessibility_violations(page)]
    return [f"{url}: {line}" for line in sideways_overflow(page)] + problems


@pytest.mark.audit
def test_no_page_scrolls_sideways_on_a_phone(page: Page, served_site):
    world = _world(served_site.app)
    page.set_viewport_size({"width": WIDTH, "height": 844})
    course = f"/courses/{world.course}"
    submission = f"/submissions/{world.wrong}"
    problems = [line for url in ("/auth/sign-in", "/auth/sign-up") for line in _problems(page, url)]

    _sign_in(page, "ann")
    problems += [line for url in (
        "/", "/exercises/", "/exercises/39", "/exercises/39?lang=zh", "/exercises/39/submissions", submission,
        "/courses/", course, "/profile/") for line in _problems(page, url)]
    page.goto("/?lang=en")  # back to English for the sign-in form's labels
    page.get_by_role("button", name="Sign out").click()

    _sign_in(page, "teach_a")
    problems += [line for url in (
        course, f"{course}/assignments/{world.assignment}", f"{course}/gradebook", f"{course}/submissions",
        f"{course}/analytics", f"{course}/analytics?exercise=39", f"{course}/rejudges",
        f"{course}/rejudge/confirm?target=exercise:39", f"/rejudges/{world.rejudge}", submission,
        f"/submissions/{world.wrong}/diff/{world.right}", f"{course}/gradebook/{world.ann}/39")
        for line in _problems(page, url)]
    assert problems == [], "\n".join(problems)


def test_the_sideways_check_names_what_is_too_wide(page: Page, served_site):
    """The check above can fail: a 600 px box in a 390 px page is named, with its right edge."""
    page.set_viewport_size({"width": WIDTH, "height": 844})
    page.goto("/auth/sign-in")
    assert sideways_overflow(page) == []
    page.evaluate("document.querySelector('main').insertAdjacentHTML('beforeend', "
                  "'<div id=\"too-wide\" class=\"box\" style=\"width: 600px\">wide</div>')")
    found = sideways_overflow(page)
    assert found[0].startswith("page ") and "390 px viewport" in found[0]
    assert any(line.startswith("div#too-wide.box to ") for line in found[1:]), found
