"""LMS: ProbJudge as an LTI 1.3 tool inside Canvas, Moodle, Brightspace (docs/lms.md, docs/lms-grades.md).

- ``models`` — the LTI tables: platforms, deployments, our keys, accounts, contexts, resource
  links, launch values (nonces and kept launches, with their expiry).
- ``passback_models`` — the rows of score posts and roster syncs.
- ``keys`` — our RSA signing keys: made on first need, rotated, published with a grace period.
- ``registry`` — registering platforms (the admin page and ``python -m web lti``), the URLs to
  give an LMS.
- ``adapter`` — the only module that imports pylti1p3: our tool configuration and launch-data
  storage on the database, login, launch validation, the deep-linking answer.
- ``provisioning`` — from a validated launch to the account, course, membership and link.
- ``framing`` — an LTI session inside the LMS's iframe: its cookie and framing headers.
- ``pages`` — ``/lti/...`` (JWKS, login, launch, the deep-linking picker) and ``/admin/lti``.
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

Imported by: ``web.api`` (the roster sync's JSON twin), ``web.app`` (blueprints, session
interface, periodic job) and ``python -m web lti``.
"""
