"""Course date-times: typed in the course's zone, stored in UTC, refused where DST makes them ambiguous."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from web.core.moments import MomentError, form_value, parse_moment, show, zone

UTC = dt.UTC


@pytest.mark.parametrize("text, zone_name, expected", [
    ("2027-03-14T23:59", "UTC", "2027-03-14 23:59"),
    ("2027-03-14T23:59", "Asia/Shanghai", "2027-03-14 15:59"),  # UTC+8, no DST
    ("2027-01-15T12:00", "Europe/Berlin", "2027-01-15 11:00"),  # winter: UTC+1
    ("2027-07-15T12:00", "Europe/Berlin", "2027-07-15 10:00"),  # summer: UTC+2
    ("2027-03-14T03:30", "America/New_York", "2027-03-14 07:30"),  # just after spring forward: UTC-4
    ("2027-03-14T22:59Z", "Asia/Shanghai", "2027-03-14 22:59"),  # an offset wins over the zone
    ("2027-03-14T23:59+05:30", "UTC", "2027-03-14 18:29"),
])
def test_wall_clock_times_are_read_in_the_course_zone(text, zone_name, expected):
    moment = parse_moment(text, zone_name)
    assert moment.tzinfo is UTC and f"{moment:%Y-%m-%d %H:%M}" == expected


@pytest.mark.parametrize("text, zone_name, says", [
    ("2027-03-14T02:30", "America/New_York", "does not exist"),  # clocks jump 02:00 → 03:00
    ("2027-03-28T02:30", "Europe/Berlin", "does not exist"),
    ("2027-11-07T01:30", "America/New_York", "happens twice"),  # clocks go 02:00 → 01:00
    ("2027-10-31T02:30", "Europe/Berlin", "happens twice"),
])
def test_times_a_dst_change_skips_or_repeats_are_refused_with_a_way_out(text, zone_name, says):
    with pytest.raises(MomentError, match=says):
        parse_moment(text, zone_name)


def test_a_repeated_time_with_an_offset_is_accepted():
    first = parse_moment("2027-11-07T01:30-04:00", "America/New_York")
    second = parse_moment("2027-11-07T01:30-05:00", "America/New_York")
    assert second - first == dt.timedelta(hours=1)


@pytest.mark.parametrize(
    "bad, message",
    [
        ("", "a date-time is required"),
        ("tomorrow", "'tomorrow' is not an ISO 8601 date-time"),
        ("2027-13-01T00:00", "'2027-13-01T00:00' is not an ISO 8601 date-time"),
        ("2027-02-30", "'2027-02-30' is not an ISO 8601 date-time"),
        (None, "a date-time is required"),
        (17, "a date-time is required"),
    ],
)
def test_bad_date_times_get_a_clear_error(bad, message):
    with pytest.raises(MomentError, match=message):
        parse_moment(bad, "UTC")


@pytest.mark.parametrize(
    "name, message",
    [
        ("Mars/Olympus", "unknown time zone 'Mars/Olympus'"),
        ("", "'' is not a time zone"),
        ("../etc/passwd", "'../etc/passwd' is not a time zone"),
        ("/etc/localtime", "'/etc/localtime' is not a time zone"),
        ("x" * 100, "'x{100}' is not a time zone"),
        (None, "None is not a time zone"),
    ],
)
def test_unknown_zones_are_refused(name, message):
    with pytest.raises(MomentError, match=message):
        zone(name)


def test_show_gives_local_time_with_the_zone_and_offset():
    moment = dt.datetime(2027, 7, 1, 10, 0, tzinfo=UTC)
    assert show(moment, "Europe/Berlin") == "2027-07-01 12:00 CEST (UTC+02:00)"
    assert show(moment.replace(tzinfo=None), "UTC") == "2027-07-01 10:00 UTC (UTC+00:00)"  # SQLite hands back naive
    assert form_value(moment, "America/New_York") == "2027-07-01T06:00"


@given(st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2099, 12, 31),
                    timezones=st.just(UTC)), st.sampled_from(["Europe/Berlin", "America/New_York", "Australia/Sydney",
                                                              "Asia/Kolkata", "UTC"]))
def test_a_moment_shown_in_the_form_reads_back_to_the_same_minute(moment, zone_name):
    moment = moment.replace(second=0, microsecond=0)
    typed = form_value(moment, zone_name)
    try:
        back = parse_moment(typed, zone_name)
    except MomentError as error:  # the one hour a year whose wall-clock time repeats
        assert "happens twice" in str(error)
        return
    assert back == moment


def test_the_course_form_offers_the_common_zones_and_still_accepts_any_valid_one():
    from web.core.moments import zone_names

    offered = zone_names()
    for common in ("Europe/Berlin", "Asia/Shanghai", "America/Sao_Paulo", "UTC"):
        assert common in offered
    for odd in ("Factory", "Etc/GMT+5", "posixrules", "US/Eastern"):
        assert odd not in offered
    assert 350 < len(offered) < 450
    # A zone typed or stored before still works: it is valid IANA, only not offered.
    assert show(parse_moment("2027-03-14T23:59", "Etc/GMT+5"), "Etc/GMT+5") == "2027-03-14 23:59 -05 (UTC-05:00)"
    assert zone("US/Eastern").key == "US/Eastern"


def test_a_moment_where_lateness_is_decided_is_shown_to_the_second():
    moment = dt.datetime(2027, 3, 14, 22, 59, 7, tzinfo=dt.UTC)
    assert show(moment, "Europe/Berlin", seconds=True) == "2027-03-14 23:59:07 CET (UTC+01:00)"
    assert show(moment, "Europe/Berlin") == "2027-03-14 23:59 CET (UTC+01:00)"
