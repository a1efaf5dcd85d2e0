"""The exercise page hands its editor the learner's own latest attempt (to offer when there is no draft)."""

from __future__ import annotations

import json
import re
from html import unescape

from site_client import sign_up, submit

from judge.exercises.exercise import resolve

STARTER = resolve("39").starter_path.read_text()


def _latest(html: str) -> dict | None:
    found = re.search(r'<script type="application/json" id="latest-submission">(.*?)</script>', html, re.S)
    return json.loads(unescape(found.group(1))) if found else None


def test_the_page_offers_the_learners_own_newest_attempt_and_nobody_elses(make_site):
    app = make_site(start_workers=False)
    ann, ben = app.test_client(), app.test_client()
    sign_up(ann, "ann")
    sign_up(ben, "ben")
    assert _latest(ann.get("/exercises/39").get_data(as_text=True)) is None  # no attempt yet: nothing to offer
    submit(ann, "print('first')\n")
    newest = submit(ann, "print('</script><b>second</b>')\n").location
    offered = _latest(ann.get("/exercises/39?lang=en").get_data(as_text=True))
    assert offered["id"] == int(newest.rsplit("/", 1)[1]) and offered["code"] == "print('</script><b>second</b>')\n"
    assert offered["verdict"] == "Queued" and offered["created_at"].endswith(":00+00:00")  # to the minute
    assert _latest(ben.get("/exercises/39").get_data(as_text=True)) is None  # ann's code is ann's alone
    assert _latest(app.test_client().get("/exercises/39").get_data(as_text=True)) is None  # signed out
