"""The LTI pages: ``/lti/jwks``, ``/lti/login``, ``/lti/launch``, the deep-linking picker, and the
admin's ``/admin/lti`` (register a platform, see what to give the LMS).

Every refusal is :func:`refuse`'s page, in both languages, with a 4xx status and the detail in
the log, never a 500. ``/lti/login`` and ``/lti/launch`` are exempt from our CSRF token: the LMS
posts them from its own page, and what protects them is the OIDC state (a cookie), the nonce
(once) and the platform's signature. The picker's form carries our CSRF token like every form.

Cookies inside the LMS's iframe: the login first answers pylti1p3's cookies-allowed check page
(``lti/cookie_check.html`` with ``static/lti_cookie_check.js``: no inline script, our CSP
forbids it). Where the browser keeps a test cookie in the frame it goes on at once; where third-
party cookies are blocked it offers to open ProbJudge in a new window, where they are first-party.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from flask import Blueprint, abort, flash, g, jsonify, redirect, render_template, request, session, url_for
from flask_login import current_user, login_required
from sqlalchemy import select
from wtforms import StringField, SubmitField

from web.access.permissions import is_admin, teaches
from web.accounts.auth import start_session
from web.core.extensions import csrf
from web.core.forms import ConfirmForm, SiteForm
from web.core.i18n import LazyText, t
from web.core.models import Assignment, Course, Exercise
from web.lms import adapter
from web.lms.adapter import LinkItem, LtiError
from web.lms.framing import LTI_ORIGINS, allow_any_lms_frame, origin
from web.lms.keys import jwks as key_set
from web.lms.models import LtiDeployment
from web.lms.provisioning import ClaimsMissing, NoCourseYet, Placement, place
from web.lms.provisioning import teaches as launch_teaches
from web.lms.registry import PlatformFields, RegistrationError, find_platform, platforms, register, tool_urls

log = logging.getLogger("probjudge.lti")

lti = Blueprint("lti", __name__)

DEEP_LINK = "lti_deep_link"  # the session's pending deep-linking launch: {"launch": id, "course": id}
SCORE_MAXIMUM = 100.0  # a gradebook column in percent: the grade service posts a share of it


def refuse(reason: str, status: int | None = None):
    """The bilingual error page of an LTI failure ``reason`` (see :data:`web.lms.adapter.REASONS`)."""
    code = status or adapter.REASONS.get(reason, 400)
    allow_any_lms_frame()
    return render_template("lti/error.html", reason=reason), code


@lti.get("/lti/jwks")
def jwks():
    """Our public keys (the current one, and retired ones during their grace period)."""
    keys = key_set(g.db)
    g.db.commit()  # the first call makes the signing key
    return jsonify(keys)


@lti.route("/lti/login", methods=["GET", "POST"])
@csrf.exempt
def login():
    """OIDC login initiation: redirect to the platform with a state and a nonce."""
    adapter.sweep(g.db)
    g.db.commit()
    allow_any_lms_frame()
    texts = (t("lti_cookies_blocked"), t("lti_cookies_open"), t("lti_cookies_loading"))
    try:
        return adapter.login_redirect(g.db, url_for("lti.launch", _external=True), texts)
    except LtiError as error:
        return refuse(error.reason)


def _origins(claims: dict) -> list[str]:
    """The LMS origins that may frame us: the launch POST's ``Origin``, the return URL's."""
    presentation = claims.get("https://purl.imsglobal.org/spec/lti/claim/launch_presentation")
    candidates = [request.headers.get("Origin")]
    if isinstance(presentation, dict):
        candidates.append(presentation.get("return_url"))
    found = [o for o in map(origin, candidates) if o]
    return list(dict.fromkeys(found))


def _destination(placement: Placement) -> str:
    link = placement.link
    if link is not None and link.exercise_id is not None:
        exercise = g.db.get(Exercise, link.exercise_id)
        if exercise is not None:
            return url_for("exercises.show", identifier=exercise.slug, course=placement.course.id)
    if link is not None and link.assignment_id is not None and teaches(g.db, placement.user, placement.course):
        return url_for("courses.edit_assignment", course_id=placement.course.id, assignment_id=link.assignment_id)
    return url_for("courses.show", course_id=placement.course.id)


@lti.post("/lti/launch")
@csrf.exempt
def launch():
    """Validate the launch, then account, course and membership; sign in; go to the resource."""
    try:
        found = adapter.validate_launch(g.db)
    except LtiError as error:
        return refuse(error.reason)
    claims = found.claims
    platform = find_platform(g.db, str(claims.get("iss")), found.client_id)
    if platform is None:  # deleted between validation and now
        return refuse("unknown_platform")
    deep_linking = found.message_type == "LtiDeepLinkingRequest"
    if deep_linking and not launch_teaches(claims):
        return refuse("not_instructor", 403)
    try:
        placement = place(g.db, platform, claims, g.lang)
    except ClaimsMissing as error:
        g.db.rollback()
        log.warning("LTI launch refused (missing claims): %s", error)
        return refuse("missing_claims")
    except NoCourseYet as error:
        g.db.rollback()
        log.info("LTI launch of a learner into unknown context %r", str(error))
        return refuse("no_course_yet", 403)
    g.db.commit()
    start_session(placement.user)
    session[LTI_ORIGINS] = _origins(claims)
    if deep_linking:
        session[DEEP_LINK] = {"launch": found.launch_id, "course": placement.course.id}
        return redirect(url_for("lti.picker"))
    return redirect(_destination(placement))


def _pending():
    """The course of the session's pending deep-linking launch, taught by the current user."""
    pending = session.get(DEEP_LINK)
    if not isinstance(pending, dict) or not isinstance(pending.get("course"), int):
        return None, None
    course = g.db.get(Course, pending["course"])
    if course is None or not teaches(g.db, current_user, course):
        return None, None
    return pending, course


