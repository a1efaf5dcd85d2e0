"""Date-times of courses: stored in UTC, typed and shown in the course's time zone.

A deadline is a moment, so the database holds it in UTC (SQLite keeps no offset; every
date-time column is written in UTC, see :func:`web.core.models.as_utc`). People think in their
course's wall-clock time, so an instructor types ``2027-03-14 23:59`` and the page shows it
back in the same zone, with its offset, across daylight-saving changes.

A wall-clock time can be ambiguous where clocks fall back (01:30 happens twice) or missing
where they spring forward (02:30 never happens): :func:`parse_moment` refuses both with a
message that asks for an explicit offset, rather than guessing an hour either way.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from web.core.models import as_utc
from web.core.zones import COMMON_ZONES

DISPLAY_FORMAT = "%Y-%m-%d %H:%M %Z (UTC%z)"
# Where lateness is decided (due times, extensions, submission times in a course), to the second:
# "late by 13 s" must be checkable against what the page shows.
SECONDS_FORMAT = "%Y-%m-%d %H:%M:%S"


class MomentError(ValueError):
    """A time zone or date-time that cannot be used; the message says why and what to type."""


def zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (``Europe/Berlin``, ``UTC``); :class:`MomentError` when unknown."""
    if not isinstance(name, str) or not name or len(name) > 64 or name.startswith(("/", ".")) or ".." in name:
        raise MomentError(f"{name!r} is not a time zone: use an IANA name such as 'Europe/Berlin' or 'UTC'")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise MomentError(f"unknown time zone {name!r}: use an IANA name such as 'Asia/Shanghai' or 'UTC'") from None


def zone_names() -> list[str]:
    """The time zones the course form offers, sorted: the common IANA list (:data:`web.core.zones.COMMON_ZONES`)
    that this host's time-zone database knows. A course may use any other valid name too (:func:`zone`)."""
    known = available_timezones() | {"UTC"}
    return [name for name in COMMON_ZONES if name in known]


def parse_moment(text: str, time_zone: str) -> dt.datetime:
    """The UTC moment ``text`` names: ISO 8601, with an offset (used as given) or without one
    (wall-clock time in ``time_zone``). Raises :class:`MomentError` for text that is not a
    date-time, and for a wall-clock time that the zone skips or repeats (a daylight-saving change).
    """
    if not isinstance(text, str) or not text.strip():
        raise MomentError("a date-time is required, e.g. 2027-03-14T23:59 (course time) or 2027-03-14T22:59Z")
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise MomentError(f"{text[:40]!r} is not an ISO 8601 date-time, e.g. 2027-03-14T23:59") from None
    if moment.tzinfo is not None:
        return moment.astimezone(dt.UTC)
    place = zone(time_zone)
    first, second = moment.replace(tzinfo=place, fold=0), moment.replace(tzinfo=place, fold=1)
    if first.utcoffset() != second.utcoffset():
        # The two folds differ only around a change: a repeated hour, or a skipped one.
        if _round_trips(first) and _round_trips(second):
            raise MomentError(
                f"{moment:%Y-%m-%d %H:%M} happens twice in {time_zone} (clocks go back); "
                f"add the offset you mean, e.g. {first.isoformat()} or {second.isoformat()}"
            )
        raise MomentError(
            f"{moment:%Y-%m-%d %H:%M} does not exist in {time_zone} (clocks go forward); "
            "choose another time or add an offset"
        )
    return first.astimezone(dt.UTC)


def _round_trips(local: dt.datetime) -> bool:
    """Whether ``local`` survives a trip through UTC unchanged (false for a skipped wall-clock time)."""
    back = local.astimezone(dt.UTC).astimezone(local.tzinfo)
    return back.replace(tzinfo=None) == local.replace(tzinfo=None)


def in_zone(moment: dt.datetime, time_zone: str) -> dt.datetime:
    """``moment`` (stored in UTC) as wall-clock time in ``time_zone``."""
    return as_utc(moment).astimezone(zone(time_zone))


def show(moment: dt.datetime | None, time_zone: str, seconds: bool = False) -> str:
    """``moment`` as a page shows it: wall-clock time in ``time_zone``, with the zone and offset
    (``2027-03-14 23:59 CET (UTC+01:00)``); with ``seconds`` to the second (:data:`SECONDS_FORMAT`)."""
    if moment is None:
        return ""
    local = in_zone(moment, time_zone)
    offset = local.strftime("%z")
    wall = local.strftime(SECONDS_FORMAT if seconds else "%Y-%m-%d %H:%M")
    return f"{wall} {local.tzname()} (UTC{offset[:3]}:{offset[3:]})"


def form_value(moment: dt.datetime | None, time_zone: str) -> str:
    """``moment`` for a ``datetime-local`` input: wall-clock time in ``time_zone``, to the minute."""
    return "" if moment is None else f"{in_zone(moment, time_zone):%Y-%m-%dT%H:%M}"


def iso(moment: dt.datetime | None) -> str | None:
    """``moment`` in ISO 8601 with its UTC offset (what the API answers), or None."""
    return None if moment is None else as_utc(moment).isoformat()
