"""The JSON API, ``/api/v1`` (bearer tokens; docs/api.md, docs/openapi.json).

- ``base`` — what every API module shares: bearer-token authentication (``token_required``) and
  reading a JSON body (``json_object``).
- ``submissions`` — exercises and submissions, the grading health.
- ``gradebook`` — a course's gradebook as JSON and CSV (the page's twin).
- ``admin`` — an admin revokes every credential of an account (the page's twin).
- ``courses`` — courses, invitations, people, assignments, extensions and overrides.
- ``analytics`` — a course's mistake analytics.
- ``submission_list`` — a course's submissions, for its instructors.
- ``similarity`` — a course's similarity checks: run, read, CSV (the pages' twin; its instructors alone).
- ``lti`` — a course's roster synced from the LMS courses linked to it (the page's twin).

May import (the layers below it in .importlinter's ``web-layers``): ``web.learning``, ``web.lms``,
``web.teaching``, ``web.accounts``, ``web.access``, ``web.services``, ``web.grading``,
``web.core``; ``judge.learner`` (the wire's nesting limit). Each route calls the same domain
function as its page: the API holds no rule of its own.

Imported by: ``web.app`` only (it registers the blueprint); no page imports a route of the API.
"""
