"""A stored report as the pages and the API show it: a failed hidden case by its rule, never its
message; the seed to instructors only, a run id to learners. Pages and API alike."""

from __future__ import annotations

import pytest
from markupsafe import escape
from site_client import build_url, rules, sign_in
from sqlalchemy import select

from tests.web.world import store_graded
from web.core.models import ApiToken, Exercise, Role, Submission, User
from web.services import services

SEED = 4503599627370497
CASE_SEEDS = (1234567890123457, 2345678901234567, 3456789012345679)
HIDDEN_MESSAGE = "token 4 was drawn 2016 of 16000 times; it is outside the top_k=4"
RULE = "sample with per-row parameters, row 7 (-inf logits and a tie at the top-k cut): the draws do not follow the target distribution"
RULE_ZH = "按行给参数的 sample，第 7 行（-inf logits，top-k 截断处有并列）：抽出的 token 不服从目标分布"
PASSED_RULE = "a rule a passed case has no business showing"
# The behavioural fingerprint the site stores with each grading (docs/similarity-behaviour.md):
# for the instructors' similarity pages, never for the learner. Its hashes are the secret; the
# probes' names and inputs are public (exercise.toml, which the browser receives).
FINGERPRINT = {"three_coins": "5f1a9e0c7d2b4e68", "one_coin_many_flips": "c0ffee15deadbeef"}
TITLE, TITLE_ZH = "sample: eight rows follow their distributions", "sample：八行各自服从其分布"
PAGES = ("/submissions/{id}", "/submissions/{id}/result")
EVERY_VIEW = (*PAGES, "/api/v1/submissions/{id}")


def _report(rule: dict) -> dict:
    cases = [
        {"name": "softmax", "suite": "public", "title": "softmax", "title_zh": "softmax", "verdict": "AC",
         "message": "", "time_ms": 2.0, "seed": CASE_SEEDS[0], "statistic": None, "p_value": None,
         "diagnosis": None, "diagnosis_zh": None, "checks": [], "sandbox": "local", "rule": "", "rule_zh": ""},
        {"name": "sample_mixed_rows", "suite": "hidden", "title": TITLE, "title_zh": TITLE_ZH, "verdict": "WA",
         "message": HIDDEN_MESSAGE, "time_ms": 63.0, "seed": CASE_SEEDS[1], "statistic": 99.5, "p_value": 1e-12,
         "diagnosis": None, "diagnosis_zh": None, "sandbox": "local",
         "checks": [{"kind": "fit", "label": "row 7 (top_k=4)", "statistic": 99.5, "p_value": 1e-12,
                     "alpha": 1e-9, "passed": False, "df": 5}], **rule},
        {"name": "greedy_rows", "suite": "hidden", "title": "greedy rows", "title_zh": "贪心行", "verdict": "AC",
         "message": "", "time_ms": 5.0, "seed": CASE_SEEDS[2], "statistic": None, "p_value": None,
         "diagnosis": None, "diagnosis_zh": None, "checks": [], "sandbox": "local",
         "rule": PASSED_RULE, "rule_zh": PASSED_RULE},
    ]
    return {"schema": 1, "verdict": "WA", "score": {"passed": 2, "total": 3}, "seed": SEED,
            "seeds": {c["name"]: c["seed"] for c in cases}, "message": f"{TITLE}: {HIDDEN_MESSAGE}",
            "diagnosis": None, "diagnosis_zh": None, "device": "cpu", "sandbox": "local", "time_ms": 70.0,
            "false_failure_budget": {"total": 1e-6}, "cases": cases, "output": "", "environment": {},
            "fingerprint": dict(FINGERPRINT)}


