"""The periodic job of the LTI services, started by the application factory (web/app.py), never by grading.

A daemon thread runs :func:`web.lms.passback.passback_round` every :data:`INTERVAL_S` seconds in
each site process: a new grading, a rejudge or an override reaches the platform within about a
minute (the sweep sees it at its next round; a post is tried at once). Then
:func:`web.lms.roster.roster_round` syncs the roster of each platform course launched since its
last sync (a launch never waits on the LMS for it). Several site processes
may run it together: queueing and posting claim their rows in the database (see passback.py).
A site with no LMS does two cheap existence checks per round (a resource link for the passback,
a platform course for the roster) and nothing else.
"""

from __future__ import annotations

import logging
import threading

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from web.lms.passback import passback_round
from web.lms.roster import roster_round
from web.lms.service_client import ServiceClient, signing_key

log = logging.getLogger("probjudge.lti")
INTERVAL_S = 20.0


def client_for(sessions: sessionmaker[Session]) -> ServiceClient:
    """A :class:`ServiceClient` that reads the tool's signing key from the database when it needs one."""

    def key():
        with sessions() as session:
            return signing_key(session)

    return ServiceClient(key)


def _any_link(sessions: sessionmaker[Session]) -> bool:
    from web.lms.models import LtiResourceLink

    with sessions() as session:
        return session.scalar(select(LtiResourceLink.id).limit(1)) is not None


def start_passback(
    sessions: sessionmaker[Session], stop: threading.Event, interval_s: float = INTERVAL_S
) -> threading.Thread:
    """Start the job's thread; it ends when ``stop`` is set. An error in one round is logged, and
    the next round runs as usual (the rows it left are where they were)."""
    client = client_for(sessions)

    def run() -> None:
        while not stop.wait(interval_s):
            try:
                if _any_link(sessions):
                    queued, posted = passback_round(sessions, client)
                    if queued.queued or posted.posted or posted.failed:
                        log.info(
                            "lti passback: %s queued, %s posted, %s failed", queued.queued, posted.posted, posted.failed
                        )
            except Exception:  # one bad round must not end the job
                log.exception("lti passback round failed")
            try:
                synced = roster_round(sessions, client)
                if synced:
                    log.info("lti rosters: %s synced after launches", synced)
            except Exception:  # nor one bad roster
                log.exception("lti roster round failed")

    thread = threading.Thread(target=run, name="lti-passback", daemon=True)
    thread.start()
    return thread
