"""A similarity report as a CSV file: what the page's and the API's downloads both answer.

UTF-8 with a byte-order mark, as the gradebook's (:mod:`web.teaching.gradebook_export`); one row per
pair and exercise, ranked as the report ranks pairs. Columns: ``rank``, ``learner_a``,
``learner_b``, ``score`` (the pair's course score), ``exercise`` (its number), ``similarity`` (0..1),
``probes_compared`` and ``probes_identical`` (the behavioural match; empty: no fingerprints to
compare), ``submission_a``, ``submission_b``. A name a spreadsheet would run as a formula gets a
leading apostrophe (:func:`web.teaching.gradebook_export.spreadsheet_safe`). Who may download it is
the caller's to check (:func:`web.access.permissions.course_to_examine`).
"""

from __future__ import annotations

import csv
import io

from flask import Response
from sqlalchemy.orm import Session

from web.core.models import Course, SimilarityReport, SimilarityState
from web.teaching.gradebook_export import spreadsheet_safe
from web.teaching.similarity import Pair, report_pairs

CSV_HEADER = [
    "rank",
    "learner_a",
    "learner_b",
    "score",
    "exercise",
    "similarity",
    "probes_compared",
    "probes_identical",
    "submission_a",
    "submission_b",
]


def similarity_csv(pairs: list[Pair]) -> list[list[str]]:
    """The CSV's rows, header first: one row per pair and exercise; names spreadsheet-safe."""
    rows = [CSV_HEADER]
    for found in pairs:
        for match in found.exercises:
            rows.append(
                [
                    str(found.rank),
                    spreadsheet_safe(found.a_name),
                    spreadsheet_safe(found.b_name),
                    f"{found.score:g}",
                    str(match.number),
                    f"{match.similarity:g}",
                    "" if match.compared is None else str(match.compared),
                    "" if match.identical is None else str(match.identical),
                    str(match.a_submission),
                    str(match.b_submission),
                ]
            )
    return rows


def csv_response(session: Session, course: Course, report: SimilarityReport, threshold: float) -> Response:
    """The download of ``report``'s pairs at ``threshold`` (UTF-8 with a BOM, as the gradebook's)."""
    text = io.StringIO()
    pairs = report_pairs(session, report, threshold) if report.state is SimilarityState.done else []
    csv.writer(text, lineterminator="\r\n").writerows(similarity_csv(pairs))
    return Response(
        text.getvalue().encode("utf-8-sig"),
        mimetype="text/csv",
        headers={
            "Content-Type": "text/csv; charset=utf-8",
            "Content-Disposition": f'attachment; filename="course-{course.id}-similarity-{report.id}.csv"',
            "Cache-Control": "no-store",
        },
    )
