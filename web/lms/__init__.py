"""The LMS side of the site (LTI 1.3): the site as a tool that LMSs (Canvas, Moodle, Brightspace) launch.

Branch lti-grades's modules (branch lti-core adds registration, keys, launch, deep linking and
writes the models; merge the two lists):

- ``models`` — TEMPORARY STUB of lti-core's models (platforms, keys, accounts, contexts, links).
- ``passback_models`` — the rows of score posts and roster syncs.
- ``service_client`` — OAuth2 access tokens (a client assertion signed by the tool's key) and calls
  to a platform's services.
- ``roster`` — Names and Roles: a platform course's members become the course's members.
- ``passback`` — Assignment and Grade Services: line items; the counted scores queued and posted.
- ``services_job`` — the periodic thread the application factory starts.
- ``roster_pages`` — the instructors' "sync the roster" button on the course page.

May import (the layers below it in .importlinter's ``web-layers``; it shares a layer with
``learning``, so neither imports the other): ``web.teaching``, ``web.accounts``, ``web.access``,
``web.services``, ``web.grading``, ``web.core``.

Not ``web.api``: the API's routes call this package's functions, from above.

Imported by: ``web.api`` (the roster sync's JSON twin) and ``web.app`` (blueprint, periodic job).
"""
