"""What every route of the JSON API (``/api/v1``) stands on: bearer tokens and request bodies.

- :func:`token_required` wraps a route: the request must carry ``Authorization: Bearer <token>``
  of a valid API token (else a 401 saying how to get one); the route then runs with ``g.user``
  (the token's owner), ``g.api_token`` and ``g.lang`` (the owner's saved language) set.
- A request body is read only by :func:`json_object`: a JSON object, nested at most
  :data:`MAX_JSON_DEPTH` deep, whose every string passed :func:`web.core.validation.text_problem`;
  anything else is a 400 before any of it is used.

Errors are JSON ``{"error", "message"}`` with the right status code (the app's error handler
answers so for every path under ``/api/``). Every module of :mod:`web.api` imports these from
here, and nothing outside :mod:`web.api` needs them: a page signs in by cookie, never by token.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import abort, g, request

from judge.learner.wire import nesting_exceeds
from web.core.i18n import choose_language
from web.core.models import ApiToken
from web.core.validation import text_problem

MAX_JSON_DEPTH = 32  # the API's bodies are flat objects; this is generous


def token_required(view: Callable) -> Callable:
    """``view`` behind a bearer token (see the module docstring): a 401 without a valid one."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any):
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            abort(
                401,
                description="send 'Authorization: Bearer <token>' (create a token with "
                "`python -m web create-user NAME --token` or from your profile)",
            )
        user = ApiToken.find_user(g.db, token.strip())
        if user is None:
            abort(401, description="this API token is not valid")
        g.user, g.api_token = user, token.strip()  # the token: a request that waits checks it again
        g.lang = choose_language(user.language)  # as for pages, with the token owner's saved choice
        return view(*args, **kwargs)

    return wrapped


def _strings(value: Any, path: str) -> list[tuple[str, str]]:
    """Every string in a parsed JSON value (keys included), with where it is."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [
            found
            for key, item in value.items()
            for found in _strings(key, path) + _strings(item, f"{path}.{key}" if path else key)
        ]
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in _strings(item, f"{path}[{index}]")]
    return []


def json_object(example: str) -> dict:
    """The request's JSON object (see the module docstring); ``example`` shows a good body in the 400."""
    data = request.get_data(cache=True)
    if not request.is_json:
        abort(400, description=f"send a JSON object {example} with Content-Type: application/json")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        abort(400, description=f"the body is not UTF-8; send a JSON object {example}")
    # Before parsing: the parser recurses once per level (the judge's wire format has the same rule).
    if nesting_exceeds(text, MAX_JSON_DEPTH):
        abort(400, description=f"the JSON body is nested more than {MAX_JSON_DEPTH} levels deep")
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):  # ValueError: not JSON, or an integer of 4300+ digits
        abort(400, description=f"the body is not valid JSON; send a JSON object {example}")
    if not isinstance(body, dict):
        abort(400, description=f"send a JSON object {example}, not a JSON {type(body).__name__}")
    for where, text in _strings(body, ""):
        problem = text_problem(text)
        if problem is not None:
            abort(400, description=f'"{where}": {problem}')
    return body