def _picker_page(course, form: ConfirmForm, status: int = 200):
    assignments = g.db.scalars(select(Assignment).where(Assignment.course_id == course.id).order_by(Assignment.id))
    exercises = g.db.scalars(select(Exercise).order_by(Exercise.number))
    return render_template(
        "lti/picker.html", course=course, assignments=list(assignments), exercises=list(exercises), form=form
    ), status


@lti.get("/lti/deep-link")
@login_required
def picker():
    """What an instructor may add to the LMS course: the exercises and the course's assignments."""
    pending, course = _pending()
    if pending is None:
        return refuse("bad_state")
    return _picker_page(course, ConfirmForm(formdata=None))


def _items(course) -> list[LinkItem]:
    items = []
    launch_url = url_for("lti.launch", _external=True)
    for value in request.form.getlist("item")[:200]:
        kind, _, key = value.partition(":")
        if kind == "e":
            exercise = g.db.scalar(select(Exercise).where(Exercise.slug == key))
            if exercise is not None:
                title = exercise.title_zh if g.lang == "zh" else exercise.title_en
                custom = {"probjudge_exercise": exercise.slug}
                items.append(LinkItem(title, launch_url, custom, SCORE_MAXIMUM, f"exercise:{exercise.slug}"))
        elif kind == "a" and key.isascii() and key.isdigit() and len(key) < 10:
            assignment = g.db.get(Assignment, int(key))
            if assignment is not None and assignment.course_id == course.id:
                custom = {"probjudge_assignment": str(assignment.id)}
                items.append(
                    LinkItem(assignment.title, launch_url, custom, SCORE_MAXIMUM, f"assignment:{assignment.id}")
                )
    return items


@lti.post("/lti/deep-link")
@login_required
def pick():
    """Answer the platform with the signed deep-linking response (an auto-submitted form)."""
    pending, course = _pending()
    if pending is None:
        return refuse("bad_state")
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(400)
    items = _items(course)
    if not items:
        flash(t("lti_picker_nothing"), "error")
        return _picker_page(course, form, 400)
    try:
        return_url, token = adapter.deep_link_response(g.db, str(pending.get("launch")), items)
    except LtiError as error:
        return refuse(error.reason)
    parts = urlsplit(return_url)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        return refuse("missing_claims")
    session.pop(DEEP_LINK, None)
    response = render_template("lti/return.html", return_url=return_url, token=token)
    # The form posts to the LMS: our CSP's form-action 'self' would stop it.
    csp = f"default-src 'self'; script-src 'self'; form-action 'self' {parts.scheme}://{parts.netloc}; frame-ancestors "
    csp += " ".join(session.get(LTI_ORIGINS) or []) or "'none'"
    return response, 200, {"Content-Security-Policy": csp}


class PlatformForm(SiteForm):
    """The LMS's side of a registration (what it shows when the tool is added to it)."""

    name = StringField(LazyText("lti_field_name"))
    issuer = StringField(LazyText("lti_field_issuer"))
    client_id = StringField(LazyText("lti_field_client_id"))
    deployment_id = StringField(LazyText("lti_field_deployment_id"))
    auth_login_url = StringField(LazyText("lti_field_auth_login_url"))
    auth_token_url = StringField(LazyText("lti_field_auth_token_url"))
    key_set_url = StringField(LazyText("lti_field_key_set_url"))
    auth_audience = StringField(LazyText("lti_field_auth_audience"))
    submit = SubmitField(LazyText("lti_admin_register"))


def _admin_page(form: PlatformForm, status: int = 200):
    rows = platforms(g.db)
    deployments = {
        row.id: list(g.db.scalars(select(LtiDeployment.deployment_id).where(LtiDeployment.platform_id == row.id)))
        for row in rows
    }
    urls = tool_urls(request.host_url)
    return render_template("lti/admin.html", form=form, platforms=rows, deployments=deployments, urls=urls), status


@lti.route("/admin/lti", methods=["GET", "POST"])
@login_required
def admin():
    """The site admin's page: the URLs to give an LMS, the platforms, a form to register one."""
    if not is_admin(current_user):
        abort(404)
    form = PlatformForm()
    if not form.validate_on_submit():
        return _admin_page(form, 400 if form.errors else 200)
    fields = PlatformFields(**{name: form[name].data or "" for name in PlatformFields.__dataclass_fields__})
    try:
        platform, _ = register(g.db, fields)
    except RegistrationError as error:
        g.db.rollback()
        getattr(form, error.field).errors = [str(error)]
        return _admin_page(form, 400)
    g.db.commit()
    flash(t("lti_admin_saved", name=platform.name), "success")
    return redirect(url_for("lti.admin"))
