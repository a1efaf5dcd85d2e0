"""LMS: ProbJudge as an LTI 1.3 tool inside Canvas, Moodle, Brightspace (docs/lms.md).

- ``models`` — the LTI tables: platforms, deployments, our keys, accounts, contexts, resource
  links, launch values (nonces and kept launches, with their expiry).
- ``keys`` — our RSA signing keys: made on first need, rotated, published with a grace period.
- ``registry`` — registering platforms (the admin page and ``python -m web lti``), the URLs to
  give an LMS.
- ``adapter`` — the only module that imports pylti1p3: our tool configuration and launch-data
  storage on the database, login, launch validation, the deep-linking answer.
- ``provisioning`` — from a validated launch to the account, course, membership and link.
- ``framing`` — an LTI session inside the LMS's iframe: its cookie and framing headers.
- ``pages`` — ``/lti/...`` (JWKS, login, launch, the deep-linking picker) and ``/admin/lti``.

May import (the layers below it in .importlinter's ``web-layers``): ``web.teaching``,
``web.accounts``, ``web.access``, ``web.services``, ``web.grading``, ``web.core``.

Imported by: ``web.app`` (its blueprint, its session interface) and ``python -m web lti``.
"""
