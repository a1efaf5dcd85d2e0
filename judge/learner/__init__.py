"""The learner's side: what the runner drives, and what runs next to the learner's code.

- ``interface`` — the learner as the runner sees it: its source, the interface it drives
  (:class:`~judge.learner.interface.Learner`), and how it fails (``LoadFailed``, ``LearnerRaised``).
- ``code`` — what runs next to the learner's code at every level: load it, describe it, watch
  its calls (shared by the sandbox's child and the browser's in-process learner).
- ``protocol`` — what the learner's process may say, checked field by field before it is used.
- ``wire`` — the byte format between the trusted judge and the untrusted learner process.
- ``uniform_sources`` — drive torch's uniform sources to their extremes while a function runs.

May import: ``judge.i18n`` and ``judge.verdicts`` only (the lowest layer of ``judge-layers``),
the standard library and torch. It runs in the browser too (``browser-subset``): nothing of the
server, the sandbox or the CLI.

Imported by: every layer above it: ``judge.sandbox``, ``judge.checks``, ``judge.engine``,
``judge.browser``, and ``web.api`` (the wire's nesting limit, for JSON bodies).
"""
