"""What a learner sees of a report: nothing of a hidden case that its code could have chosen."""

from __future__ import annotations

from types import SimpleNamespace

from web.presenting import submission_view, visible_case


def _case(suite: str, name: str, time_ms: float) -> dict:
    return {"name": name, "suite": suite, "title": name, "verdict": "WA", "message": f"row 3 of {name}: 1.0793",
            "time_ms": time_ms, "seed": 17, "statistic": 12.5, "p_value": 0.0107, "diagnosis": "top-k",
            "checks": [{"kind": "fit", "label": "row 3 (top_k=2)", "statistic": 12.5, "p_value": 0.0107,
                        "alpha": 1e-9, "passed": True, "df": 3}]}


def test_a_hidden_case_shows_no_number_the_learners_code_controls():
    shown = visible_case(_case("hidden", "zipf", 1079.3))
    assert shown["message"] == "" and "seed" not in shown
    assert shown["time_ms"] is None and shown["statistic"] is None and shown["p_value"] is None
    assert shown["checks"] == [{"kind": "fit", "alpha": 1e-9, "passed": True}]
    assert shown["verdict"] == "WA" and shown["diagnosis"] == "top-k" and shown["title"] == "zipf"


def test_a_public_case_shows_everything():
    case = _case("public", "softmax", 3.0)
    assert visible_case(case) == case


def test_the_submission_time_counts_the_public_cases_only():
    report = {"verdict": "WA", "time_ms": 5000.0, "cases": [_case("public", "softmax", 3.0),
                                                            _case("hidden", "zipf", 1079.3),
                                                            _case("public", "greedy", 2.5)]}
    submission = SimpleNamespace(id=1, exercise=SimpleNamespace(number=39), status=SimpleNamespace(value="done"),
                                 verdict="WA", report_json=report, seed=5, judge_version="0.1.0",
                                 created_at=None, finished_at=None)
    view = submission_view(submission)
    assert view["time_ms"] == 5.5
    hidden = view["cases"][1]
    assert "1079" not in str(hidden) and "row 3" not in str(hidden)
