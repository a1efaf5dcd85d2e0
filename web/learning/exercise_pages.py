"""Exercise pages: the list, one exercise (statement, editor, submit, download), its history."""

from __future__ import annotations

from flask import Blueprint, Response, abort, flash, g, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from judge.exercises.chapters import OTHER, group
from judge.exercises.exercise import Exercise as ExerciseSpec
from judge.exercises.exercise import load_all
from judge.exercises.starters import starter_text
from judge.verdicts import Verdict
from web.access.contexts import (
    NOT_GIVEN,
    ContextRefused,
    Unset,
    allowed_contexts,
    choose_context,
    default_context,
    parse_course_field,
)
from web.access.lookup import find_exercise, page_argument
from web.access.presenting import Access, grading_summary, minute
from web.access.visibility import context_visibility, withheld_exercises
from web.core.extensions import submit_limits
from web.core.forms import CodeForm
from web.core.i18n import localized, t, template
from web.core.models import Exercise, Submission
from web.grading.gradable import missing_extra, not_gradable_text
from web.grading.queue import SubmissionRefused
from web.learning.browser_run import run_config
from web.learning.figures import figure_texts
from web.learning.progress import exercise_stats, user_status
from web.learning.statements import render_statement
from web.services import services
from web.teaching.deadlines import Lateness, exercise_deadlines, lateness

exercises = Blueprint("exercises", __name__)
RECENT_ATTEMPTS = 5
HISTORY_PER_PAGE = 50  # attempts on one page of an exercise's history


def run_texts() -> dict:
    """The texts the "Run" script shows, in the request's language (it renders the report itself)."""
    return {
        "heading": t("run_heading"),
        "button_run": t("run"),
        "button_loading": t("run_button_loading"),
        "button_running": t("run_button_running"),
        "loading": t("run_loading"),
        "running": t("run_running"),
        "failed": t("run_failed"),
        "in_browser": template("run_in_browser"),
        "cases_summary": template("cases_summary"),
        "no_case_ran": t("no_case_ran"),
        "no_case_ran_judge": t("no_case_ran_judge"),
        "likely_mistake": t("likely_mistake"),
        "also_consistent_with": t("also_consistent_with"),
        "not_implemented_yet": template("not_implemented_yet"),
        "budget": template("budget_sentence"),
        "columns": [t("case"), t("suite"), t("result"), t("time"), t("p_value")],
        "cases_table": t("table_of", what=t("run_heading")),
        "suites": {suite: t(f"suite_{suite}") for suite in ("public", "hidden", "judge", "tiny")},
        "verdicts": {verdict.value: t(f"verdict_{verdict.value}") for verdict in Verdict},
        "figure": figure_texts(),
    }


def download_name(spec: ExerciseSpec) -> str:
    return f"{spec.number:03d}-{spec.slug}.py"


@exercises.get("/")
@exercises.get("/exercises/")
def index():
    rows = g.db.scalars(select(Exercise).order_by(Exercise.number)).all()
    listed = {row.number for row in rows}
    # Marked in the list: exercises this site cannot grade (an extra their hidden tests need is missing).
    ungradable = {spec.number for spec in load_all() if spec.number in listed and missing_extra(spec) is not None}
    status = (
        user_status(g.db, current_user, withheld_exercises(g.db, current_user.id))
        if current_user.is_authenticated
        else {}
    )
    return render_template(
        "exercises/index.html",
        groups=_grouped(rows),
        exercises=rows,
        stats=exercise_stats(g.db),
        status=status,
        ungradable=ungradable,
    )


