"""The admin's page of one account: revoke every credential of an account (its JSON twin is :mod:`web.api.admin`).

An admin finds an account by name (``/admin/users?name=ann``) and, on its page, revokes all
its API tokens and ends all its sign-in sessions at once (a lost laptop, a leaked token, a
departing member of staff). The password is not changed. Only the site admin reaches any of
this; anyone else gets the 404 of a page that does not exist (:mod:`web.access.permissions`).
``python -m web revoke NAME`` does the same from the command line (:func:`web.accounts.users.revoke_credentials`).
"""

from __future__ import annotations

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from sqlalchemy import func, select

from web.access.permissions import is_admin, user_to_administer
from web.accounts.users import find_user, revoke_credentials
from web.core.forms import SureForm
from web.core.i18n import t
from web.core.models import ApiToken, User, UserSession

admin = Blueprint("admin", __name__, url_prefix="/admin")


def _count(model, user: User) -> int:
    return g.db.scalar(select(func.count()).select_from(model).where(model.user_id == user.id)) or 0


@admin.get("/users")
@login_required
def find():
    if not is_admin(current_user):
        abort(404)
    name = request.args.get("name", "").strip()[:64]
    user = find_user(g.db, name) if name else None
    if user is not None:
        return redirect(url_for("admin.show", user_id=user.id))
    if name:
        flash(t("admin_no_such_user", name=name), "error")
    return render_template("admin/user.html", user=None, name=name)


def _render(user: User, form: SureForm | None = None, status: int = 200):
    return render_template(
        "admin/user.html",
        user=user,
        name=user.name,
        tokens=_count(ApiToken, user),
        sessions=_count(UserSession, user),
        form=form or SureForm(formdata=None),
    ), status


@admin.get("/users/<int:user_id>")
@login_required
def show(user_id: int):
    return _render(user_to_administer(user_id, current_user))


@admin.post("/users/<int:user_id>/revoke")
@login_required
def revoke(user_id: int):
    user = user_to_administer(user_id, current_user)
    form = SureForm()
    if not form.validate_on_submit():
        return _render(user, form, 400)
    tokens, sessions = revoke_credentials(g.db, user)
    g.db.commit()
    flash(t("admin_revoked", name=user.name, tokens=tokens, sessions=sessions), "success")
    return redirect(url_for("admin.show", user_id=user.id))
