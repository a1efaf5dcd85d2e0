"""The garbage collector in the long-lived processes: the site, a grader, a Celery worker.

Such a process starts by importing torch, SQLAlchemy, Flask and the judge and by building its
app, its mappers and its sandbox: a quarter of a million objects that live as long as it does.
Python's full (generation 2) collections walk every one of them, each time: about 200 ms of
CPU in a burst of 120 gradings on the site, a grading's worth. :func:`freeze_start_up` moves
them out of the collector's sight once start-up is over (:func:`gc.freeze`); what the
gradings and requests create afterwards is collected as before.
"""

from __future__ import annotations

import gc


def freeze_start_up() -> int:
    """Collect the start-up's garbage, then freeze what is left (it is never freed, as before:
    it lives until the process ends). Call once, when the process is about to serve; return how
    many objects are frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
