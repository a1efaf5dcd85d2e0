"""Command line of the web site: ``python -m web init-db`` and ``python -m web create-user``.

    python -m web init-db
    python -m web create-user NAME --role learner|instructor --password PW [--token]

Both read ``DATABASE_URL`` (default: ``instance/probjudge.db``) and bring the schema up to date
first. ``--token`` prints a new API token for the user (shown once; only its hash is stored).
"""

from __future__ import annotations

import argparse
import sys

from sqlalchemy import select

from web.config import Settings
from web.database import make_engine, session_factory, upgrade
from web.exercises import sync_exercises
from web.models import ApiToken, Role, User


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m web", description="ProbJudge web site administration")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("init-db", help="create or upgrade the database and sync the exercises")
    create = commands.add_parser("create-user", help="create an account")
    create.add_argument("name")
    create.add_argument("--role", choices=[r.value for r in Role], default="learner")
    create.add_argument("--password", required=True)
    create.add_argument("--token", action="store_true", help="also print an API token for the account")
    args = parser.parse_args(argv)

    try:
        settings = Settings.from_environment()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    Session = session_factory(engine)
    with Session() as session:
        if args.command == "init-db":
            result = sync_exercises(session)
            print(f"database ready; exercises added {result.added}, changed {result.changed}, "
                  f"unchanged {result.unchanged}")
            return 0
        name = args.name.strip()
        if not name or len(name) > 64 or not name.replace("_", "").replace("-", "").replace(".", "").isalnum():
            print("error: a user name is 1-64 letters, digits, '.', '_' or '-'", file=sys.stderr)
            return 2
        if session.scalar(select(User).where(User.name == name)) is not None:
            print(f"error: a user named {name!r} already exists", file=sys.stderr)
            return 2
        user = User(name=name, role=Role(args.role))
        try:
            user.set_password(args.password)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        session.add(user)
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
