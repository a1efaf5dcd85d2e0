"""A learner's profile: progress, language, password, and API tokens (created here, shown once).

Changing the password asks for the current one (rate-limited like signing in, per account) and
ends every other sign-in session of the account; this browser stays signed in. It also revokes
every API token of the account unless the learner unticks that box (ticked by default); tokens
are also revoked here one by one.
"""

from __future__ import annotations

from flask import Blueprint, abort, flash, g, redirect, render_template, url_for
from flask_login import current_user, login_required
from sqlalchemy import select

from judge.i18n import LANGUAGES
from web.access.visibility import withheld_exercises
from web.accounts.users import change_password, revoke_tokens
from web.core.extensions import SIGN_IN_ADDRESS_LIMIT, SIGN_IN_LIMIT, TOKEN_LIMIT, account_key, limiter
from web.core.forms import ConfirmForm, PasswordForm, TokenForm
from web.core.i18n import t
from web.core.models import ApiToken, Exercise, UserSession
from web.learning.progress import user_progress

profile = Blueprint("profile", __name__, url_prefix="/profile")
MAX_TOKENS = 10


def _render(
    token_form: TokenForm | None = None,
    new_token: str | None = None,
    status: int = 200,
    password_form: PasswordForm | None = None,
):
    exercises = g.db.scalars(select(Exercise).order_by(Exercise.number)).all()
    tokens = g.db.scalars(select(ApiToken).where(ApiToken.user_id == current_user.id).order_by(ApiToken.id)).all()
    progress = user_progress(g.db, current_user, withheld_exercises(g.db, current_user.id))
    return render_template(
        "profile.html",
        progress=progress,
        status=progress.status,
        exercises=exercises,
        tokens=tokens,
        token_form=token_form or TokenForm(formdata=None),
        password_form=password_form or PasswordForm(formdata=None),
        confirm_form=ConfirmForm(),
        new_token=new_token,
    ), status


@profile.get("/")
@login_required
def show():
    return _render()


@profile.post("/password")
@login_required
@limiter.limit(SIGN_IN_ADDRESS_LIMIT)
@limiter.limit(SIGN_IN_LIMIT, key_func=account_key)  # guessing the current password is guessing a password
def set_password():
    form = PasswordForm()
    if not form.validate_on_submit():
        return _render(password_form=form, status=400)
    if not current_user.check_password(form.current_password.data):
        form.current_password.errors.append(t("wrong_current_password"))
        return _render(password_form=form, status=400)
    this_session = UserSession.find(g.db, current_user.get_id())
    ended = change_password(g.db, current_user, form.new_password.data, keep=this_session)
    revoked = revoke_tokens(g.db, current_user) if form.revoke_tokens.data else None
    g.db.commit()
    flash(t("password_changed", ended=ended), "success")
    if revoked is not None:
        flash(t("tokens_revoked_count", count=revoked), "info")
    return redirect(url_for("profile.show"))


@profile.post("/tokens")
@login_required
@limiter.limit(TOKEN_LIMIT, key_func=account_key)
def create_token():
    form = TokenForm()
    if not form.validate_on_submit():
        return _render(form, status=400)
    if len(current_user.tokens) >= MAX_TOKENS:
        flash(t("too_many_tokens", limit=MAX_TOKENS), "error")
        return _render(form, status=400)
    token, secret = ApiToken.issue(current_user, label=(form.label.data or "").strip())
    g.db.add(token)
    g.db.commit()
    return _render(TokenForm(formdata=None), new_token=secret)


@profile.post("/tokens/<int:token_id>/revoke")
@login_required
def revoke_token(token_id: int):
    token = g.db.get(ApiToken, token_id)
    if token is None or token.user_id != current_user.id or not ConfirmForm().validate_on_submit():
        abort(404)
    g.db.delete(token)
    g.db.commit()
    flash(t("token_revoked"), "info")
    return redirect(url_for("profile.show"))


@profile.post("/language/<code>")
@login_required
def set_language(code: str):
    if code not in LANGUAGES or not ConfirmForm().validate_on_submit():
        abort(400)
    current_user.language = code
    g.db.commit()
    return redirect(url_for("profile.show", lang=code))
