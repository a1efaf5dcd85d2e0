"""The site admin's side of the JSON API, the twin of :mod:`web.accounts.admin_pages`.

``POST /api/v1/admin/users/<id>/revoke`` with ``{"confirm": true}`` revokes every API token and
ends every sign-in session of the account (:func:`web.accounts.users.revoke_credentials`, as
the page's button and ``python -m web revoke NAME``); the password is not changed. Only a site
admin's token reaches it; anyone else gets the 404 of a route that does not exist
(:func:`web.access.permissions.user_to_administer`). Bearer tokens as in :mod:`web.api.base`.
"""

from __future__ import annotations

from flask import Blueprint, abort, g, jsonify

from web.access.permissions import user_to_administer
from web.accounts.users import revoke_credentials
from web.api.base import json_object, token_required

admin_api = Blueprint("admin_api", __name__, url_prefix="/api/v1/admin")


@admin_api.post("/users/<int:user_id>/revoke")
@token_required
def api_revoke(user_id: int):
    """Body: ``{"confirm": true}``; answers how many tokens and sessions ended."""
    user = user_to_administer(user_id, g.user)
    if json_object('{"confirm": true}').get("confirm") is not True:
        abort(400, description='send {"confirm": true} to confirm')
    tokens, sessions = revoke_credentials(g.db, user)
    g.db.commit()
    return jsonify({"user": user.name, "tokens_revoked": tokens, "sessions_ended": sessions})
