"""``python -m web serve``: what ``make run`` starts. Migrate, sync, bootstrap, serve.

The site is served by waitress, a pure-Python production WSGI server (threads, no C build,
runs wherever Python does), with the grading workers in the same process unless
``PROBJUDGE_WORKERS=0`` (then ``python -m web grade`` processes grade, see :mod:`web.grading.workers`). For a deployment
behind a reverse proxy, see web/README.md (gunicorn is an equally good choice there).
"""

from __future__ import annotations

import logging
import os
import signal
import sys

from web.accounts.users import AccountError, ensure_admin
from web.core.config import PROJECT_ROOT, Settings
from web.core.heap import freeze_start_up

ASSETS = PROJECT_ROOT / "web" / "static" / "build"
REQUIRED_ASSETS = ("editor.js", "site.js", "katex/katex.min.css")


def missing_assets() -> list[str]:
    """The bundled browser files that are not built (``make`` builds them with npm at set-up)."""
    return [name for name in REQUIRED_ASSETS if not (ASSETS / name).is_file()]


def serve(host: str, port: int, threads: int = 8) -> int:
    """Start the site on ``host:port`` until interrupted; return an exit status."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    missing = missing_assets()
    if missing:
        print(
            f"error: the browser assets are not built ({', '.join(missing)} missing under {ASSETS}); "
            "run `make run`, or `make assets`",
            file=sys.stderr,
        )
        return 2
    try:
        settings = Settings.from_environment()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    from waitress import create_server

    from web.app import create_app
    from web.services import services

    try:
        app = create_app(settings)
    except RuntimeError as error:  # the sandbox refused: strict is unavailable and no fallback is allowed
        print(f"error: {error}", file=sys.stderr)
        return 2
    site = services(app)
    with site.sessions() as session:
        try:
            created = ensure_admin(
                session,
                os.environ.get("PROBJUDGE_ADMIN_USER", "instructor"),
                os.environ.get("PROBJUDGE_ADMIN_PASSWORD") or None,
            )
        except AccountError as error:
            print(f"error: PROBJUDGE_ADMIN_USER / PROBJUDGE_ADMIN_PASSWORD: {error}", file=sys.stderr)
            return 2
    server = create_server(app, host=host, port=port, threads=threads, ident="ProbJudge")
    url = f"http://{host if host not in ('0.0.0.0', '::') else 'localhost'}:{server.effective_port}/"
    graders = (
        f"sandbox: {site.sandbox}; {settings.workers} grading workers"
        if settings.workers
        else "no grading workers here: run `python -m web grade`"
    )
    print(f"ProbJudge is serving {url}  (database: {settings.database_url}; {graders})", flush=True)
    if created:
        user, password = created
        print(
            f"Created the site admin account {user.name!r} with password {password!r}. "
            "It is shown only this once; change it with `python -m web set-password "
            f"{user.name} --password NEW`.",
            flush=True,
        )
    print("Press Ctrl+C to stop.", flush=True)

    def _stop(_signum, _frame) -> None:
        raise KeyboardInterrupt  # SIGTERM ends the server the way Ctrl+C does

    signal.signal(signal.SIGTERM, _stop)
    freeze_start_up()  # the grading workers are running already: they only add objects of their own
    try:
        server.run()
    except KeyboardInterrupt:
        server.close()
    finally:
        print("stopping: finishing the submissions being graded (queued ones stay queued)", flush=True)
        site.queue.stop()
    return 0
