"""The Flask application factory: one blueprint per area (auth, exercises, submissions, profile, api).

``create_app(settings)`` opens the database (migrating it), syncs the exercises, builds the
sandbox launcher chosen by configuration, binds the extensions (login, CSRF, rate limits) and
starts the grading workers, all in one place; the shared objects are one typed
:class:`~web.services.Services` (see :func:`web.services.services`).
"""

from __future__ import annotations

import logging
import threading

from flask import Flask, g, jsonify, render_template, request
from flask_login import current_user
from werkzeug.exceptions import HTTPException
from werkzeug.routing import IntegerConverter

from judge.engine.process import Launcher
from judge.i18n import LANGUAGES
from judge.sandbox import launcher_for
from web.access.presenting import minute
from web.core import i18n
from web.core.config import Settings
from web.core.database import make_engine, session_factory, upgrade
from web.core.extensions import csrf, limiter, login_manager
from web.core.models import User, UserSession, as_utc
from web.core.moments import show as show_moment
from web.grading.queue import GradingQueue
from web.learning.exercises import sync_exercises
from web.learning.figures import case_figures, figure_texts
from web.lms.framing import LtiSessionInterface, frame_ancestors
from web.services import Services, services

log = logging.getLogger("probjudge.web")

# Every asset comes from this site (KaTeX, CodeMirror and Pyodide are bundled at set-up). CodeMirror
# writes its styles into <style> elements, hence 'unsafe-inline' for styles only; Pyodide compiles
# its WebAssembly, hence 'wasm-unsafe-eval' (which allows no JavaScript eval).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)


class DatabaseId(IntegerConverter):
    """``<int:...>`` in every route: ASCII digits that fit an INTEGER column, else a 404.

    Werkzeug's converter takes any length (and ``\\d`` matches other scripts' digits), and a
    number past the column's range makes the database raise (SQLite above 2**63, PostgreSQL
    above 2**31) instead of finding nothing.
    """

    regex = r"[0-9]+"

    def __init__(self, url_map, *args, **kwargs) -> None:
        kwargs.setdefault("max", 2**31 - 1)  # PostgreSQL's INTEGER, the narrowest id column here
        super().__init__(url_map, *args, **kwargs)


