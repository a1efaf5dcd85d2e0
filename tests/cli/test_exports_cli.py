"""practice/judge.py test --junit / --results-json: the files are written after the report, and a
file that cannot be written is a usage error said before anything is judged."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from judge import cli
from judge.reports.exports import validate_results_json

REFERENCE = "solutions/001-weighted-coin/reference.py"
WRONG = "solutions/001-weighted-coin/wrong/zero_edge.py"


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_junit_and_results_json_are_written_beside_the_usual_report(capsys, tmp_path):
    junit, results = tmp_path / "junit.xml", tmp_path / "results.json"
    code, out, err = run_cli(capsys, "test", "1", WRONG, "--seed", "3", "--junit", str(junit),
                             "--results-json", str(results))
    assert code == 1 and "Wrong answer" in out
    assert f"Wrote {junit}" in err and f"Wrote {results}" in err
    root = ET.fromstring(junit.read_text(encoding="utf-8"))
    assert root.get("failures") == "1" and int(root.get("tests")) >= 9
    (failure,) = root.iter("failure")
    assert failure.get("message").startswith("flip(p = [0, 1, 0, 1]")  # a local run shows hidden messages
    data = json.loads(results.read_text(encoding="utf-8"))
    assert validate_results_json(data) == []
    assert data["score"] == int(root.get("tests")) - 1 and data["extra_data"]["seed"] == 3


def test_with_json_stdout_is_still_one_report(capsys, tmp_path):
    junit = tmp_path / "junit.xml"
    code, out, err = run_cli(capsys, "test", "1", REFERENCE, "--seed", "3", "--json", "--public-only",
                             "--junit", str(junit))
    assert code == 0 and json.loads(out)["verdict"] == "AC"
    assert ET.fromstring(junit.read_text(encoding="utf-8")).get("tests") == str(len(json.loads(out)["cases"]))


@pytest.mark.parametrize("option", ["--junit", "--results-json"])
@pytest.mark.parametrize("lang, reason", [("en", "there is no folder"), ("zh", "不存在")])
def test_a_file_in_no_folder_is_a_usage_error_before_judging(capsys, tmp_path, monkeypatch, option, lang, reason):
    from judge.engine import runner

    monkeypatch.setattr(runner, "judge_file", lambda *a, **k: pytest.fail("judged although the file cannot be written"))
    target = tmp_path / "absent" / "out.xml"
    code, out, err = run_cli(capsys, "test", "1", REFERENCE, option, str(target), "--lang", lang)
    assert code == 2 and str(target) in err and reason in err and out == ""


def test_a_folder_is_not_a_file_to_write(capsys, tmp_path):
    code, _, err = run_cli(capsys, "test", "1", REFERENCE, "--junit", str(tmp_path))
    assert code == 2 and "cannot write" in err and "it is a folder" in err


def test_a_write_that_fails_after_judging_is_said_and_exits_2(capsys, tmp_path, monkeypatch):
    from pathlib import Path

    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "write_text", refuse)
    code, out, err = run_cli(capsys, "test", "1", REFERENCE, "--public-only", "--seed", "3",
                             "--junit", str(tmp_path / "junit.xml"))
    assert code == 2 and "Accepted" in out
    assert f"cannot write {tmp_path / 'junit.xml'}: Permission denied" in " ".join(err.split())
