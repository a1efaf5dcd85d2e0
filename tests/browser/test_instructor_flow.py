"""The instructor's side in a real browser, end to end: an instructor creates a course and an
assignment, a learner joins with the code and submits, and the instructor reads the gradebook,
sees the analytics chart drawn, downloads the CSV, opens a learner's submission within the course,
and rejudges the exercise (after a confirmation with its count), then finds it among the course's
past rejudges.

Every course page on the way passes axe-core (WCAG 2 A/AA and best practice). With
``PROBJUDGE_SCREENSHOTS=1`` the run refreshes docs/screenshots/rejudge.png (at 1280x800;
analytics.png and gradebook.png come from test_analytics_page.py and test_gradebook_page.py,
whose classes have more to show).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from zoneinfo import ZoneInfo

import pytest
from browser_support import PASSWORD, ROOT, ServedSite, accessibility_violations, shoot, sign_up, type_into_editor
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from judge.exercises.exercise import resolve
from web.accounts.users import create_user
from web.core.models import Role
from web.services import services

EXERCISE = resolve("1")  # the smallest exercise: a few seconds to judge
REFERENCE = EXERCISE.reference_path.read_text()
TITLE = EXERCISE.title("en")
INVERTED = (ROOT / "solutions" / "001-weighted-coin" / "wrong" / "inverted.py").read_text()
INVERTED_DIAGNOSIS = "the sides are swapped"
TIME_ZONE = "Europe/Berlin"
VERDICT_TIMEOUT_MS = 120_000
INSTRUCTOR, LEARNER = "iris", "lea"


def add_instructor(site: ServedSite, name: str) -> None:
    """An account with the site role instructor (no page makes one: the admin's command does)."""
    with services(site.app).sessions() as session:
        create_user(session, name, PASSWORD, role=Role.instructor)
        session.commit()


def sign_in(page: Page, name: str) -> None:
    page.goto("/auth/sign-in")
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()


def sign_out(page: Page) -> None:
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("button", name="Sign out")).to_have_count(0)


def assert_accessible(page: Page, what: str) -> None:
    page.wait_for_load_state("networkidle")
    assert accessibility_violations(page) == [], what


def create_course(page: Page, name: str) -> tuple[str, str]:
    """Create ``name`` from the courses page; its home's path and join code."""
    page.goto("/courses/")
    page.get_by_label("Course name").fill(name)
    page.get_by_label("Time zone").select_option(TIME_ZONE)
    page.get_by_role("button", name="Create a course").click()
    page.wait_for_url(re.compile(r"/courses/\d+$"))
    expect(page.get_by_role("heading", level=1, name=name)).to_be_visible()
    code = page.locator("#join-code").inner_text().strip()
    expect(page.get_by_text(f"Learners join it with the code {code}.")).to_be_visible()
    home = re.search(r"/courses/\d+$", page.url)
    assert home is not None, page.url
    return home.group(), code


def wall_clock(moment: dt.datetime) -> str:
    """``moment`` as a ``datetime-local`` input takes it: the course's wall-clock time, to the minute."""
    return f"{moment.astimezone(ZoneInfo(TIME_ZONE)):%Y-%m-%dT%H:%M}"


def create_assignment(page: Page, course: str, title: str, opens: dt.datetime, due: dt.datetime) -> None:
    page.goto(f"{course}/assignments/new")
    assert_accessible(page, "new assignment form")
    page.get_by_label("Title").fill(title)
    page.get_by_role("checkbox", name=f"{EXERCISE.number}. {TITLE}").check()
    page.get_by_label(f"Opens ({TIME_ZONE})", exact=True).fill(wall_clock(opens))  # the labels name the zone
    page.get_by_label(f"Due ({TIME_ZONE})", exact=True).fill(wall_clock(due))
    page.get_by_role("button", name="Save the assignment").click()
    expect(page.get_by_text(f"Assignment {title} saved.")).to_be_visible()
    assert_accessible(page, "saved assignment form")