def create_app(
    settings: Settings | None = None, *, launcher: Launcher | None = None, start_workers: bool = True
) -> Flask:
    """Build the site. ``launcher`` overrides the sandbox chosen by ``settings`` (tests use it).

    With ``settings.workers`` at 0 the site grades nothing itself and starts no sandbox: grader
    processes (``python -m web grade``) on the same database do the judging.
    """
    settings = settings or Settings.from_environment()
    app = Flask(__name__)
    if settings.trusted_proxies:
        # Behind nginx or a load balancer the request reaches us as plain HTTP from the proxy: without
        # its X-Forwarded-* headers, URLs (LTI's redirect and launch URLs among them) say http, cookies
        # marked Secure look wrong to pylti1p3, and every client shares the proxy's address for the
        # rate limits. Only as many hops as were configured are believed: a client could forge more.
        from werkzeug.middleware.proxy_fix import ProxyFix

        n = settings.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n, x_port=n, x_prefix=n)  # type: ignore[method-assign]
    app.session_interface = LtiSessionInterface()  # SameSite=None only for LTI sessions (web.lms.framing)
    app.url_map.converters["int"] = DatabaseId  # before any blueprint adds a rule
    app.config.update(
        SECRET_KEY=settings.secret_key,
        MAX_CONTENT_LENGTH=settings.max_code_bytes * 4,  # room for form encoding; the code limit is checked itself
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings.secure_cookies,
        REMEMBER_COOKIE_HTTPONLY=True,
        REMEMBER_COOKIE_SAMESITE="Lax",
        REMEMBER_COOKIE_SECURE=settings.secure_cookies,
        RATELIMIT_ENABLED=settings.rate_limits,
        RATELIMIT_STORAGE_URI=settings.ratelimit_storage,
        RATELIMIT_HEADERS_ENABLED=True,
        WTF_CSRF_TIME_LIMIT=None,  # the token lives as long as the session
    )
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    sessions = session_factory(engine)
    with sessions() as session:
        sync_exercises(session)
    broker = None
    site_workers = settings.workers
    if settings.broker_url is not None:
        # Celery workers grade (`python -m web grade` on any machine); the site only publishes.
        from web.grading.broker import Broker
        from web.grading.tasks import app_for

        broker = Broker(app_for(settings))
        site_workers = 0
    if launcher is None and site_workers > 0:
        launcher = launcher_for(
            settings.sandbox, allow_weaker=settings.allow_weaker_sandbox, slots=settings.sandbox_slots(site_workers)
        )
    queue = GradingQueue(
        sessions,
        launcher if broker is None else None,
        workers=site_workers,
        max_code_bytes=settings.max_code_bytes,
        lease_s=settings.lease_s,
        broker=broker,
        lanes=settings.lanes,
    )
    Services(
        settings=settings,
        engine=engine,
        sessions=sessions,
        queue=queue,
        sandbox=queue.launcher.level if queue.launcher is not None else settings.sandbox,
    ).attach(app)
    if broker is not None:
        log.info("grading through the broker: run `python -m web grade` (workers) and `python -m web beat`")
    elif queue.launcher is None:
        log.info("no grading workers in this process: run `python -m web grade` beside it")
    elif queue.launcher.level != "strict":
        log.warning(
            "sandbox level %r: learners' code is NOT isolated; do not open this site to strangers", queue.launcher.level
        )
    else:
        log.info("sandbox level: strict")

    _bind_extensions(app)
    _register_request_hooks(app)
    _register_blueprints(app)
    _register_error_pages(app)
    if start_workers:
        queue.start()
        if settings.lti_passback_s > 0:
            # Scores go to the LMSs from here, above grading: grading never calls up (docs/layout.md).
            from web.lms.services_job import start_passback

            stop = threading.Event()
            app.extensions["lti_passback_stop"] = stop
            start_passback(sessions, stop, settings.lti_passback_s)
    return app


def request_session():
    """The request's database session (``g.db``), opened on first use.

    Routing errors (a 404, a 405) render their page before any before_request hook runs, and
    that page may need the signed-in user; so whoever needs the session first opens it.
    """
    if "db" not in g:
        g.db = services().sessions()
    return g.db


def _bind_extensions(app: Flask) -> None:
    login_manager.init_app(app)
    login_manager.login_view = "auth.sign_in"
    login_manager.session_protection = "strong"
    csrf.init_app(app)
    limiter.init_app(app)

    @login_manager.user_loader
    def _load_user(token: str) -> User | None:
        """The user of the sign-in session whose token the cookie holds (see web.accounts.auth)."""
        db = request_session()
        row = UserSession.find(db, token) if isinstance(token, str) else None
        if row is None:
            return None  # signed out, ended by a password change, idle too long, or never issued
        if row.touch():
            db.commit()
        user = row.user
        user.login_token = token
        return user

    @login_manager.unauthorized_handler
    def _unauthorized():
        from flask import flash, redirect, url_for

        flash(i18n.t("sign_in_first"), "info")
        return redirect(url_for("auth.sign_in", next=request.full_path.rstrip("?")))


