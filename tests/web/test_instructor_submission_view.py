"""The instructor's view of a learner's submission keeps the course: breadcrumbs, the learner's
name, the learner's attempts at the exercise in that course (never the viewer's own), each
with its late flag and counted score, and a link to the submission's results.json."""

from __future__ import annotations

import re

from sqlalchemy import select

from tests.web.world import attempt, build_world, exercise
from web.core.models import Course, User
from web.services import services


def _world(make_site):
    world = build_world(make_site(start_workers=False))
    with services(world.app).sessions() as session:
        teacher = session.scalar(select(User).where(User.name == "teach_a"))
        course = session.get(Course, world.course_id)
        # The instructor's own tries at 39, practice and (oddly) made for the course: neither is ann's.
        world.attempts["teach_practice"] = attempt(session, teacher, exercise(session, 39), "2027-03-02 11:00",
                                                   course=None).id
        world.attempts["teach_course"] = attempt(session, teacher, exercise(session, 39), "2027-03-02 12:00",
                                                 course=course).id
        session.commit()
    return world


def _attempt_ids(html: str) -> list[int]:
    section = html[html.index('id="learner-attempts"'):]
    section = section[:section.index("</table>")]
    cell = r'<td>(?:<strong aria-current="page">|<a href="/submissions/\d+">)#(\d+)'
    return [int(number) for number in re.findall(cell, section)]


def test_the_instructor_sees_the_learners_attempts_not_their_own(make_site):
    world = _world(make_site)
    ids = world.attempts
    html = world.client("instructor").get(f"/submissions/{ids['ann_39_ac']}?lang=en").get_data(as_text=True)
    assert _attempt_ids(html) == [ids["ann_39_wa"], ids["ann_39_ac"]]  # oldest first; not teach_a's, not Bobby's
    assert "ann&#39;s attempts at this exercise" in html
    assert 'href="/exercises/39/submissions"' not in html  # that list is the viewer's own attempts
    assert f'<strong aria-current="page">#{ids["ann_39_ac"]}</strong>' in html
    assert f"<h1>Submission #{ids['ann_39_ac']} · ann</h1>" in html
    own = world.client("learner").get(f"/submissions/{ids['ann_39_ac']}?lang=en").get_data(as_text=True)
    assert 'id="learner-attempts"' not in own and 'href="/exercises/39/submissions"' in own  # the author's view


def test_the_breadcrumbs_lead_back_through_the_course(make_site):
    world = _world(make_site)
    submission = world.attempts["bob_39_wa"]
    html = world.client("instructor").get(f"/submissions/{submission}?lang=en").get_data(as_text=True)
    crumbs = html[html.index('class="breadcrumbs"'):]
    crumbs = crumbs[:crumbs.index("</nav>")]
    assert re.findall(r'<a (?:aria-current="page" )?href="([^"]+)">([^<]+)</a>', crumbs) == [
        (f"/courses/{world.course_id}", "Sampling 101"),
        (f"/courses/{world.course_id}/submissions", "All submissions"),
        (f"/courses/{world.course_id}/submissions?user=Bobby", "Bobby"),
        (f"/submissions/{submission}", f"#{submission}"),
    ]
    assert 'aria-label="Where you are"' in html
    learner = world.client("learner").get(f"/submissions/{world.attempts['ann_39_ac']}").get_data(as_text=True)
    assert 'class="breadcrumbs"' not in learner


def test_the_late_flag_and_the_counted_score(make_site):
    world = _world(make_site)
    html = world.client("instructor").get(f"/submissions/{world.attempts['ann_1_late']}?lang=en").get_data(
        as_text=True)
    section = html[html.index('id="learner-attempts"'):]
    body = section[section.index("<tbody>"):]
    row = body[:body.index("</tr>")]
    assert '<strong class="late-flag">late</strong>' in row and "counts for nothing" in row  # not accepted late
    on_time = world.client("instructor").get(f"/submissions/{world.attempts['ann_39_wa']}?lang=en").get_data(
        as_text=True)
    section = on_time[on_time.index('id="learner-attempts"'):]
    assert ">40 %</td>" in section and ">100 %</td>" in section and "late-flag" not in section  # 4/10 and 10/10


def test_the_results_json_link_works_for_the_signed_in_instructor(make_site):
    world = _world(make_site)
    submission = world.attempts["ann_39_wa"]
    client = world.client("instructor")
    html = client.get(f"/submissions/{submission}").get_data(as_text=True)
    assert f'id="results-json" href="/submissions/{submission}/results.json"' in html
    document = client.get(f"/submissions/{submission}/results.json")
    assert document.status_code == 200 and document.mimetype == "application/json"
    api = client.get(f"/api/v1/submissions/{submission}/results.json", headers=world.headers("instructor")).json
    assert document.json == api  # the same export as the API's
    assert world.client("learner_elsewhere").get(f"/submissions/{submission}/results.json").status_code == 404
    with services(world.app).sessions() as session:  # not graded yet: no result to link to
        ann = session.scalar(select(User).where(User.name == "ann"))
        waiting = attempt(session, ann, exercise(session, 39), "2027-03-04 10:00", graded=False).id
        session.commit()
    assert 'id="results-json"' not in client.get(f"/submissions/{waiting}").get_data(as_text=True)
