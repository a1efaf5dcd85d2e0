"""A learner meets a deadline in a real browser: the exercise page names the assignment, its due
time and late policy; a late submit asks first and keeps the code; confirmed, the submission
page says how late it was and what it counts for. axe-core passes on each page."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from browser_support import ServedSite, accessibility_violations, sign_up, type_into_editor
from playwright.sync_api import expect
from sqlalchemy import select

from web.accounts.users import create_user
from web.core.models import Role, User, utcnow
from web.services import services
from web.teaching.courses import create_course, enroll, save_assignment

CODE = "def flip(p, n, generator=None):\n    return [0] * n  # late, but mine\n"


def _late_course(site: ServedSite, learner: str) -> None:
    """A course (Europe/Berlin) whose assignment of exercise 1 closed an hour ago, late work
    losing 10 % a started day, with ``learner`` enrolled."""
    now = utcnow().replace(microsecond=0)
    with services(site.app).sessions() as session:
        teacher = create_user(session, "tess", "password123", role=Role.instructor)
        course = create_course(session, teacher, "Sampling 101", "Europe/Berlin")
        save_assignment(session, course, title="Week 1", exercises=[1],
                        opens_at=(now - dt.timedelta(days=3)).isoformat(),
                        due_at=(now - dt.timedelta(hours=1)).isoformat(),
                        late_policy="penalty", penalty_per_day=0.1)
        enroll(session, course, session.scalar(select(User).where(User.name == learner)))
        session.commit()


@pytest.mark.audit
def test_a_late_submit_is_confirmed_then_reported_late_on_the_submission_page(page, served_site):
    sign_up(page, "lea")
    _late_course(served_site, "lea")
    page.goto("/exercises/1")
    deadlines = page.locator("#deadlines")
    expect(deadlines).to_contain_text("Sampling 101")
    expect(deadlines).to_contain_text(re.compile(r"due \d{4}-\d\d-\d\d \d\d:\d\d:\d\d CES?T \(UTC\+0[12]:00\)"))
    expect(deadlines).to_contain_text(re.compile(r"closed 1 h( \d+ min)? ago"))
    expect(deadlines).to_contain_text("up to 1 day late counts 90 %")
    assert accessibility_violations(page) == [], "exercise page with deadlines"
    type_into_editor(page, CODE)
    page.get_by_role("button", name="Submit", exact=True).click()
    warning = page.locator("#late-warning")
    expect(warning).to_contain_text("it will count 90 % of its score. Submit anyway?")
    expect(page.locator(".cm-content")).to_contain_text("late, but mine")  # the code is kept
    assert accessibility_violations(page) == [], "late warning"
    page.get_by_role("button", name="Submit anyway").click()
    page.wait_for_url(re.compile(r"/submissions/\d+$"))
    expect(page.locator("#lateness")).to_contain_text(re.compile(r"late by 1 h( \d+ min)?, counted 90 %"))
    page.wait_for_load_state("networkidle")
    assert accessibility_violations(page) == [], "submission page with lateness"
