"""The similarity check of a course: what it compares, its pages, API and CSV, and who may see them.

Written against the engine's behaviour, not its numbers: an exact copy and a renamed copy are
flagged at the default threshold, an independent solution is not; the attempt that counts is
compared, not a later, worse one. Every route is the course's instructors' (and admins'): a
learner, an instructor of another course and an outsider get a 404, and a report of one course
is not found under another.
"""

from __future__ import annotations

import csv
import io
import re
import time

import pytest
from sqlalchemy import select

from tests.web.site_client import csrf_token
from tests.web.world import attempt, exercise, learner_in
from web.core.models import Course, SimilarityReport, SimilarityState, Submission, User
from web.services import services
from web.teaching.similarity import Scope, highlighted, report_pairs, run_check, start_check

MAX_WAIT_S = 120

ORIGINAL = '''import torch


def sample(logits, temperature=1.0, top_k=0, generator=None):
    """Draw one token per row from softmax(logits / temperature)."""
    if temperature <= 0:
        return torch.argmax(logits, dim=-1)
    scaled = logits / temperature
    if top_k > 0:
        kth = torch.topk(scaled, top_k, dim=-1).values[..., -1, None]
        scaled = torch.where(scaled < kth, torch.full_like(scaled, float("-inf")), scaled)
    probs = torch.softmax(scaled, dim=-1)
    cumulative = torch.cumsum(probs, dim=-1)
    u = torch.rand(cumulative.shape[:-1] + (1,), generator=generator)
    index = torch.searchsorted(cumulative, u)
    return index.clamp(max=logits.shape[-1] - 1).squeeze(-1)
'''

RENAMED = '''import torch


def sample(scores, temp=1.0, k=0, gen=None):
    # my own sampler
    if temp <= 0:
        return torch.argmax(scores, dim=-1)
    z = scores / temp
    if k > 0:
        cutoff = torch.topk(z, k, dim=-1).values[..., -1, None]
        z = torch.where(z < cutoff, torch.full_like(z, float("-inf")), z)
    p = torch.softmax(z, dim=-1)
    cdf = torch.cumsum(p, dim=-1)
    r = torch.rand(cdf.shape[:-1] + (1,), generator=gen)
    chosen = torch.searchsorted(cdf, r)
    return chosen.clamp(max=scores.shape[-1] - 1).squeeze(-1)
'''

INDEPENDENT = """import math
import random


def sample(logits, temperature=1.0, top_k=0, generator=None):
    rows = logits.tolist()
    picks = []
    for row in rows:
        best, best_key = 0, -math.inf
        for i, value in enumerate(row):
            key = value / max(temperature, 1e-9) - math.log(-math.log(random.random()))
            if key > best_key:
                best, best_key = i, key
        picks.append(best)
    return picks
"""

HOSTILE = ORIGINAL.replace('"""Draw one', '"""</textarea><script>alert(1)</script> Draw one')
PRINT = {"probe-a": "1f", "probe-b": "2e", "probe-c": "3d"}


def _coded(session, learner, number: int, at: str, code: str, verdict: str = "AC", fingerprint=None, **options):
    row = attempt(session, learner, exercise(session, number), at, verdict, **options)
    row.code = code
    if fingerprint is not None:
        row.gradings[0].report_json = {**row.gradings[0].report_json, "fingerprint": fingerprint}
    session.flush()
    return row


def _course_with_copies(world) -> dict[str, int]:
    """Course A's exercise 39: ann's counted attempt is ORIGINAL; dora hands in an exact copy
    (same draws), eve a renamed copy, finn an independent solution; gus's counted attempt is a
    copy, his later, failing one is finn's code. Returns user ids by name."""
    with services(world.app).sessions() as session:
        course = session.get(Course, world.course_id)
        ann = session.scalar(select(User).where(User.name == "ann"))
        ann_ac = session.get(Submission, world.attempts["ann_39_ac"])
        ann_ac.code = ORIGINAL
        ann_ac.gradings[0].report_json = {**ann_ac.gradings[0].report_json, "fingerprint": PRINT}
        people = {name: learner_in(session, course, name) for name in ("dora", "eve", "finn", "gus")}
        _coded(session, people["dora"], 39, "2027-03-04 10:00", ORIGINAL, fingerprint=dict(PRINT))
        _coded(session, people["eve"], 39, "2027-03-04 11:00", RENAMED)
        _coded(session, people["finn"], 39, "2027-03-04 12:00", INDEPENDENT)
        _coded(session, people["gus"], 39, "2027-03-02 12:00", ORIGINAL)
        _coded(session, people["gus"], 39, "2027-03-05 12:00", INDEPENDENT, "WA", passed=1)
        session.commit()
        return {"ann": ann.id, **{name: user.id for name, user in people.items()}}


