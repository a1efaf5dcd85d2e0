"""Command line of the web site.

    python -m web serve [--host HOST] [--port PORT]     (what `make run` starts)
    python -m web grade [--workers N] [--queues Q]      (grading workers in their own process;
                                                         a Celery worker when PROBJUDGE_BROKER_URL is set)
    python -m web beat                                  (with a broker: the periodic sweep's schedule)
    python -m web init-db
    python -m web create-user NAME --role learner|instructor|admin --password PW [--token]
    python -m web set-password NAME --password PW
    python -m web revoke NAME                           (all API tokens and sign-in sessions of NAME)
    python -m web lti register --issuer ... --client-id ... --deployment ... --auth-login-url ...
                 --auth-token-url ... --key-set-url ... [--site URL]   (an LMS platform; docs/lms.md)
    python -m web lti platforms | rotate-keys

Each reads ``DATABASE_URL`` (default: ``instance/probjudge.db``) and brings the schema up to
date first. A NAME is found as on the sign-in page (case and Unicode width do not matter; see
``web/core/names.py``). ``set-password`` also ends every sign-in session of the account (all its
browsers are signed out); its API tokens stay valid. ``revoke`` revokes every API token of the
account and ends every sign-in session (its password still works). ``--token`` prints a new API token for the
user (shown once; only its hash is stored). ``serve`` also reads ``HOST`` and ``PORT`` (defaults
127.0.0.1 and 5000) and, on a site without an admin, creates the site admin
(``PROBJUDGE_ADMIN_USER``/``PROBJUDGE_ADMIN_PASSWORD``, else ``instructor`` with a random password
printed once).

The site's libraries are the ``site`` extra (``pip install 'probjudge[site]'``), a broker and
PostgreSQL need ``scale`` (judge/extras.py): this module imports none of them until it has checked,
so an install without them gets one line naming the extra (exit 2), not a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys

from judge.extras import MissingExtra, missing_extra, require
from judge.i18n import default_language


def main(argv: list[str] | None = None) -> int:  # None: sys.argv[1:] (the probjudge-web entry point)
    """Run one command; exit 2 with the extra to install when the site's libraries are missing."""
    try:
        require("site")
        return _run(argv)
    except MissingExtra as missing:
        print(missing.error_line(default_language()), file=sys.stderr)
        return 2
    except ImportError as error:  # deeper in: Celery for a broker, psycopg for a PostgreSQL URL
        found = missing_extra(error)
        if found is None:
            raise
        print(found.error_line(default_language()), file=sys.stderr)
        return 2


def _run(argv: list[str] | None) -> int:
    from web.accounts.users import AccountError, change_password, create_user, find_user, revoke_credentials
    from web.core.config import Settings
    from web.core.database import make_engine, session_factory, upgrade
    from web.core.models import ApiToken, Role
    from web.learning.exercises import sync_exercises

    parser = argparse.ArgumentParser(prog="python -m web", description="ProbJudge web site administration")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_command = commands.add_parser("serve", help="start the site (migrates, syncs, creates an instructor)")
    serve_command.add_argument("--host", default=os.environ.get("HOST") or "127.0.0.1")
    serve_command.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 5000))
    grade_command = commands.add_parser(
        "grade",
        help="run grading workers in this process (any number of these "
        "may run beside the site, on this or other machines)",
    )
    grade_command.add_argument(
        "--workers", type=int, default=None, help="worker threads (default: PROBJUDGE_WORKERS, at least 1)"
    )
    grade_command.add_argument(
        "--queues",
        default=None,
        help="with a broker: live, rejudge or live,rejudge (default; live first). A worker on 'live' "
        "alone keeps learners' verdicts quick while a course rejudge runs",
    )
    commands.add_parser("beat", help="with PROBJUDGE_BROKER_URL: send the periodic sweep (one per site)")
    commands.add_parser("init-db", help="create or upgrade the database and sync the exercises")
    create = commands.add_parser("create-user", help="create an account")
    create.add_argument("name")
    create.add_argument("--role", choices=[r.value for r in Role], default="learner")
    create.add_argument("--password", required=True)
    create.add_argument("--token", action="store_true", help="also print an API token for the account")
    change = commands.add_parser("set-password", help="set an account's password")
    change.add_argument("name")
    change.add_argument("--password", required=True)
    revoke = commands.add_parser("revoke", help="revoke all API tokens of an account and end its sign-in sessions")
    revoke.add_argument("name")
    from web.lms.commands import add_parser as add_lti

    add_lti(commands)
    args = parser.parse_args(argv)
    if args.command == "serve":
        from web.serve import serve

        return serve(args.host, args.port)
    if args.command == "grade":
        from web.grading.workers import run_graders

        return run_graders(args.workers, args.queues)
    if args.command == "beat":
        from web.grading.workers import run_beat

        return run_beat()

    try:
        settings = Settings.from_environment()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    Session = session_factory(engine)
    with Session() as session:
        if args.command == "lti":
            from web.lms.commands import run as run_lti

            return run_lti(session, args)
        if args.command == "init-db":
            result = sync_exercises(session)
            print(
                f"database ready; exercises added {result.added}, changed {result.changed}, "
                f"unchanged {result.unchanged}"
            )
            return 0
        if args.command == "revoke":
            user = find_user(session, args.name)
            if user is None:
                print(f"error: no user named {args.name!r}", file=sys.stderr)
                return 2
            tokens, sessions = revoke_credentials(session, user)
            session.commit()
            print(f"{user.name!r}: {tokens} API tokens revoked, {sessions} sign-in sessions ended (password unchanged)")
            return 0
        if args.command == "set-password":
            user = find_user(session, args.name)
            if user is None:
                print(f"error: no user named {args.name!r}", file=sys.stderr)
                return 2
            try:
                ended = change_password(session, user, args.password)  # keeps no session: all end
            except ValueError as error:
                print(f"error: {error}", file=sys.stderr)
                return 2
            session.commit()
            print(f"password of {user.name!r} changed; {ended} sign-in sessions ended (API tokens stay valid)")
            return 0
        try:
            user = create_user(session, args.name, args.password, Role(args.role))
        except AccountError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        secret = None
        if args.token:
            token, secret = ApiToken.issue(user, label="created by python -m web create-user")
            session.add(token)
        session.commit()
        print(f"created {user.role.value} {user.name!r}")
        if secret:
            print(secret)
    engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
