"""``submit``: send a file to a ProbJudge server (its JSON API, with the learner's token) and show
the verdict when it is in."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.console import Console

from judge.cli.common import USAGE_ERROR, show_report
from judge.i18n import t


def cmd_submit(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    path = Path(args.file)
    if not path.is_file():
        err.print(f"[bold red]error:[/] no file {args.file}")
        return USAGE_ERROR
    try:
        answer = _submit_and_wait(args, path.read_text(encoding="utf-8"))
    except SystemExit as stop:
        err.print(f"[bold red]error:[/] {stop}")
        return USAGE_ERROR
    url = submission_url(args.server, answer["id"])
    code = show_report(_report_of_answer(answer), args, out, lang, as_json={**answer, "url": url})
    if not args.json:
        out.print(t("submission_url", lang, url=url), markup=False, highlight=False, soft_wrap=True)
    return code


def submission_url(server: str, submission_id: int) -> str:
    """The submission's page on the site the CLI talks to (``--server``, as the learner reaches it)."""
    return f"{server.rstrip('/')}/submissions/{submission_id}"


def _api_call(args: argparse.Namespace, method: str, url: str, body: dict | None = None) -> dict:
    """One request to the server's API; SystemExit with what went wrong (an HTTP error, no server)."""
    import urllib.error
    import urllib.request

    headers = {"Authorization": f"Bearer {args.token}", "Content-Type": "application/json"}
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        try:
            message = json.loads(error.read()).get("message", error.reason)
        except ValueError:
            message = error.reason
        raise SystemExit(f"server said {error.code}: {message}") from None
    except urllib.error.URLError as error:
        raise SystemExit(f"cannot reach {args.server}: {error.reason}") from None


def _submit_and_wait(args: argparse.Namespace, code: str) -> dict:
    """Submit ``code`` and wait until the server has graded it (SystemExit past ``--timeout``, naming
    the submission's page: it is graded all the same).

    Each GET asks the server to hold its answer until the verdict is in (``?wait=``, at most 20 s,
    under the request's 30 s timeout); a server that answers early (busy, or older) is asked again
    after half a second."""
    base = args.server.rstrip("/") + "/api/v1"
    body: dict = {"exercise": args.exercise, "code": code}
    if "course" in vars(args):
        body["course"] = args.course  # an id, or None (practice); left out, the server chooses
    created = _api_call(args, "POST", f"{base}/submissions", body)
    deadline = time.monotonic() + args.timeout
    while True:
        wait_s = int(max(0.0, min(20.0, deadline - time.monotonic())))
        answer = _api_call(args, "GET", f"{base}/submissions/{created['id']}?wait={wait_s}")
        if answer["status"] == "done":
            return answer
        if time.monotonic() > deadline:
            raise SystemExit(
                f"no verdict after {args.timeout:.0f} s (submission {created['id']} is {answer['status']};"
                f" its page: {submission_url(args.server, created['id'])})"
            )
        time.sleep(0.5)


def _report_of_answer(answer: dict) -> dict:
    """The server's answer in the shape of a report, for the renderer."""
    cases = answer.get("cases") or []
    return {
        **answer,
        "exercise": {"number": answer["exercise"]},
        "score": answer.get("score") or {"passed": 0, "total": len(cases)},
        "seed": answer.get("seed"),
        "device": answer.get("device") or "server",
        "time_ms": answer.get("time_ms") or 0.0,
        "message": answer.get("message") or "",
        "false_failure_budget": answer.get("false_failure_budget") or {},
        "cases": cases,
        "output": "",
    }
