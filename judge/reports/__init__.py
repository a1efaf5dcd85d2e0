"""Reports: the record of one judging, and every form it is shown or exported in.

- ``report`` — the records that cross layers: one statistical check, one test case, one
  submission's :class:`~judge.reports.report.Report` (the JSON of docs/report.md).
- ``render`` — what the CLI shows in a terminal, with rich: a verdict, Markdown with its math.
- ``exports`` — a report in other tools' formats: Gradescope's ``results.json`` and JUnit XML.
- ``hiding`` — what a learner may see of a report's hidden cases: one rule for every front door.
- ``redaction`` — keep the server's file paths out of everything a report says.
- ``figures`` — the figure a failed check of a visible case carries.
- ``cjk_breaks`` — a markdown-it-py plugin: no space where a line of Chinese text is wrapped.

May import (the layers below it in ``judge-layers``): ``judge.sandbox``, ``judge.learner``,
``judge.i18n``, ``judge.verdicts`` (in practice only the last two); rich, markdown-it-py and
pylatexenc for rendering. Never the site (``judge-never-imports-web``); ``report`` runs in the
browser (``browser-subset``).

Imported by: ``judge.checks``, ``judge.exercises``, ``judge.engine``, ``judge.authoring``,
``judge.browser``, the front doors, and on the site ``web.access``, ``web.grading`` and
``web.learning``.
"""