def _post(client, url: str, data: dict):
    return client.post(url, data={"csrf_token": csrf_token(client, "/profile/"), **data})


def _finished(world, report_id: int) -> SimilarityReport:
    deadline = time.monotonic() + MAX_WAIT_S
    while time.monotonic() < deadline:
        with services(world.app).sessions() as session:
            report = session.get(SimilarityReport, report_id)
            if report.state in (SimilarityState.done, SimilarityState.failed):
                session.expunge(report)
                return report
        time.sleep(0.1)
    raise AssertionError(f"similarity report {report_id} did not finish in {MAX_WAIT_S} s")


def _run(world, role: str = "instructor", scope: str = "exercise:39", threshold: str = "0.5") -> int:
    client = world.client(role)
    response = _post(client, f"/courses/{world.course_id}/similarity", {"scope": scope, "threshold": threshold})
    assert response.status_code == 302, response.get_data(as_text=True)[:300]
    match = re.fullmatch(rf"/courses/{world.course_id}/similarity/(\d+)", response.location)
    assert match, response.location
    report = _finished(world, int(match.group(1)))
    assert report.state is SimilarityState.done, report.error
    return report.id


def _flagged(world, report_id: int) -> set[frozenset[str]]:
    with services(world.app).sessions() as session:
        report = session.get(SimilarityReport, report_id)
        return {frozenset((pair.a_name, pair.b_name)) for pair in report_pairs(session, report)}


