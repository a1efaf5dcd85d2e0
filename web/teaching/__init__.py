"""Teaching: courses, assignments and deadlines, the gradebook, analytics, rejudges and diffs.

Domain modules (no page module is imported by one of them):

- ``courses`` — courses and assignments: creating them, joining, rosters, extensions, overrides.
- ``membership`` — who is in a course and by whose act: invitations, removal, leaving.
- ``counting`` — what counts for a learner in a course, one SQL query per question.
- ``deadlines`` — deadlines where the learner works: the exercise page, the submit, the result.
- ``gradebook`` — learners × exercises, totals, sorting, filters and pages, in SQL.
- ``analytics`` — the named mistakes of a course: what its learners tried, when, what failed.
- ``submission_list`` — all submissions of a course, filtered and paged, in one query.
- ``rejudging`` — new gradings with fresh seeds, at low priority; the old ones kept.
- ``gradebook_export`` — the gradebook as a CSV file, safe to open in a spreadsheet (both downloads).
- ``diffing`` — the difference between two attempts' code, with line numbers on both sides.
- ``similarity`` — similarity of the submissions within a course: what is compared, the check run
  off the request, its stored reports (evidence for an instructor, never a penalty).

Pages (instructors'): ``course_pages``, ``course_submission_pages``, ``gradebook_pages``,
``analytics_pages``, ``rejudge_pages``, ``similarity_pages``.

May import (the layers below it in .importlinter's ``web-layers``): ``web.accounts``,
``web.access``, ``web.services``, ``web.grading``, ``web.core``; ``judge.exercises``, ``judge.similarity``,
``judge.i18n``, ``judge.verdicts``.

Not ``web.api``: an API route calls the same domain
functions as the page, from above.

Imported by: ``web.learning`` (deadlines, attempts and diffs on a learner's pages), ``web.api``
and ``web.app``.
"""
