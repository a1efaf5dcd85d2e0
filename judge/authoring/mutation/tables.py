"""What a mutation run prints and writes: lines for the terminal, a Markdown table for
docs/benchmarks.md, and a JSON document with every judged mutant's outcome (one object per
exercise, :meth:`~judge.authoring.mutation.judging.ExerciseMutation.to_json`)."""

from __future__ import annotations

from judge.authoring.mutation.equivalents import entry_line
from judge.authoring.mutation.judging import ExerciseMutation, tool_version

JSON_SCHEMA = 1


def counts_line(run: ExerciseMutation) -> str:
    """One line: mutants generated / judged / killed / survived / equivalent / timed out (and errors)."""
    exercise = run.exercise
    sampled = f"a sample of {run.sample} (seed {run.sample_seed}) and the listed equivalents" if run.sampled else "all"
    errors = f", {run.count('error')} errors" if run.count("error") else ""
    return (
        f"{exercise.number:03d} {exercise.slug}: {len(run.generated)} mutants generated, {len(run.judged)} judged "
        f"({sampled}): {run.count('killed')} killed, {run.count('survived')} survived, "
        f"{run.count('equivalent')} equivalent, {run.count('timed out')} timed out{errors} "
        f"in {run.time_s:.0f} s (CPU limit {run.time_limit_s:g} s per case)"
    )


def report_lines(run: ExerciseMutation) -> list[str]:
    """The exercise's report for a terminal: the counts, then each list a human acts on."""
    lines = [counts_line(run)]

    def listing(title: str, rows: list[str]) -> None:
        if rows:
            lines.append(f"  {title}:")
            lines.extend(f"    {row}" for row in rows)

    def where(judged) -> str:
        mutant = judged.mutant
        return f"{mutant.id}  line {mutant.line} ({mutant.function or 'module'}): {mutant.change()}"

    listing("problems", run.problems)
    survivors = run.with_outcome("survived")
    listing("survived (a hole in the suites, or an equivalent mutant to list)", [where(s) for s in survivors])
    if survivors:
        listing(
            f"to list one as equivalent, add its line under [equivalent] in {run.equivalents_path.name}",
            [entry_line(s.mutant.id) for s in survivors[:3]] + (["..."] if len(survivors) > 3 else []),
        )
    listing("equivalent (listed)", [f"{where(e)}  -- {e.reason}" for e in run.with_outcome("equivalent")])
    listing("timed out", [where(t) for t in run.with_outcome("timed out")])
    listing(
        "errors (the suites crashed on the mutant: fix the exercise)",
        [f"{where(e)}  [{e.killed_by}] {e.message}" for e in run.with_outcome("error")],
    )
    # Grouped by diagnosis: a name given to many unrelated changes is the one to look at first.
    groups: dict[str, list] = {}
    for judged in run.diagnosed:
        for diagnosis, cases in judged.diagnoses.items():
            groups.setdefault(diagnosis, []).append((judged, cases))
    if groups:
        lines.append("  diagnoses given to mutants (misleading unless the name is right: judge each):")
    for diagnosis, given in sorted(groups.items(), key=lambda item: -len(item[1])):
        named_by = ", ".join(dict.fromkeys(case for _, cases in given for case in cases))
        lines.append(f"    {diagnosis!r}: {len(given)} mutant{'s' if len(given) > 1 else ''} ({named_by})")
        lines.extend(
            f"      {where(judged)}" + (f"  (the catalogued {judged.catalogued})" if judged.catalogued else "")
            for judged, _ in given
        )
    return lines


def markdown_table(runs: list[ExerciseMutation]) -> str:
    """The table for docs/benchmarks.md, one row per exercise, and a line saying how it was made."""
    rows = [
        "| exercise | generated | judged | killed | survived | equivalent | timed out | errors | kill rate "
        "| named diagnoses |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for run in runs:
        rate = f"{run.kill_rate:.1%}" if run.kill_rate is not None else "-"
        rows.append(
            f"| {run.exercise.number:03d} {run.exercise.slug} | {len(run.generated)} | {len(run.judged)} "
            f"| {run.count('killed')} | {run.count('survived')} | {run.count('equivalent')} "
            f"| {run.count('timed out')} | {run.count('error')} | {rate} | {len(run.diagnosed)} |"
        )
    samples = sorted({run.sample for run in runs if run.sampled and run.sample is not None})
    seeds = sorted({run.sample_seed for run in runs})
    how = "every mutant" if not samples else f"a sample of {', '.join(map(str, samples))} per exercise"
    rows.append("")
    rows.append(
        f"{tool_version()}, {how} (seed {', '.join(map(str, seeds))}), every listed equivalent judged. Kill rate: "
        "(killed + timed out) / (judged - equivalent). Named diagnoses: killed mutants whose report names a mistake."
    )
    return "\n".join(rows) + "\n"


def to_json(runs: list[ExerciseMutation]) -> dict:
    """Every exercise's run, and how it was made."""
    return {"schema": JSON_SCHEMA, "tool": tool_version(), "exercises": [run.to_json() for run in runs]}
