"""Accounts: sign up, sign in, sign out (forms with CSRF tokens, rate-limited by address)."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, flash, g, redirect, render_template, request, session, url_for
from flask_login import current_user, login_required, login_user, logout_user
from sqlalchemy import select

from web.accounts import NameTaken, create_user
from web.extensions import SIGN_IN_ADDRESS_LIMIT, SIGN_IN_LIMIT, SIGN_UP_LIMIT, limiter, sign_in_key
from web.forms import ConfirmForm, SignInForm, SignUpForm
from web.i18n import t
from web.models import Role, User

auth = Blueprint("auth", __name__, url_prefix="/auth")


def _safe_next(default: str) -> str:
    """The ``next`` parameter when it is a path on this site, else ``default`` (no open redirects)."""
    target = request.args.get("next", "")
    parts = urlsplit(target)
    # Browsers read "/\\host" as "//host", so a backslash anywhere disqualifies it too.
    if target.startswith("/") and not target.startswith("//") and "\\" not in target and not parts.netloc:
        return target
    return default


def _start_session(user: User) -> None:
    session.clear()  # a fresh session on every sign-in: nothing from before carries over
    login_user(user)


@auth.route("/sign-up", methods=["GET", "POST"])
@limiter.limit(SIGN_UP_LIMIT, methods=["POST"])
def sign_up():
    if current_user.is_authenticated:
        return redirect(url_for("exercises.index"))
    form = SignUpForm(language=g.lang)
    if form.validate_on_submit():
        try:
            user = create_user(g.db, form.name.data, form.password.data, Role.learner, form.language.data)
        except NameTaken:
            form.name.errors.append(t("name_taken"))
        else:
            g.db.commit()
            _start_session(user)
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
        user = g.db.scalar(select(User).where(User.name == form.name.data.strip()))
        if user is not None and user.check_password(form.password.data):
            _start_session(user)
            return redirect(_safe_next(url_for("exercises.index")))
        failed = True  # one message for a wrong name and a wrong password: do not confirm names
    status = 401 if failed else (400 if form.errors else 200)
    return render_template("auth/sign_in.html", form=form, failed=failed), status


@auth.post("/sign-out")
@login_required
def sign_out():
    form = ConfirmForm()
    if form.validate_on_submit():
        logout_user()
        session.clear()
        flash(t("signed_out"), "info")
    return redirect(url_for("exercises.index"))
