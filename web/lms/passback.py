"""Assignment and Grade Services: the counted score of every linked cell reaches the platform.

Two steps, each safe to run in several processes at once:

1. :func:`queue_changed_scores` (the sweep) reads, for every resource link of a platform course
   linked to a site course, the scores as the course counts them
   (:func:`web.teaching.counting.cells`: best attempt, late policy, extensions, overrides,
   rejudges, all of it; nothing is recomputed here) for every learner of the course who has an
   account of that platform. A link to an exercise is worth 1 point (the cell's share), a link
   to an assignment the sum of its exercises' cells (``scoreMaximum`` = its exercise count), as
   in the gradebook. Cells nobody attempted are not sent. Where the value differs from the
   newest row of (link, learner) by more than :data:`SCORE_TOLERANCE` (or there is none), a new
   :class:`LtiScorePost` is added and the older pending ones are superseded: so a value is
   queued once, and an unchanged score is never sent again.
2. :func:`post_due_scores` sends each pending row whose ``next_attempt_at`` has come: it first
   claims the row (a conditional UPDATE moves ``next_attempt_at`` a lease ahead and counts the
   attempt, so two posters never send the same row at once), then POSTs to
   ``<lineitem>/scores``; success sets ``posted_at``; a failure keeps the row with
   ``last_error`` and the next try after :func:`backoff` (30 s doubling to an hour, forever:
   a row is never dropped). Each score carries its row's ``created_at`` as ``timestamp``, so a
   platform keeps the newest value even if an older row's retry arrives later.

A link without a line item gets one from :func:`ensure_line_item`: the context's line items
are searched by ``resource_id`` (``exercise-<id>`` or ``assignment-<id>``) first, and one is
POSTed only when none is found, so linking twice never makes two columns in the LMS. A
line item URL from the launch (``LtiResourceLink.lineitem_url``) is used as it is.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

from sqlalchemy import CursorResult, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from web.core.models import AssignmentExercise, CourseRole, Exercise, Grading, Membership
from web.lms.models import LtiAccount, LtiContext, LtiPlatform, LtiResourceLink
from web.lms.passback_models import LtiScorePost
from web.lms.service_client import (
    SCOPE_LINEITEM,
    SCOPE_SCORE,
    Platform,
    ServiceClient,
    ServiceError,
    json_list,
    json_object,
    same_origin,
    utc_now,
)
from web.teaching.counting import Cell, cells

log = logging.getLogger("probjudge.lti")
LINEITEM_MEDIA = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_MEDIA = "application/vnd.ims.lis.v2.lineitemcontainer+json"
SCORE_MEDIA = "application/vnd.ims.lis.v1.score+json"
SCORE_TOLERANCE = 1e-6  # below this two scores are the same (a share and its double may differ in the last bits)
CLAIM_S = 120.0  # a claimed row is not tried by anyone else for this long (a post takes at most TIMEOUT_S x 3)
FIRST_RETRY_S, MAX_RETRY_S = 30.0, 3600.0


def resource_id(link: LtiResourceLink) -> str:
    """The ``resourceId`` of a link's line item: what it grades, not which link (two links to
    the same exercise share a column)."""
    return f"exercise-{link.exercise_id}" if link.exercise_id is not None else f"assignment-{link.assignment_id}"


def score_maximum(session: Session, link: LtiResourceLink) -> float:
    """1 for an exercise; an assignment's number of exercises (at least 1)."""
    if link.assignment_id is None:
        return 1.0
    count = session.scalar(
        select(func.count())
        .select_from(AssignmentExercise)
        .where(AssignmentExercise.assignment_id == link.assignment_id)
    )
    return float(max(count or 0, 1))