@pytest.fixture
def site(make_site):
    """A site with a learner (ann, with a submission stored as graded) and an instructor (ida)."""
    app = make_site(start_workers=False)
    headers = {}
    with services(app).sessions() as session:
        for name, role in (("ann", Role.learner), ("ida", Role.admin)):
            user = User(name=name, role=role)
            user.set_password("password123")
            token, secret = ApiToken.issue(user)
            session.add_all([user, token])
            headers[name] = {"Authorization": f"Bearer {secret}"}
        session.commit()
    app.config["HEADERS"] = headers
    return app


def store(app, rule: dict, owner: str = "ann") -> int:
    """A graded submission of ``owner`` whose hidden case failed with ``rule`` (its id)."""
    report = _report(rule)
    with services(app).sessions() as session:
        return store_graded(session, session.scalar(select(User).where(User.name == owner)),
                            session.scalar(select(Exercise)), "# code\n", report, seed=SEED, judge_version="0.1.0")


def view(app, viewer: str, path: str, lang: str = "en") -> str:
    """The text of ``path`` (a page or the API) as ``viewer`` gets it in ``lang``."""
    client = app.test_client()
    if path.startswith("/api/"):
        response = client.get(path, query_string={"lang": lang}, headers=app.config["HEADERS"][viewer])
    else:
        sign_in(client, viewer)
        response = client.get(path, query_string={"lang": lang})
    assert response.status_code == 200, path
    return response.get_data(as_text=True)


def shown(text: str) -> str:
    """How ``text`` appears in a page (escaped) or in the API's JSON (as it is, non-ASCII escaped)."""
    return str(escape(text))


# SQLite only (docs/testing.md): how a stored report renders in each view and language; a
# report read back from PostgreSQL is checked by the other tests here.
@pytest.mark.parametrize("database_backend", ["sqlite"])
@pytest.mark.parametrize("path", EVERY_VIEW)
@pytest.mark.parametrize("lang, rule", [("en", RULE), ("zh", RULE_ZH)])
def test_a_failed_hidden_case_shows_its_rule_in_the_pages_language_never_its_message(site, path, lang, rule):
    url = path.format(id=store(site, {"rule": RULE, "rule_zh": RULE_ZH}))
    text = view(site, "ann", url, lang)
    if url.startswith("/api/"):
        body = site.test_client().get(url, query_string={"lang": lang}, headers=site.config["HEADERS"]["ann"]).json
        assert body["message"] == rule
        assert [(c["rule"], c["rule_zh"]) for c in body["cases"]] == [("", ""), (RULE, RULE_ZH), ("", "")]
    else:
        assert text.count(shown(rule)) == 2  # the headline and the case's row
    for secret in (HIDDEN_MESSAGE, "2016", "row 7 (top_k=4)", PASSED_RULE, *FINGERPRINT.values()):
        assert secret not in text


@pytest.mark.parametrize("path", PAGES)
def test_a_chinese_page_falls_back_to_the_english_rule(site, path):
    url = path.format(id=store(site, {"rule": RULE, "rule_zh": ""}))
    assert view(site, "ann", url, "zh").count(shown(RULE)) == 2


# SQLite only (docs/testing.md): rendering, as above.
@pytest.mark.parametrize("database_backend", ["sqlite"])
@pytest.mark.parametrize("path", EVERY_VIEW)
@pytest.mark.parametrize("rule", [{}, {"rule": "", "rule_zh": ""}])
def test_a_report_from_before_rules_shows_the_title_as_before(site, path, rule):
    url = path.format(id=store(site, rule))
    for lang, title in (("en", TITLE), ("zh", TITLE_ZH)):
        text = view(site, "ann", url, lang)
        assert HIDDEN_MESSAGE not in text
        if url.startswith("/api/"):
            assert site.test_client().get(url, query_string={"lang": lang},
                                          headers=site.config["HEADERS"]["ann"]).json["message"] == title
        else:
            assert f'<p class="message">{escape(title)}</p>' in text and 'class="rule"' not in text


