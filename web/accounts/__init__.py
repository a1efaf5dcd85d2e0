"""Accounts: creating and finding users, signing in and out, and an admin's hold on an account.

- ``users`` — creating, finding and authenticating users, changing passwords, ending sign-in
  sessions and revoking tokens.
- ``auth`` — the sign-up, sign-in and sign-out pages (rate-limited by address).
- ``admin_pages`` — the admin's page of one account: revoke every credential of it.

May import (the layers below it in .importlinter's ``web-layers``): ``web.access``,
``web.services``, ``web.grading``, ``web.core``.

Imported by: ``web.teaching`` (invitations find accounts), ``web.learning`` (the profile),
``web.api``, ``web.app``, ``web.serve`` (the first admin) and ``python -m web``.
"""