def _register_request_hooks(app: Flask) -> None:
    @app.before_request
    def _open_session() -> None:
        request_session()
        user_language = current_user.language if current_user.is_authenticated else None
        g.lang = i18n.choose_language(user_language)

    @app.teardown_request
    def _close_session(_error) -> None:
        db = g.pop("db", None)
        if db is not None:
            db.close()

    @app.after_request
    def _headers(response):
        wanted = request.args.get("lang")
        if wanted in LANGUAGES:
            response.set_cookie(
                i18n.COOKIE, wanted, max_age=365 * 24 * 3600, samesite="Lax", secure=app.config["SESSION_COOKIE_SECURE"]
            )
        frames = frame_ancestors()  # an LMS's iframe may hold an LTI session's pages (web.lms.framing)
        policy = CONTENT_SECURITY_POLICY
        if frames:
            policy = policy.replace("frame-ancestors 'none'", "frame-ancestors " + " ".join(frames))
        else:
            response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Content-Security-Policy", policy)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    # Globals, not a context processor, so that imported macros see them too.
    app.jinja_env.globals.update(
        t=i18n.t, has_text=i18n.has_text, pick=i18n.pick, localized=i18n.localized, text_template=i18n.template
    )
    app.jinja_env.filters["ordinal"] = i18n.ordinal
    app.jinja_env.filters["code_spans"] = i18n.code_spans
    # A failed check's picture (web/learning/figures.py): what a case shows, and the words its chart uses.
    app.jinja_env.globals.update(case_figures=case_figures, figure_texts=figure_texts)
    # A learner's own submission time, to the minute (web.access.presenting.shown_time says why).
    app.jinja_env.filters["to_minute"] = lambda moment: minute(moment).isoformat()
    # A stored moment as the course's pages show it: wall-clock time in the course's zone, with
    # its offset (web.core.moments.show); every course template writes `moment|course_time(course)`.
    # No course (a single submission's rejudge): UTC.
    # With seconds=True where lateness is decided (due times, submission times in a course).
    app.jinja_env.filters["course_time"] = lambda moment, course, seconds=False: show_moment(
        moment, course.time_zone if course is not None else "UTC", seconds
    )
    app.jinja_env.filters["to_second"] = lambda moment: as_utc(moment).replace(microsecond=0).isoformat()

    @app.context_processor
    def _template_values() -> dict:
        return {"lang": g.get("lang", "en"), "sandbox_level": services(app).sandbox}


def _register_blueprints(app: Flask) -> None:
    from web.accounts.admin_pages import admin
    from web.accounts.auth import auth
    from web.api.admin import admin_api
    from web.api.analytics import analytics_api
    from web.api.courses import course_api
    from web.api.gradebook import gradebook_api
    from web.api.lti import lti_api
    from web.api.similarity import similarity_api
    from web.api.submission_list import submission_list_api
    from web.api.submissions import api
    from web.learning.browser_run import browser_run
    from web.learning.exercise_pages import exercises
    from web.learning.profile import profile
    from web.learning.submission_pages import submissions
    from web.lms.pages import lti
    from web.lms.roster_pages import roster_pages
    from web.teaching.analytics_pages import analytics_pages
    from web.teaching.course_pages import courses
    from web.teaching.course_submission_pages import course_submissions
    from web.teaching.gradebook_pages import gradebook
    from web.teaching.rejudge_pages import rejudges
    from web.teaching.similarity_pages import similarity

    # Bearer tokens, not cookies: a browser never sends them by itself.
    api_blueprints = (
        api,
        course_api,
        gradebook_api,
        submission_list_api,
        analytics_api,
        admin_api,
        similarity_api,
        lti_api,
    )
    for api_blueprint in api_blueprints:
        csrf.exempt(api_blueprint)
    pages = (
        auth,
        exercises,
        submissions,
        profile,
        browser_run,
        courses,
        gradebook,
        course_submissions,
        rejudges,
        roster_pages,
    )
    for blueprint in (*api_blueprints, *pages, analytics_pages, admin, similarity, lti):
        app.register_blueprint(blueprint)


def _register_error_pages(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def _errors(error: HTTPException):
        if request.path.startswith("/api/"):
            return jsonify({"error": error.name, "message": error.description}), error.code
        if "lang" not in g:
            g.lang = i18n.choose_language()
        return render_template("error.html", error=error), error.code