def ensure_line_item(session: Session, client: ServiceClient, link: LtiResourceLink) -> str:
    """The line item URL of ``link``, found or created at the platform (module docstring) and
    stored on the link; :class:`ServiceError` when the platform fails or offers no line items."""
    if link.lineitem_url:
        return link.lineitem_url
    context = session.get(LtiContext, link.context_row_id)
    assert context is not None  # a foreign key
    if not context.lineitems_url:
        raise ServiceError("the platform offered no line items service for this course")
    platform_row = session.get(LtiPlatform, context.platform_id)
    assert platform_row is not None
    platform, wanted = Platform.of(platform_row), resource_id(link)
    found = client.request(
        "GET",
        context.lineitems_url,
        platform,
        (SCOPE_LINEITEM,),
        accept=LINEITEMS_MEDIA,
        params={"resource_id": wanted},
    )
    # A platform may ignore the filter: only an item with our resource id is ours.
    ours = [item for item in json_list(found) if isinstance(item, dict) and item.get("resourceId") == wanted]
    if ours and isinstance(ours[0].get("id"), str):
        url = ours[0]["id"]
    else:
        body = {
            "scoreMaximum": score_maximum(session, link),
            "label": (link.title or wanted)[:200],
            "resourceId": wanted,
            "resourceLinkId": link.resource_link_id,
        }
        created = client.request(
            "POST",
            context.lineitems_url,
            platform,
            (SCOPE_LINEITEM,),
            accept=LINEITEM_MEDIA,
            body=body,
            content_type=LINEITEM_MEDIA,
        )
        url = json_object(created).get("id")
        if not isinstance(url, str) or not url:
            raise ServiceError("the platform made a line item but gave no id (its URL)")
    if not same_origin(url, context.lineitems_url):
        raise ServiceError(f"the platform named a line item on another host ({url[:100]}): not used")
    link.lineitem_url = url
    session.commit()
    return url


def _percent(value: Any) -> str:
    return f"{value:.3g}" if isinstance(value, int | float) else "?"


def evidence(grading: Grading | None) -> tuple[str, str]:
    """The verdict and the statistical evidence of a counted grading, in English and Chinese:
    cases passed of those run, and the false-failure bound (the report's ``false_failure_budget``:
    the most probability with which a correct submission fails this run). No case's message:
    the platform shows the comment to the learner, and hidden cases stay hidden."""
    if grading is None or grading.verdict is None:
        return "not graded", "未评测"
    report = grading.report_json or {}
    budget = report.get("false_failure_budget") or {}
    passed, total = grading.score_passed, grading.score_total
    alpha = budget.get("total")
    english = f"{grading.verdict.value}: {passed} of {total} cases passed"
    chinese = f"{grading.verdict.value}：{total} 个用例通过 {passed} 个"
    if alpha is not None:
        english += f"; false-failure bound alpha = {_percent(alpha)}"
        chinese += f"；误判上界 alpha = {_percent(alpha)}"
    return english, chinese


def comment_for(session: Session, cell_list: Iterable[tuple[str, Cell | None]]) -> str:
    """The score's comment: one line per exercise (label, verdict and evidence, override, late)."""
    lines = []
    for label, cell in cell_list:
        if cell is None:
            lines.append(f"{label}: not attempted / 未提交")
            continue
        english, chinese = evidence(session.get(Grading, cell.grading_id) if cell.grading_id else None)
        if cell.override is not None:
            english += f"; instructor's score {cell.override:.3g}"
            chinese += f"；教师给分 {cell.override:.3g}"
        if cell.late:
            english, chinese = english + "; late", chinese + "；迟交"
        lines.append(f"{label}: {english} / {chinese}")
    return "\n".join(lines)[:4000]


@dataclass(frozen=True)
class Queued:
    """What one sweep did: rows queued, links whose line item could not be had (tried again next time)."""

    queued: int
    links_failed: int


def _learners_with_accounts(session: Session, course_id: int, issuer: str) -> list[tuple[int, str]]:
    rows = session.execute(
        select(Membership.user_id, LtiAccount.sub)
        .join(LtiAccount, LtiAccount.user_id == Membership.user_id)
        .where(Membership.course_id == course_id, Membership.role == CourseRole.learner, LtiAccount.issuer == issuer)
        .order_by(Membership.user_id)
    )
    return [(user_id, sub) for user_id, sub in rows]