def _grouped(rows: list[Exercise]) -> list[dict]:
    """The rows grouped by the handbook's chapters and sections, as ``practice/judge.py list`` groups
    them (judge.exercises.chapters): each ``{"chapter": Bilingual | None, "title": Bilingual, "rows": [...]}``
    with ``chapter`` set on a chapter's first group; rows whose folder is gone come last."""
    by_number = {row.number: row for row in rows}
    groups: list[dict] = []
    placed: set[int] = set()
    for found in group(spec for spec in load_all() if spec.number in by_number):
        members = [by_number[spec.number] for spec in found.exercises]
        placed.update(spec.number for spec in found.exercises)
        heading = found.chapter.title if found.opens_chapter and found.chapter else None
        title = found.title if found.section or not found.chapter else None
        groups.append({"chapter": heading, "title": title, "rows": members})
    rest = [row for row in rows if row.number not in placed]
    if rest:
        groups.append({"chapter": None, "title": OTHER, "rows": rest})
    return groups


def _summaries(row: Exercise, attempts: list[Submission]) -> dict[int, dict]:
    """Each attempt's verdict and score as its author may see them now, at its own context's
    level: an assignment whose visibility is ``nothing`` withholds those that depend on hidden
    cases (see web.access.visibility), of the attempts made for its course only."""
    levels = {
        course_id: Access(visibility=context_visibility(g.db, current_user.id, course_id, row.id))
        for course_id in {attempt.course_id for attempt in attempts}
    }
    return {
        attempt.id: grading_summary(attempt.shown, levels[attempt.course_id], attempt.current_grading_id)
        for attempt in attempts
        if attempt.shown is not None
    }


def _context_choice(row: Exercise, chosen: int | None | Unset = NOT_GIVEN) -> dict:
    """The submit form's context: the courses the user may submit for (a select when there is
    any) and the one selected (``chosen``, else the default for the link's ``?course=``)."""
    if not current_user.is_authenticated:
        return {"contexts": [], "context": None}
    if chosen is NOT_GIVEN:
        hinted = request.args.get("course", "")
        hint = int(hinted) if hinted.isascii() and hinted.isdigit() and len(hinted) <= 9 else None
        chosen = default_context(g.db, current_user, row, hint)
    return {"contexts": allowed_contexts(g.db, current_user, row), "context": chosen}


def _attempts(row: Exercise, limit: int, offset: int = 0) -> list[Submission]:
    """The signed-in learner's attempts at ``row``, newest first: ``limit`` of them from ``offset``."""
    query = (
        select(Submission)
        .where(Submission.exercise_id == row.id, Submission.user_id == current_user.id)
        .options(selectinload(Submission.gradings), selectinload(Submission.current), selectinload(Submission.course))
        .order_by(Submission.id.desc())
    )
    return list(g.db.scalars(query.limit(limit).offset(offset)))


def _latest(attempts: list[Submission], summaries: dict[int, dict]) -> dict | None:
    """What the editor offers to load when it has no draft (LeetCode's "retrieve last submitted
    code"): the learner's newest attempt, its code, its minute and its verdict as they may see it."""
    if not attempts:
        return None
    newest = attempts[0]
    seen = summaries.get(newest.id, {})
    if seen.get("verdict"):
        verdict = seen["verdict"]
    elif seen.get("status") == "done":
        verdict = t("verdict_withheld")
    else:
        verdict = t(f"status_{seen.get('status', 'queued')}")
    created_at = minute(newest.created_at).isoformat()  # to the minute, as the learner sees it elsewhere
    return {"id": newest.id, "code": newest.code, "created_at": created_at, "verdict": verdict}


def _exercise_page(
    row: Exercise,
    spec: ExerciseSpec,
    form: CodeForm | None = None,
    status: int = 200,
    chosen: int | None | Unset = NOT_GIVEN,
    late: Lateness | None = None,
):
    """The exercise page; ``form`` carries code sent back after a refusal (else the starter),
    ``chosen`` the context sent with it, ``late`` the lateness a late submit asks to confirm."""
    starter = starter_text(spec, g.lang, "web")  # the page's language; no CLI instructions
    attempts = _attempts(row, RECENT_ATTEMPTS) if current_user.is_authenticated else []
    deadlines = exercise_deadlines(g.db, current_user.id, row.id) if current_user.is_authenticated else []
    summaries = _summaries(row, attempts) if attempts else {}
    missing = missing_extra(spec)
    return render_template(
        "exercises/show.html",
        exercise=row,
        spec=spec,
        form=form or CodeForm(code=starter),
        starter=starter,
        statement=render_statement(spec, g.lang),
        attempts=attempts,
        summaries=summaries,
        latest=_latest(attempts, summaries),
        download_name=download_name(spec),
        run=run_config(spec),
        run_texts=run_texts(),
        deadlines=deadlines,
        late=late,
        not_gradable=not_gradable_text(missing).in_language(g.lang) if missing else None,
        **_context_choice(row, chosen),
    ), status


