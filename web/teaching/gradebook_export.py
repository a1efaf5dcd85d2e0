"""The gradebook as a CSV file: what the page's and the API's download both answer.

The CSV (:func:`gradebook_csv`) is UTF-8 with a byte-order mark (``utf-8-sig``), which Excel
needs to read UTF-8 and every CSV reader skips; one row per learner, by name. Columns:
``learner``, then ``ex<number>`` per exercise (the counted score as a share 0..1 of the
exercise's one point, with an override applied; empty: never tried), ``ex<number>_late`` per
exercise (1: the counted attempt was late, else 0), ``total`` (the sum of the scores),
``max_total`` (the number of exercises) and ``late_count``, then (added later, after every
older column, so tools that read columns by position still work) ``ex<number>_overridden`` per
exercise (1: an override is in force on the cell, else 0). Columns are only ever added, never
renamed or moved. A text cell that a spreadsheet would run as a formula (starting with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return) gets a leading apostrophe. The file is named
after the course and the day in the course's time zone (:func:`csv_filename`).

Who may download it is the caller's to check (:func:`web.access.permissions.course_to_teach`):
this module only builds the file.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import unicodedata
from collections.abc import Iterable
from urllib.parse import quote

from flask import Response
from sqlalchemy.orm import Session

from web.core.models import Course
from web.core.moments import zone
from web.teaching.gradebook import Column, Row, course_exercises, gradebook_rows

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(text: str) -> str:
    """``text`` as a CSV cell no spreadsheet runs as a formula (see the module docstring)."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _share(value: float) -> str:
    return f"{round(value, 4):g}"


def csv_filename(course: Course, day: dt.date) -> tuple[str, str | None]:
    """The export's file name, ``<course-slug>-gradebook-<day>.csv``, as (ASCII name, UTF-8 name).

    The ASCII name keeps letters, digits and dashes of the course name (accents dropped), so it
    is safe in a ``filename="..."`` on every system; a name with nothing left (all Chinese, say)
    becomes ``course-<id>``. The UTF-8 name keeps every letter and digit of the name and is
    given (RFC 6266 ``filename*``) only where it differs; else it is None."""

    def slug(text: str) -> str:
        return re.sub(r"[\W_]+", "-", text.lower()).strip("-")[:60].strip("-")

    ascii_name = slug(unicodedata.normalize("NFKD", course.name).encode("ascii", "ignore").decode())
    ascii_name = re.sub(r"[^a-z0-9-]", "", ascii_name) or f"course-{course.id}"
    unicode_name = slug(unicodedata.normalize("NFC", course.name)) or ascii_name
    suffix = f"-gradebook-{day.isoformat()}.csv"
    return ascii_name + suffix, (None if unicode_name == ascii_name else unicode_name + suffix)


def content_disposition(course: Course, day: dt.date) -> str:
    """``attachment`` with the file name of :func:`csv_filename` (and ``filename*`` when needed)."""
    plain, utf8 = csv_filename(course, day)
    header = f'attachment; filename="{plain}"'
    return header if utf8 is None else f"{header}; filename*=UTF-8''{quote(utf8, safe='')}"


def gradebook_csv(columns: list[Column], rows: Iterable[Row]) -> Iterable[list[str]]:
    """The CSV's rows, header first (see the module docstring)."""
    yield [
        "learner",
        *(f"ex{column.number}" for column in columns),
        *(f"ex{column.number}_late" for column in columns),
        "total",
        "max_total",
        "late_count",
        *(f"ex{column.number}_overridden" for column in columns),
    ]
    for row in rows:
        found = [row.cells.get(column.exercise_id) for column in columns]
        yield [
            spreadsheet_safe(row.name),
            *("" if cell is None else _share(cell.score) for cell in found),
            *("1" if cell is not None and cell.late else "0" for cell in found),
            _share(row.total),
            str(len(columns)),
            str(row.late_count),
            *("1" if cell is not None and cell.override is not None else "0" for cell in found),
        ]


def csv_response(session: Session, course: Course) -> Response:
    """The download of ``course``'s gradebook: the CSV as an attachment (see the module docstring)."""
    columns = course_exercises(session, course)
    text = io.StringIO()
    csv.writer(text, lineterminator="\r\n").writerows(gradebook_csv(columns, gradebook_rows(session, course)))
    return Response(
        text.getvalue().encode("utf-8-sig"),
        mimetype="text/csv",
        headers={
            "Content-Type": "text/csv; charset=utf-8",
            "Content-Disposition": content_disposition(course, dt.datetime.now(zone(course.time_zone)).date()),
            "Cache-Control": "no-store",
        },
    )