def _exercises_of(session: Session, link: LtiResourceLink) -> list[int]:
    if link.exercise_id is not None:
        return [link.exercise_id]
    return list(
        session.scalars(
            select(AssignmentExercise.exercise_id)
            .where(AssignmentExercise.assignment_id == link.assignment_id)
            .order_by(AssignmentExercise.position, AssignmentExercise.exercise_id)
        )
    )


def queue_changed_scores(session: Session, client: ServiceClient) -> Queued:
    """Queue a post for every (link, learner) whose counted score changed (module docstring); commits."""
    links = session.execute(
        select(LtiResourceLink, LtiContext)
        .join(LtiContext, LtiContext.id == LtiResourceLink.context_row_id)
        .where(LtiContext.course_id.is_not(None))
        .where(LtiResourceLink.exercise_id.is_not(None) | LtiResourceLink.assignment_id.is_not(None))
        .order_by(LtiResourceLink.id)
    ).all()
    by_course: dict[int, dict[tuple[int, int], Cell]] = {}
    queued = failed = 0
    for link, context in links:
        course_id = context.course_id
        try:
            lineitem = ensure_line_item(session, client, link)
        except ServiceError as error:
            session.rollback()
            log.warning("lti: no line item for link %s yet: %s", link.id, error)
            failed += 1
            continue
        if course_id not in by_course:
            by_course[course_id] = cells(session, course_id)
        course_cells = by_course[course_id]
        exercise_ids, maximum = _exercises_of(session, link), score_maximum(session, link)
        for user_id, sub in _learners_with_accounts(session, course_id, context.issuer):
            mine = [(exercise_id, course_cells.get((user_id, exercise_id))) for exercise_id in exercise_ids]
            if all(cell is None for _, cell in mine):
                continue  # never attempted: nothing to send
            given = round(sum(cell.score for _, cell in mine if cell is not None), 6)
            if _queue_one(session, link, user_id, sub, lineitem, given, maximum, mine):
                queued += 1
    return Queued(queued, failed)