def test_the_api_answers_in_the_token_owners_language(site):
    url = f"/api/v1/submissions/{store(site, {'rule': RULE, 'rule_zh': RULE_ZH})}"
    with services(site).sessions() as session:
        session.scalar(select(User).where(User.name == "ann")).language = "zh"
        session.commit()
    client = site.test_client()
    assert client.get(url, headers=site.config["HEADERS"]["ann"]).json["message"] == RULE_ZH
    assert client.get(url + "?lang=en", headers=site.config["HEADERS"]["ann"]).json["message"] == RULE


@pytest.mark.parametrize("path", EVERY_VIEW)
def test_a_learner_never_gets_a_seed_but_a_run_id(site, path):
    submission_id = store(site, {"rule": RULE, "rule_zh": RULE_ZH})
    url = path.format(id=submission_id)
    for lang in ("en", "zh"):
        text = view(site, "ann", url, lang)
        assert str(SEED) not in text and not [seed for seed in CASE_SEEDS if str(seed) in text]
        if url.startswith("/api/"):
            body = site.test_client().get(url, headers=site.config["HEADERS"]["ann"]).json
            assert body["seed"] is None and body["run_id"] == submission_id
        else:
            run = {"en": f"run #{submission_id}", "zh": f"评测编号 #{submission_id}"}[lang]
            assert run in text and {"en": "seed", "zh": "种子"}[lang] not in text


@pytest.mark.parametrize("path", EVERY_VIEW)
def test_an_admin_gets_the_seed_and_the_hidden_messages(site, path):
    submission_id = store(site, {"rule": RULE, "rule_zh": RULE_ZH})
    url = path.format(id=submission_id)
    text = view(site, "ida", url)
    assert str(SEED) in text
    if url.startswith("/api/"):
        body = site.test_client().get(url, headers=site.config["HEADERS"]["ida"]).json
        assert body["seed"] == SEED and body["run_id"] == submission_id
        assert [case["seed"] for case in body["cases"]] == list(CASE_SEEDS)
    else:
        assert f"seed {SEED}" in text and f"run #{submission_id}" in text
    assert HIDDEN_MESSAGE in text  # whoever teaches the author reads the hidden messages in full


def test_no_answer_a_learner_can_reach_carries_a_seed_or_a_hidden_message(site):
    """"Never" on every surface, not only the three views above: every GET route of the URL map
    (the exports, the history, the diff, the lists), pages in both languages and the API."""
    first, second = (store(site, {"rule": RULE, "rule_zh": RULE_ZH}) for _ in range(2))
    with services(site).sessions() as session:
        number = session.get(Submission, first).exercise.number
    values = {"submission_id": first, "old_id": first, "new_id": second, "number": number,
              "identifier": str(number), "code": "en"}
    client = site.test_client()
    assert sign_in(client, "ann").status_code == 302
    secrets = (str(SEED), *map(str, CASE_SEEDS), HIDDEN_MESSAGE, "row 7 (top_k=4)", PASSED_RULE,
               *FINGERPRINT.values())
    answered = set()
    for rule in rules(site, method="GET"):
        url = build_url(rule, default=1, **values)  # ids ann has nothing to do with: 404s
        for lang in ("en", "zh"):
            if url.startswith("/api/"):
                headers = site.config["HEADERS"]["ann"]
                response = site.test_client().get(url, query_string={"lang": lang}, headers=headers)
            else:
                response = client.get(url, query_string={"lang": lang})
            assert response.status_code < 500, (url, response.status_code)
            body = response.get_data().decode("utf-8", "replace")
            assert not [secret for secret in secrets if secret in body], (url, lang)
            if response.status_code == 200:
                answered.add(rule.rule)
    # The surfaces that show ann's report did answer (a 404 would pass the check above vacuously).
    assert {"/submissions/<int:submission_id>", "/submissions/<int:submission_id>/result",
            "/submissions/<int:old_id>/diff/<int:new_id>", "/exercises/<identifier>/submissions",
            "/api/v1/submissions/<int:submission_id>", "/api/v1/submissions/<int:submission_id>/results.json",
            } <= answered, answered