def submit(page: Page, code: str, verdict: str) -> None:
    """Submit ``code`` to the exercise from its page's editor and wait for ``verdict``."""
    page.goto(f"/exercises/{EXERCISE.number}")
    type_into_editor(page, code)
    page.get_by_role("button", name="Submit").click()
    page.wait_for_url(re.compile(r"/submissions/\d+$"))
    expect(page.locator(f"#result .verdict-line .v-{verdict}")).to_be_visible(timeout=VERDICT_TIMEOUT_MS)


def charts_drawn(page: Page) -> list[dict]:
    """Each chart of the page: its accessible name, its Chart.js type and how many pixels it painted."""
    page.wait_for_function(
        "() => [...document.querySelectorAll('canvas[data-chart]')].every(c => c.getAttribute('role') === 'img')"
    )
    # Chart.js paints on a later animation frame, later still on a busy machine: wait for paint
    # (at most 20 s), then read what is there, so a chart that never paints still fails below.
    try:
        page.wait_for_function("""() => [...document.querySelectorAll('canvas[data-chart]')].every(canvas => {
            const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) return true;
            return false;
        })""", timeout=20_000)
    except PlaywrightTimeout:
        pass
    return page.evaluate("""async () => {
        const { Chart } = await import('/static/build/charts.js');
        return [...document.querySelectorAll('canvas[data-chart]')].map(canvas => {
            const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            let painted = 0;
            for (let i = 3; i < pixels.length; i += 4) painted += pixels[i] > 0;
            const chart = Chart.getChart(canvas);
            return {id: canvas.dataset.chart, label: canvas.getAttribute('aria-label'),
                    type: chart ? chart.config.type : null, painted};
        });
    }""")