def test_copies_are_flagged_and_an_independent_solution_is_not(world):
    _course_with_copies(world)
    report_id = _run(world)
    flagged = _flagged(world, report_id)
    assert frozenset({"ann", "dora"}) in flagged  # an exact copy
    assert frozenset({"ann", "eve"}) in flagged  # a renamed copy
    assert frozenset({"dora", "eve"}) in flagged
    assert not any("finn" in pair for pair in flagged)  # an independent solution
    page = world.client("instructor").get(f"/courses/{world.course_id}/similarity/{report_id}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "ann · dora" in html
    assert re.search(r"identical draws on (\d+) of \1 probes", html)  # ann and dora drew alike
    assert "never a penalty" in html  # evidence, not an accusation


def test_the_counted_attempt_is_compared_not_a_later_worse_one(world):
    _course_with_copies(world)
    flagged = _flagged(world, _run(world))
    assert frozenset({"ann", "gus"}) in flagged  # his counted AC is a copy of ann's
    assert frozenset({"finn", "gus"}) not in flagged  # his later WA (finn's code) does not count


def test_the_latest_attempt_is_compared_when_none_counts(world):
    ids = _course_with_copies(world)
    with services(world.app).sessions() as session:
        hal = learner_in(session, session.get(Course, world.course_id), "hal")
        _coded(session, hal, 39, "2027-03-02 09:00", INDEPENDENT, graded=False)
        _coded(session, hal, 39, "2027-03-03 09:00", ORIGINAL, graded=False)
        session.commit()
    flagged = _flagged(world, _run(world))
    assert frozenset({"ann", "hal"}) in flagged and frozenset({"finn", "hal"}) not in flagged
    assert ids  # the course was built


def test_a_threshold_above_every_pair_shows_none_and_below_the_checks_is_refused(world):
    _course_with_copies(world)
    report_id = _run(world, threshold="0.5")
    client = world.client("instructor")
    url = f"/courses/{world.course_id}/similarity/{report_id}"
    everything = client.get(url, query_string={"threshold": "0.5"}).get_data(as_text=True)
    assert "ann · dora" in everything
    assert client.get(url, query_string={"threshold": "0.3"}).status_code == 400  # below what was kept
    assert client.get(url, query_string={"threshold": "nan"}).status_code == 400
    assert client.get(url, query_string={"threshold": "=1+1"}).status_code == 400


@pytest.mark.parametrize("form", [{"scope": "exercise:999"}, {"scope": "assignment:999999"},
                                  {"scope": "'; drop table"}, {"threshold": "0.01"}, {"threshold": "2"},
                                  {"threshold": "inf"}, {"threshold": "abc"}])
def test_bad_input_is_a_clear_400_and_runs_nothing(world, form):
    client = world.client("instructor")
    response = _post(client, f"/courses/{world.course_id}/similarity", form)
    assert response.status_code == 400
    with services(world.app).sessions() as session:
        assert session.scalar(select(SimilarityReport.id)) is None


def test_a_scope_of_another_course_is_refused(world):
    """Course B's assignment named in course A's form: not this course's, so nothing runs."""
    with services(world.app).sessions() as session:
        other = session.get(Course, world.other_course_id)
        other_assignment = other.assignments[0].id
    response = _post(world.client("instructor"), f"/courses/{world.course_id}/similarity",
                     {"scope": f"assignment:{other_assignment}"})
    assert response.status_code == 400


def test_a_later_run_keeps_the_earlier_one(world):
    _course_with_copies(world)
    first, second = _run(world), _run(world, scope="course", threshold="0.8")
    assert first != second
    with services(world.app).sessions() as session:
        earlier = session.get(SimilarityReport, first)
        assert earlier.state is SimilarityState.done and earlier.results["pairs"]
    listing = world.client("instructor").get(f"/courses/{world.course_id}/similarity").get_data(as_text=True)
    assert f"#{first}" in listing and f"#{second}" in listing


def _routes(world, report_id: int) -> list[str]:
    base = f"/courses/{world.course_id}/similarity"
    return [base, f"{base}/{report_id}", f"{base}/{report_id}.csv", f"{base}/{report_id}/pairs/1"]


def _api_routes(world, report_id: int) -> list[str]:
    base = f"/api/v1/courses/{world.course_id}/similarity"
    return [base, f"{base}/{report_id}", f"{base}/{report_id}.csv"]


@pytest.mark.parametrize("role", ["learner", "other_instructor", "outsider", "learner_elsewhere"])
def test_no_one_but_the_courses_instructors_reaches_any_route(world, role):
    _course_with_copies(world)
    report_id = _run(world)
    client = world.client(role)
    for url in _routes(world, report_id):
        assert client.get(url).status_code == 404, (role, url)
    assert _post(client, f"/courses/{world.course_id}/similarity", {}).status_code == 404
    for url in _api_routes(world, report_id):
        assert world.app.test_client().get(url, headers=world.headers(role)).status_code == 404, (role, url)
    response = world.app.test_client().post(_api_routes(world, report_id)[0], headers=world.headers(role), json={})
    assert response.status_code == 404
    with services(world.app).sessions() as session:
        assert session.scalar(select(SimilarityReport.id).where(SimilarityReport.id != report_id)) is None
    # the positive control: the course's instructor and the admin reach every one
    for allowed in ("instructor", "admin"):
        for url in _routes(world, report_id):
            assert world.client(allowed).get(url).status_code == 200, (allowed, url)


def test_a_report_is_not_found_under_another_course(world):
    """teach_b teaches course B: course A's report, named under B's URL, is a 404 (no leak across courses)."""
    _course_with_copies(world)
    report_id = _run(world)
    client = world.client("other_instructor")
    base = f"/courses/{world.other_course_id}/similarity/{report_id}"
    for url in (base, f"{base}.csv", f"{base}/pairs/1"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert "dora" not in response.get_data(as_text=True)
    api = f"/api/v1/courses/{world.other_course_id}/similarity/{report_id}"
    assert world.app.test_client().get(api, headers=world.headers("other_instructor")).status_code == 404
    listing = world.app.test_client().get(f"/api/v1/courses/{world.other_course_id}/similarity",
                                          headers=world.headers("other_instructor"))
    assert listing.status_code == 200 and listing.get_json()["reports"] == []


def test_learners_pages_never_mention_it(world):
    _course_with_copies(world)
    _run(world)
    client = world.client("learner")
    for url in (f"/courses/{world.course_id}", "/courses/", f"/submissions/{world.attempts['ann_39_ac']}",
                "/exercises/39"):
        html = client.get(url).get_data(as_text=True).lower()
        assert "similar" not in html and "相似" not in html, url


def test_the_csv_escapes_a_formula_looking_name(world):
    _course_with_copies(world)
    with services(world.app).sessions() as session:
        session.scalar(select(User).where(User.name == "dora")).name = "=HYPERLINK(1)"
        session.commit()
    report_id = _run(world)
    response = world.client("instructor").get(f"/courses/{world.course_id}/similarity/{report_id}.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(response.get_data().decode("utf-8-sig"))))
    assert rows[0][:3] == ["rank", "learner_a", "learner_b"]
    names = {cell for row in rows[1:] for cell in row[1:3]}
    assert "'=HYPERLINK(1)" in names and "=HYPERLINK(1)" not in names
    api = world.app.test_client().get(f"/api/v1/courses/{world.course_id}/similarity/{report_id}.csv",
                                      headers=world.headers("instructor"))
    assert api.get_data() == response.get_data()


def test_the_pair_page_escapes_the_code_and_marks_the_fragments(world):
    _course_with_copies(world)
    with services(world.app).sessions() as session:
        session.get(Submission, world.attempts["ann_39_ac"]).code = HOSTILE
        dora = session.scalar(select(User).where(User.name == "dora"))
        session.scalars(select(Submission).where(Submission.user_id == dora.id)).one().code = HOSTILE
        session.commit()
    report_id = _run(world)
    client = world.client("instructor")
    listing = client.get(f"/courses/{world.course_id}/similarity/{report_id}").get_data(as_text=True)
    rank = re.search(r'/pairs/(\d+)">\1</a></td>\s*<td>ann · dora', listing)
    assert rank, listing[:2000]
    page = client.get(f"/courses/{world.course_id}/similarity/{report_id}/pairs/{rank.group(1)}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "<script>alert" not in html and "</textarea><script>" not in html
    assert "&lt;/textarea&gt;&lt;script&gt;" in html
    assert "<mark>" in html
    assert f"/submissions/{world.attempts['ann_39_ac']}" in html  # links to both submissions
    assert client.get(f"/courses/{world.course_id}/similarity/{report_id}/pairs/999").status_code == 404


def test_highlighting_escapes_everything_and_merges_spans():
    assert highlighted("<a>&b", [(0, 3), (2, 4), (10, 20), (4, 2)]) == "<mark>&lt;a&gt;&amp;</mark>b"
    assert highlighted("x<y", []) == "x&lt;y"


def test_the_api_runs_lists_and_reads_a_check(world):
    _course_with_copies(world)
    client, headers = world.app.test_client(), world.headers("instructor")
    base = f"/api/v1/courses/{world.course_id}/similarity"
    assert client.post(base, headers=headers, json={"threshold": "high"}).status_code == 400
    assert client.post(base, headers=headers, json={"threshold": True}).status_code == 400
    started = client.post(base, headers=headers, json={"scope": "exercise:39", "threshold": 0.5})
    assert started.status_code == 202, started.get_json()
    report_id = started.get_json()["id"]
    _finished(world, report_id)
    body = client.get(f"{base}/{report_id}", headers=headers).get_json()
    assert body["state"] == "done"
    names = {frozenset((pair["a"]["name"], pair["b"]["name"])) for pair in body["pairs"]}
    assert frozenset({"ann", "dora"}) in names and not any("finn" in pair for pair in names)
    ann_dora = next(pair for pair in body["pairs"] if {pair["a"]["name"], pair["b"]["name"]} == {"ann", "dora"})
    behaviour = ann_dora["exercises"][0]["behaviour"]
    assert behaviour is not None and behaviour["identical"] == behaviour["compared"] > 0
    assert any({"ann", "dora", "eve"} <= set(group) for group in body["clusters"])
    listed = client.get(base, headers=headers).get_json()["reports"]
    assert [report["id"] for report in listed] == [report_id]


def test_a_failure_is_stored_not_lost(world, monkeypatch):
    """An engine that raises leaves a failed report that says why, and the page says so (no 500)."""
    import web.teaching.similarity as similarity

    def broken(*args, **kwargs):
        raise RuntimeError("engine down")

    monkeypatch.setattr(similarity, "compare_sources", broken)
    _course_with_copies(world)
    with services(world.app).sessions() as session:
        course = session.get(Course, world.course_id)
        teacher = session.scalar(select(User).where(User.name == "teach_a"))
        report_id = start_check(session, course, Scope(), 0.5, teacher).id
    run_check(services(world.app).sessions, report_id)
    report = _finished(world, report_id)
    assert report.state is SimilarityState.failed and "engine down" in report.error
    page = world.client("instructor").get(f"/courses/{world.course_id}/similarity/{report_id}")
    assert page.status_code == 200 and "engine down" in page.get_data(as_text=True)


def test_a_check_a_stopped_site_left_running_reads_as_interrupted(world):
    """Its thread died with the site: after an hour the page stops reloading and says to run it again."""
    import datetime as dt

    with services(world.app).sessions() as session:
        course = session.get(Course, world.course_id)
        teacher = session.scalar(select(User).where(User.name == "teach_a"))
        report = start_check(session, course, Scope(), 0.5, teacher)
        report.state = SimilarityState.running
        report.created_at = report.created_at - dt.timedelta(hours=2)
        session.commit()
        report_id = report.id
    html = world.client("instructor").get(f"/courses/{world.course_id}/similarity/{report_id}").get_data(as_text=True)
    assert 'id="similarity-stopped"' in html and 'http-equiv="refresh"' not in html
    body = world.app.test_client().get(f"/api/v1/courses/{world.course_id}/similarity/{report_id}",
                                       headers=world.headers("instructor")).get_json()
    assert body["state"] == "interrupted"
