"""Solutions written as patches against the reference: ``solutions/NNN-slug/wrong/NAME.patch`` (a known
mistake) and ``solutions/NNN-slug/correct/NAME.patch`` (the reference with one part done another way).

Most known mistakes are the reference with a line or two changed. As a whole copy, such a wrong
solution goes stale silently: when the reference changes (a fix, a new validation), the copy keeps
the old code and tests a mistake nobody would make any more. As a patch it is the reference *plus*
its mistake, and a change to the reference either carries over or makes the patch fail to apply,
which ``check`` reports. A patch file is a header with the fields of a wrong solution's docstring,
then a unified diff of ``reference.py``::

    Mistake: top-k keeps the k + 1 largest probabilities.

    Diagnosis: top-k keeps one token too many (k+1)

    --- a/reference.py
    +++ b/reference.py
    @@ -40,7 +40,7 @@
    ...

(``diff -u --label a/reference.py --label b/reference.py reference.py mine.py`` writes the diff).
:func:`expand` applies it with ``whatthepatch`` (pure Python, on text in memory: no ``patch`` or
``git`` program) and strictly: every context and removed line must stand where the hunk says, so
a reference edited above a hunk makes the patch stale too (regenerate it; an offset would hide
which code the mistake now sits in). The expanded source is the patched reference with its module
docstring replaced by the header's fields, so it reads, and is parsed, like a hand-written
``wrong/*.py``. :func:`expanded_path` writes it where every consumer of the catalogue can judge or
import it (a folder of this process's own, removed when it exits).
"""

from __future__ import annotations

import ast
import atexit
import hashlib
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

from judge.exercises.folders import ExerciseError

PATCH_SUFFIX = ".patch"
# Where a header ends and the diff begins: the unified diff's first file line.
_DIFF_START = re.compile(r"^--- ", flags=re.M)
_FILE_HEADER = re.compile(r"^--- .*\n\+\+\+ ", flags=re.M)  # one per file a diff changes


class StalePatch(ExerciseError):
    """A wrong solution's patch does not apply to the reference (or is not a diff of it): the message
    names the patch, the hunk and the line that no longer matches; ``patch`` is its path."""

    def __init__(self, message: str, patch: Path) -> None:
        super().__init__(message)
        self.patch = Path(patch)


def patch_header(text: str) -> str:
    """The text of a patch before its diff: the ``Mistake:`` and ``Diagnosis:`` fields."""
    found = _DIFF_START.search(text)
    return text[: found.start()] if found else text


def expand(patch: Path, reference: Path) -> str:
    """The source of the wrong solution ``patch`` describes: ``reference`` with the diff applied and
    its module docstring replaced by the patch's header (as a docstring).

    Raises :class:`StalePatch` when the file holds no diff, a diff of another file or of several, or a
    hunk whose context no longer matches ``reference`` ("wrong/x.patch no longer applies to
    reference.py: hunk 2 (...)").
    """
    import whatthepatch
    from whatthepatch.exceptions import WhatThePatchException

    patch, reference = Path(patch), Path(reference)
    shown = f"{patch.parent.name}/{patch.name}"  # wrong/x.patch, correct/y.patch
    text = patch.read_text(encoding="utf-8")
    body = text[len(patch_header(text)) :]
    files = len(_FILE_HEADER.findall(body))  # whatthepatch reads a second file's diff into the first's
    try:
        diffs = [diff for diff in whatthepatch.parse_patch(body) if diff.changes] if files == 1 else []
    except WhatThePatchException as exc:
        raise StalePatch(f"{shown} is not a unified diff: {exc}", patch) from None
    if files != 1 or len(diffs) != 1:
        raise StalePatch(f"{shown} must hold one unified diff of {reference.name}; it holds {files}", patch)
    (diff,) = diffs
    paths = {Path(path).name for path in (diff.header.old_path, diff.header.new_path) if diff.header} - {"null"}
    if paths != {reference.name}:
        raise StalePatch(f"{shown} must be a diff of {reference.name}, not of {', '.join(sorted(paths)) or '?'}", patch)
    try:
        lines = whatthepatch.apply_diff(diff, reference.read_text(encoding="utf-8"))
    except WhatThePatchException as exc:
        hunk = getattr(exc, "hunk", None)
        where = f"hunk {hunk}" if hunk is not None else "its diff"
        detail = re.sub(r", in hunk #\d+$", "", str(exc))
        raise StalePatch(
            f"{shown} no longer applies to {reference.name}: {where} ({detail}); make the change again on the "
            f"current {reference.name} and write the diff anew",
            patch,
        ) from None
    return _with_docstring("\n".join(lines) + "\n", patch_header(text))


def _with_docstring(source: str, header: str) -> str:
    """``source`` with its module docstring (or, lacking one, its start) replaced by ``header``."""
    body = header.strip().replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    docstring = f'"""{body}\n"""\n'
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return docstring + source  # judged as it is: the learner's process reports the error
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        lines = source.splitlines(keepends=True)
        assert first.end_lineno is not None
        return "".join(lines[: first.lineno - 1]) + docstring + "".join(lines[first.end_lineno :])
    return docstring + source


_folder: Path | None = None
_lock = threading.Lock()


def _remove(folder: Path, owner: int) -> None:
    """Remove ``folder`` at exit, in the process that made it only (a forked child inherits the hook)."""
    if os.getpid() == owner:
        shutil.rmtree(folder, ignore_errors=True)


def expanded_path(patch: Path, reference: Path) -> Path:
    """A ``NAME.py`` file holding :func:`expand`'s source, in a folder of this process's own (made
    private with ``mkdtemp``, removed at exit), named by the content of both files so that an
    edited patch or reference is expanded again. Raises :class:`StalePatch` as :func:`expand` does."""
    global _folder
    patch, reference = Path(patch), Path(reference)
    digest = hashlib.sha256(patch.read_bytes() + b"\0" + reference.read_bytes()).hexdigest()[:16]
    with _lock:
        if _folder is None:
            _folder = Path(tempfile.mkdtemp(prefix="probjudge-patched-"))
            atexit.register(_remove, _folder, os.getpid())
        target = _folder / digest / f"{patch.stem}.py"
        if not target.is_file():
            source = expand(patch, reference)
            target.parent.mkdir(exist_ok=True)
            partial = target.with_suffix(f".{os.getpid()}.part")
            partial.write_text(source, encoding="utf-8")
            partial.replace(target)
    return target
