"""Accounts: sign up, sign in, sign out (forms with CSRF tokens, rate-limited by address).

Signing in writes a :class:`~web.core.models.UserSession` row and puts its token, not the account
id, in the session cookie (Flask-Login's alternative-token pattern: ``User.get_id`` returns
the token and the user loader in :mod:`web.app` looks it up). Signing out deletes the row, so a
copy of the cookie taken before no longer signs anyone in.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, flash, g, redirect, render_template, request, session, url_for
from flask_login import current_user, login_required, login_user, logout_user
from sqlalchemy.exc import IntegrityError

from web.accounts.users import NameTaken, authenticate, create_user
from web.core.extensions import SIGN_IN_ADDRESS_LIMIT, SIGN_IN_LIMIT, SIGN_UP_LIMIT, limiter, sign_in_key
from web.core.forms import ConfirmForm, SignInForm, SignUpForm
from web.core.i18n import t
from web.core.models import Role, User, UserSession

auth = Blueprint("auth", __name__, url_prefix="/auth")


def _safe_next(default: str) -> str:
    """The ``next`` parameter when it is a path on this site, else ``default`` (no open redirects)."""
    target = request.args.get("next", "")
    # Browsers read "/\\host" as "//host", so a backslash anywhere disqualifies it too.
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    try:
        parts = urlsplit(target)
    except ValueError:  # "/[" and the like: urlsplit refuses what no page of ours is called
        return default
    return default if parts.netloc else target


def start_session(user: User) -> None:
    """Sign ``user`` in: a new session row (committed), its token in a fresh cookie session.

    The one way in, for the sign-in page and for an LTI launch (:mod:`web.lms.pages`)."""
    UserSession.end_idle(g.db, user)  # sessions nobody used for a month: keep the table small
    row, token = UserSession.issue(user)
    g.db.add(row)
    g.db.commit()
    user.login_token = token
    session.clear()  # a fresh session on every sign-in: nothing from before carries over
    login_user(user)


def _end_session() -> None:
    """Delete the current sign-in's row (committed), then forget the user in the cookie."""
    token = current_user.get_id()
    if token:
        UserSession.end(g.db, token)
        g.db.commit()
    logout_user()
    session.clear()


@auth.route("/sign-up", methods=["GET", "POST"])
@limiter.limit(SIGN_UP_LIMIT, methods=["POST"])
def sign_up():
    if current_user.is_authenticated:
        return redirect(url_for("exercises.index"))
    form = SignUpForm(language=g.lang)
    if form.validate_on_submit():
        try:
            user = create_user(g.db, form.name.data, form.password.data, Role.learner, form.language.data)
            g.db.commit()
        except (NameTaken, IntegrityError):  # IntegrityError: the same name, signed up at the same moment
            g.db.rollback()
            form.name.errors.append(t("name_taken"))
        else:
            start_session(user)
            flash(t("welcome", name=user.name), "success")
            return redirect(_safe_next(url_for("exercises.index", lang=user.language)))
    return render_template("auth/sign_up.html", form=form), 400 if form.errors else 200


@auth.route("/sign-in", methods=["GET", "POST"])
@limiter.limit(SIGN_IN_ADDRESS_LIMIT, methods=["POST"])
@limiter.limit(SIGN_IN_LIMIT, methods=["POST"], key_func=sign_in_key)
def sign_in():
    if current_user.is_authenticated:
        return redirect(_safe_next(url_for("exercises.index")))
    form = SignInForm()
    failed = False
    if form.validate_on_submit():
        user = authenticate(g.db, form.name.data, form.password.data)
        if user is not None:
            start_session(user)
            return redirect(_safe_next(url_for("exercises.index")))
        failed = True  # one message for a wrong name and a wrong password: do not confirm names
    status = 401 if failed else (400 if form.errors else 200)
    return render_template("auth/sign_in.html", form=form, failed=failed), status


@auth.post("/sign-out")
@login_required
def sign_out():
    form = ConfirmForm()
    if form.validate_on_submit():
        _end_session()
        flash(t("signed_out"), "info")
    return redirect(url_for("exercises.index"))