def _refused_code(row: Exercise, spec: ExerciseSpec, form: CodeForm):
    """A code form that did not validate: the page again with the code and why (400).

    The code's own errors are those of :func:`web.core.validation.text_problem` (a NUL, a lone
    surrogate); without them it was the CSRF token, and the plain 400 page says what to do.
    """
    if not form.code.errors:
        abort(400)
    for error in form.code.errors:
        flash(str(error), "error")
    return _exercise_page(row, spec, form, 400)


@exercises.get("/exercises/<identifier>")
def show(identifier: str):
    row, spec = find_exercise(identifier)
    return _exercise_page(row, spec)


@exercises.post("/exercises/<identifier>/submit")
@login_required
@submit_limits
def submit(identifier: str):
    row, spec = find_exercise(identifier)
    form = CodeForm()
    if not form.validate_on_submit():
        return _refused_code(row, spec, form)
    try:
        course_id = choose_context(g.db, current_user, row, parse_course_field(request.form.get("course")))
    except ContextRefused as refused:
        flash(localized(refused.text), "error")
        return _exercise_page(row, spec, form, 400)  # the code that was sent stays in the editor
    if request.form.get("late_confirmed") != "1":
        # Late work that counts less (or not at all) is confirmed first; the code stays in the
        # editor. Confirmed, it is late as of when it is accepted (the counting's rule decides).
        found = lateness(g.db, current_user.id, course_id, row.id)
        if found is not None and found.warns:
            return _exercise_page(row, spec, form, 200, course_id, late=found)
    try:
        submission = services().queue.submit(g.db, current_user, row, form.code.data or "", course_id)
    except SubmissionRefused as refused:
        flash(localized(refused.text), "error")
        # Show the page again with the code that was sent, so nothing typed is lost.
        return _exercise_page(row, spec, form, 429 if refused.too_many else 400, course_id)
    return redirect(url_for("submissions.show", submission_id=submission.id))


@exercises.post("/exercises/<identifier>/download")
def download(identifier: str):
    """The editor's code as a file that ``python practice/judge.py test N FILE`` accepts."""
    row, spec = find_exercise(identifier)
    form = CodeForm()
    if not form.validate_on_submit():
        return _refused_code(row, spec, form)
    code = (form.code.data or "").replace("\r\n", "\n")
    return Response(
        code, mimetype="text/x-python", headers={"Content-Disposition": f'attachment; filename="{download_name(spec)}"'}
    )


@exercises.get("/exercises/<identifier>/submissions")
@login_required
def history(identifier: str):
    """The learner's attempts at one exercise, newest first, :data:`HISTORY_PER_PAGE` a page
    (``?page=N``): a page's work is bounded whatever the number of attempts."""
    row, spec = find_exercise(identifier)
    wanted = page_argument()
    total = g.db.scalar(
        select(func.count()).where(Submission.exercise_id == row.id, Submission.user_id == current_user.id)
    )
    pages = max(1, -(-(total or 0) // HISTORY_PER_PAGE))
    page = min(wanted, pages)
    attempts = _attempts(row, limit=HISTORY_PER_PAGE, offset=(page - 1) * HISTORY_PER_PAGE)
    return render_template(
        "exercises/history.html",
        exercise=row,
        spec=spec,
        attempts=attempts,
        summaries=_summaries(row, attempts),
        page=page,
        pages=pages,
    )
