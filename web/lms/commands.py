"""``python -m web lti register|platforms|rotate-keys``: the admin page's twin for a terminal.

``register`` prints the URLs to give the LMS (from ``--site``, the address learners use, default
``PROBJUDGE_SITE_URL`` or ``http://127.0.0.1:5000``); ``platforms`` lists every platform with its
deployment ids; ``rotate-keys`` makes a new signing key and retires the old ones (still
published for :data:`web.lms.keys.GRACE`).
"""

from __future__ import annotations

import argparse
import os
import sys

from sqlalchemy import select
from sqlalchemy.orm import Session

from web.lms.keys import GRACE, rotate, signing_key
from web.lms.models import LtiDeployment
from web.lms.registry import PlatformFields, RegistrationError, platforms, register, tool_urls

DEFAULT_SITE = "http://127.0.0.1:5000"


def add_parser(commands) -> None:
    """Add the ``lti`` command and its subcommands to ``python -m web``'s parser."""
    lti = commands.add_parser("lti", help="LTI 1.3: register LMS platforms, list them, rotate our keys")
    sub = lti.add_subparsers(dest="lti_command", required=True)
    reg = sub.add_parser("register", help="register a platform (or add a deployment id to it)")
    for name in ("issuer", "client-id", "deployment", "auth-login-url", "auth-token-url", "key-set-url"):
        reg.add_argument(f"--{name}", required=True)
    reg.add_argument("--name", default="")
    reg.add_argument("--auth-audience", default=None)
    reg.add_argument("--site", default=None, help="the site's public address, for the URLs to give the LMS")
    sub.add_parser("platforms", help="list the registered platforms and their deployment ids")
    sub.add_parser("rotate-keys", help="make a new signing key; the old ones stay published for a grace period")


def _print_urls(site: str) -> None:
    urls = tool_urls(site)
    print(f"  JWKS URL:                {urls['jwks_url']}")
    print(f"  OIDC login URL:          {urls['login_url']}")
    print(f"  launch / redirect URL:   {urls['launch_url']}")
    print(f"  deep linking URL:        {urls['deep_link_url']}")


def run(session: Session, args: argparse.Namespace) -> int:
    """Run one ``lti`` subcommand (committing what it changes); the exit status."""
    if args.lti_command == "register":
        fields = PlatformFields(
            issuer=args.issuer,
            client_id=args.client_id,
            deployment_id=args.deployment,
            auth_login_url=args.auth_login_url,
            auth_token_url=args.auth_token_url,
            key_set_url=args.key_set_url,
            name=args.name,
            auth_audience=args.auth_audience,
        )
        try:
            platform, new_deployment = register(session, fields)
        except RegistrationError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        signing_key(session)
        session.commit()
        added = "added" if new_deployment else "already known"
        print(f"platform {platform.name!r} ({platform.issuer}, client id {platform.client_id}); deployment {added}")
        print("give the LMS:")
        _print_urls(args.site or os.environ.get("PROBJUDGE_SITE_URL") or DEFAULT_SITE)
        return 0
    if args.lti_command == "platforms":
        rows = platforms(session)
        if not rows:
            print("no platform registered")
        for row in rows:
            ids = session.scalars(select(LtiDeployment.deployment_id).where(LtiDeployment.platform_id == row.id))
            print(f"{row.id}\t{row.name}\t{row.issuer}\t{row.client_id}\tdeployments: {', '.join(ids)}")
        return 0
    key = rotate(session)
    session.commit()
    print(f"new signing key {key.kid}; retired keys stay in the JWKS for {GRACE.days} days")
    return 0