@pytest.mark.audit
def test_an_instructor_runs_a_course_from_creation_to_rejudge(page, served_site):
    page.set_viewport_size({"width": 1280, "height": 800})  # the size of the pictures in docs/
    add_instructor(served_site, INSTRUCTOR)
    now = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)
    opens, due = now - dt.timedelta(days=1), now + dt.timedelta(days=7)

    # The instructor creates the course and an assignment, typed in the course's time zone.
    sign_in(page, INSTRUCTOR)
    course, join_code = create_course(page, "Probability 101")
    create_assignment(page, course, "Week 1", opens, due)
    page.goto(course)
    berlin_due = due.astimezone(ZoneInfo(TIME_ZONE))
    assignment = page.get_by_role("row", name=re.compile("Week 1"))
    expect(assignment).to_contain_text(f"{berlin_due:%Y-%m-%d %H:%M:%S} {berlin_due.tzname()}")
    assert_accessible(page, "course home (instructor)")
    sign_out(page)

    # A learner signs up, joins with the code, makes a named mistake, then gets it right.
    sign_up(page, LEARNER)
    page.goto("/courses/")
    assert_accessible(page, "courses page (learner)")
    page.get_by_label("Join code").fill(join_code)
    page.get_by_role("button", name="Join a course").click()
    expect(page.get_by_text("You joined Probability 101.")).to_be_visible()
    submit(page, INVERTED, "WA")
    expect(page.locator("#result .diagnosis").first).to_contain_text(INVERTED_DIAGNOSIS)
    submit(page, REFERENCE, "AC")
    page.goto(course)
    expect(page.get_by_role("row", name=re.compile(TITLE))).to_contain_text("100%")
    assert_accessible(page, "course home (learner)")
    sign_out(page)

    # The instructor reads the gradebook: the learner's counted verdict and score.
    sign_in(page, INSTRUCTOR)
    page.goto(course)
    page.get_by_role("navigation", name="Course pages").get_by_role("link", name="Gradebook").click()
    page.wait_for_url(f"**{course}/gradebook")
    learner_row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name=LEARNER, exact=True))
    expect(learner_row.locator(".verdict.v-AC")).to_be_visible()
    expect(learner_row).to_contain_text("100%")
    expect(learner_row).to_contain_text("2×")  # both attempts count: they came after the assignment opened
    assert_accessible(page, "gradebook")

    # ... downloads it as CSV: one row per learner, one column per exercise.
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the gradebook (CSV)").click()
    assert download.value.suggested_filename.endswith(".csv")
    rows = list(csv.DictReader(io.StringIO(download.value.path().read_text(encoding="utf-8-sig"))))
    assert [row["learner"] for row in rows] == [LEARNER], rows
    column = f"ex{EXERCISE.number}"
    assert (rows[0][column], rows[0][f"{column}_late"], rows[0]["total"]) == ("1", "0", "1"), rows[0]

    # ... sees the analytics of the exercise drawn, the learner's named mistake among the diagnoses.
    page.goto(f"{course}/analytics?exercise={EXERCISE.number}")
    charts = charts_drawn(page)
    assert charts and all(chart["type"] and chart["label"] and chart["painted"] > 0 for chart in charts), charts
    mistake = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name=re.compile(INVERTED_DIAGNOSIS)))
    expect(mistake).to_contain_text(LEARNER)  # the learners behind it
    assert_accessible(page, "analytics of exercise 1")

    # ... finds both attempts among the course's submissions.
    page.get_by_role("navigation", name="Course pages").get_by_role("link", name="All submissions").click()
    expect(page.get_by_role("row").filter(has=page.get_by_role("cell", name=LEARNER, exact=True))).to_have_count(2)
    assert_accessible(page, "all submissions")

    # ... opens one: the learner's view within the course, their attempts (not the instructor's).
    page.get_by_role("row").filter(has=page.get_by_role("cell", name=LEARNER, exact=True)).first.get_by_role(
        "link", name=re.compile(r"^#\d+$")).click()
    crumbs = page.get_by_role("navigation", name="Where you are")
    expect(crumbs.get_by_role("link")).to_have_text(["Probability 101", "All submissions", LEARNER,
                                                      re.compile(r"^#\d+$")])
    expect(page.locator("#learner-attempts tbody tr")).to_have_count(2)
    expect(page.get_by_role("link", name="results.json")).to_be_visible()
    assert_accessible(page, "the instructor's view of a submission")

    # ... and rejudges the exercise within the course: asked first with its count, then fresh
    # gradings of both attempts, old ones kept.
    page.goto(course)
    page.get_by_label("What to rejudge").select_option(label=f"exercise {EXERCISE.number}. {TITLE}")
    page.get_by_role("button", name="Start the rejudge").click()
    expect(page.locator("#rejudge-question")).to_have_text(
        "Rejudge 2 submissions of 1 learner? This re-runs their grading; verdicts may change.")
    assert_accessible(page, "rejudge confirmation")
    page.get_by_role("button", name="Yes, rejudge 2").click()
    page.wait_for_url(re.compile(r"/rejudges/\d+$"))
    # The page refreshes itself until both are done.
    expect(page.locator("#rejudge-counts")).to_contain_text("0 queued, 0 running, 2 done", timeout=VERDICT_TIMEOUT_MS)
    changes = page.get_by_role("row").filter(has=page.get_by_role("cell", name=LEARNER, exact=True))
    expect(changes).to_have_count(2)
    expect(changes.filter(has=page.locator(".verdict.v-WA"))).to_have_count(1)
    expect(changes.filter(has=page.locator(".verdict.v-AC"))).to_have_count(1)
    assert_accessible(page, "rejudge result")
    shoot(page, "rejudge.png")
    page.get_by_role("navigation", name="Course pages").get_by_role("link", name="Rejudges").click()
    past = page.get_by_role("row", name=re.compile(f"exercise {EXERCISE.number} in Probability 101"))
    expect(past).to_have_count(1)
    expect(past).to_contain_text(INSTRUCTOR)
    expect(past).to_contain_text("finished")
    assert_accessible(page, "the course's rejudges")
    assert page.console_errors == []