def _queue_one(
    session: Session,
    link: LtiResourceLink,
    user_id: int,
    sub: str,
    lineitem: str,
    given: float,
    maximum: float,
    mine: list[tuple[int, Cell | None]],
) -> bool:
    newest = session.scalar(
        select(LtiScorePost)
        .where(LtiScorePost.link_id == link.id, LtiScorePost.user_id == user_id)
        .order_by(LtiScorePost.sequence.desc())
        .limit(1)
    )
    if (
        newest is not None
        and abs(newest.score_given - given) <= SCORE_TOLERANCE
        and abs(newest.score_maximum - maximum) <= SCORE_TOLERANCE
        and newest.lineitem_url == lineitem
    ):
        return False
    labels = {
        row.id: f"#{row.number}"
        for row in session.scalars(select(Exercise).where(Exercise.id.in_([e for e, _ in mine])))
    }
    now = utc_now()
    row = LtiScorePost(
        link_id=link.id,
        user_id=user_id,
        sequence=(newest.sequence + 1) if newest is not None else 1,
        lineitem_url=lineitem,
        lti_user_id=sub,
        score_given=given,
        score_maximum=maximum,
        comment=comment_for(session, [(labels.get(e, str(e)), cell) for e, cell in mine]),
        created_at=now,
        next_attempt_at=now,
    )
    try:
        session.add(row)
        session.flush()
    except IntegrityError:
        session.rollback()  # another sweep queued this change first
        return False
    # The older rows still waiting are outdated: only the newest value is worth sending.
    session.execute(
        update(LtiScorePost)
        .where(
            LtiScorePost.link_id == link.id,
            LtiScorePost.user_id == user_id,
            LtiScorePost.id != row.id,
            LtiScorePost.posted_at.is_(None),
            LtiScorePost.superseded_at.is_(None),
        )
        .values(superseded_at=now)
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return True


def backoff(attempts: int) -> float:
    """Seconds before try ``attempts + 1`` after ``attempts`` failed ones: 30 s, doubling, at most an hour."""
    return min(FIRST_RETRY_S * 2 ** max(attempts - 1, 0), MAX_RETRY_S)


def scores_url(lineitem_url: str) -> str:
    """``<lineitem>/scores``, with the line item's query string kept after the path (AGS 3.4)."""
    parts = urlsplit(lineitem_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


@dataclass(frozen=True)
class Posted:
    """What one round of posting did."""

    posted: int
    failed: int


def post_due_scores(sessions: sessionmaker[Session], client: ServiceClient, *, limit: int = 200) -> Posted:
    """Send the pending rows whose time has come (module docstring); each row in its own transaction."""
    with sessions() as session:
        now = utc_now()
        due = session.execute(
            select(LtiScorePost.id, LtiScorePost.next_attempt_at)
            .where(
                LtiScorePost.posted_at.is_(None),
                LtiScorePost.superseded_at.is_(None),
                LtiScorePost.next_attempt_at <= now,
            )
            .order_by(LtiScorePost.next_attempt_at, LtiScorePost.id)
            .limit(limit)
        ).all()
    posted = failed = 0
    for post_id, when in due:
        outcome = _post_one(sessions, client, post_id, when)
        posted += outcome is True
        failed += outcome is False
    return Posted(posted, failed)


def _post_one(sessions: sessionmaker[Session], client: ServiceClient, post_id: int, when: dt.datetime) -> bool | None:
    """Claim, send and record one row; True posted, False failed (kept for later), None: not ours."""
    with sessions() as session:
        now = utc_now()
        claimed = session.execute(
            update(LtiScorePost)
            .where(LtiScorePost.id == post_id, LtiScorePost.next_attempt_at == when, LtiScorePost.posted_at.is_(None))
            .values(next_attempt_at=now + dt.timedelta(seconds=CLAIM_S), attempts=LtiScorePost.attempts + 1)
            .execution_options(synchronize_session=False)
        )
        session.commit()
        if cast(CursorResult[Any], claimed).rowcount != 1:
            return None  # another poster has it
        row = session.get(LtiScorePost, post_id)
        assert row is not None
        link = session.get(LtiResourceLink, row.link_id)
        context = session.get(LtiContext, link.context_row_id) if link is not None else None
        platform_row = session.get(LtiPlatform, context.platform_id) if context is not None else None
        error: str | None = None
        if platform_row is None:
            error = "the platform of this link is gone"
        else:
            body = {
                "userId": row.lti_user_id,
                "scoreGiven": row.score_given,
                "scoreMaximum": row.score_maximum,
                "comment": row.comment,
                "timestamp": row.created_at.astimezone(dt.UTC).isoformat(),
                "activityProgress": row.activity_progress,
                "gradingProgress": row.grading_progress,
            }
            try:
                client.request(
                    "POST",
                    scores_url(row.lineitem_url),
                    Platform.of(platform_row),
                    (SCOPE_SCORE,),
                    accept="application/json",
                    body=body,
                    content_type=SCORE_MEDIA,
                )
            except ServiceError as failure:
                error = str(failure)
        if error is None:
            row.posted_at, row.last_error = utc_now(), None
        else:
            row.last_error = error[:2000]
            row.next_attempt_at = utc_now() + dt.timedelta(seconds=backoff(row.attempts))
            log.warning("lti: score %s not posted (try %d): %s", row.id, row.attempts, error)
        session.commit()
        return error is None


def passback_round(sessions: sessionmaker[Session], client: ServiceClient) -> tuple[Queued, Posted]:
    """One round of the periodic job: queue what changed, then post what is due."""
    with sessions() as session:
        queued = queue_changed_scores(session, client)
    return queued, post_due_scores(sessions, client)
