"""English and Chinese texts for what learners read: CLI chrome and bilingual diagnoses.

A :class:`Bilingual` is a ``str`` (its English text, so it works wherever a string does)
that also carries the Chinese text; the runner stores both in reports.

One table per fact: :data:`SHARED` holds what both the CLI and the web site show (a report's
summary, seed and run, the case table's headings, the suites' names, the false-failure budget),
``web/core/texts.py`` takes those entries as they are, and ``_CLI`` below holds only what the CLI
alone shows. The verdicts' names live in :mod:`judge.verdicts`. ``tests/test_one_text_per_fact.py``
checks that no English text has two translations across these tables.
"""

from __future__ import annotations

import os
import string

LANGUAGES = ("en", "zh")


class _CountFormatter(string.Formatter):
    """``str.format`` plus English plurals: ``{count:# learner|# learners}`` is the first form when
    ``count`` is 1 and the second otherwise, each ``#`` replaced by the number (Chinese has no
    plural, so its texts write ``{count}`` alone)."""

    def format_field(self, value: object, format_spec: str) -> str:
        if "|" in format_spec:
            one, other = format_spec.split("|", 1)
            return (one if value == 1 else other).replace("#", str(value))
        return super().format_field(value, format_spec)


_COUNTS = _CountFormatter()


def format_text(text: str, **values: object) -> str:
    """A catalogue text filled with ``values``: every text of the CLI and the site goes through here,
    so each count phrase agrees with its number ("1 submission", "2 submissions")."""
    return _COUNTS.format(text, **values)


class Bilingual(str):
    """An English string with its Chinese translation in ``.zh``."""

    zh: str

    def __new__(cls, en: str, zh: str) -> Bilingual:
        obj = super().__new__(cls, en)
        obj.zh = zh
        return obj

    def __getnewargs__(self) -> tuple[str, str]:  # type: ignore[override]  # copy/pickle need zh too
        return (str(self), self.zh)

    def in_language(self, lang: str) -> str:
        return self.zh if lang == "zh" else str(self)


def bilingual(en: str, zh: str, **values: object) -> Bilingual:
    """``en`` and ``zh`` filled with ``values`` (``str.format``), each value in that text's language:
    how the engine builds a message around words it does not translate (the learner's own
    exception text, a line number), which stay as they are in both."""
    texts = [
        text.format(**{key: in_language(v, lang) if isinstance(v, str) else v for key, v in values.items()})
        for text, lang in ((en, "en"), (zh, "zh"))
    ]
    return Bilingual(*texts)


def in_language(text: str | None, lang: str) -> str:
    """``text`` in ``lang`` when it is :class:`Bilingual`, else as it is."""
    if text is None:
        return ""
    return text.in_language(lang) if isinstance(text, Bilingual) else str(text)


def default_language() -> str:
    """``PROBJUDGE_LANG`` if set, else ``zh`` for a Chinese locale, else ``en``."""
    wanted = os.environ.get("PROBJUDGE_LANG", "").lower()
    if wanted in LANGUAGES:
        return wanted
    locale = os.environ.get("LC_ALL") or os.environ.get("LANG") or ""
    return "zh" if locale.lower().startswith("zh") else "en"


# Shown by the CLI and by the site: key (the site's) -> (en, zh). Headings are capitalised as the
# site shows them; the CLI writes its table headings in lower case (see t).
SHARED: dict[str, tuple[str, str]] = {
    "cases_summary": ("{passed}/{total} cases passed", "通过 {passed}/{total} 个测试点"),
    "seed": ("seed", "种子"),
    "run_id": ("run #{id}", "评测编号 #{id}"),
    "likely_mistake": ("Likely mistake", "可能的错误"),
    # a failing case's known mistake that is not the report's headline one (docs/report.md)
    "also_consistent_with": ("Also consistent with", "也符合"),
    # the learner's functions that raised NotImplementedError: a starter's, never a mistake
    "not_implemented_yet": ("Not implemented yet: {functions}", "尚未实现：{functions}"),
    "budget_sentence": (
        "A correct solution fails this judge with probability below {total}.",
        "正确的解答被误判为失败的概率低于 {total}。",
    ),
    # instead of the score when the code never reached a case (judge.verdicts.ran_no_case)
    "no_case_ran": (
        "No case ran: your code stopped before the first one; fix the error and judge again.",
        "没有运行任何测试点：你的代码在第一个测试点之前就停止了；修正这个错误后再评测。",
    ),
    "no_case_ran_judge": (
        "No case ran: the judge failed, not your code; judge again later.",
        "没有运行任何测试点：出错的是评测系统，不是你的代码；请稍后重新评测。",
    ),
    # the case table
    "case": ("Case", "测试点"),
    "suite": ("Suite", "测试组"),
    "result": ("Result", "结果"),
    "time": ("Time", "用时"),
    "p_value": ("p-value", "p 值"),
    "suite_public": ("public", "公开"),
    "suite_hidden": ("hidden", "隐藏"),
    "suite_judge": ("judge", "评测"),
    "suite_tiny": ("tiny", "小规模"),
    # the picture of a failed check (web/learning/figures.py, the browser's Run, the terminal):
    # draws against their target
    "figure_distribution_title": (
        "Each {outcome}: observed frequency against target probability (draws: {n})",
        "每个 {outcome}：观测频率与目标概率（{n} 次抽样）",
    ),
    "figure_calibration_title": (
        "Error bars that cover the true value, at each z, against the exact share ({n} error bars)",
        "各个 z 下误差条覆盖真值的比例与精确比例（{n} 个误差条）",
    ),
    "figure_distribution_help": (
        "Two bars per {outcome}, most probable first: the target probability and how often it was drawn. "
        "▲ marks those farthest from their target; the last bar pools the rest.",
        "每个 {outcome} 两根柱，概率大的在前：目标概率与实际抽中的频率。▲ 标出偏离目标最远的；最后一根柱合并了其余的。",
    ),
    "figure_calibration_help": (
        "Two bars per z: the share of error bars that should cover the true value, and the share that did. "
        "▲ marks a z whose coverage failed its test.",
        "每个 z 两根柱：应当覆盖真值的误差条比例，与实际覆盖的比例。▲ 标出覆盖率未通过检验的 z。",
    ),
    "figure_target": ("target probability", "目标概率"),
    "figure_observed": ("observed frequency", "观测频率"),
    "figure_exact_coverage": ("exact coverage", "精确覆盖率"),
    "figure_observed_coverage": ("observed coverage", "观测覆盖率"),
    "figure_expected_count": ("expected count", "期望次数"),
    "figure_observed_count": ("observed count", "观测次数"),
    "figure_mark": ("mark", "标记"),
    "figure_worst": ("farthest off", "偏离最大"),
    "figure_missed": ("coverage failed", "覆盖率未通过"),
    "figure_rest": ("{count} more", "其余 {count} 个"),
    "figure_percent": ("percent", "百分比"),
    # the list of exercises
    "exercise": ("Exercise", "练习"),
    "title": ("Title", "标题"),
    "difficulty": ("Difficulty", "难度"),
    "runs_in": ("Runs in", "运行于"),
}

# The CLI's keys for shared texts where they are not the site's: a suite's name is its key there.
_CLI_ALIASES = {
    "cases": "cases_summary",
    "diagnosis": "likely_mistake",
    "budget": "budget_sentence",
    "public": "suite_public",
    "hidden": "suite_hidden",
    "judge": "suite_judge",
    "tiny": "suite_tiny",
}
# Headings the CLI writes in lower case (a terminal table's habit; the site capitalises them).
_CLI_LOWER_CASE = frozenset({"case", "suite", "result", "time", "exercise", "title", "difficulty", "runs_in"})

# What only the CLI shows.
_CLI: dict[str, tuple[str, str]] = {
    "device": ("device", "设备"),
    "output": ("What your code printed (last lines)", "你的代码输出（末尾部分）"),
    "reproduce": ("Reproduce this run with --seed {seed}", "使用 --seed {seed} 可以复现这次评测"),
    "judging": ("Judging", "正在评测"),
    "starting": ("Starting your code and loading torch", "正在启动你的代码并加载 torch"),
    "starting_browser": ("Running the browser variant under Node.js", "正在用 Node.js 运行浏览器版本"),
    "same_error": ("{case}: same error as above", "{case}：错误同上"),
    "public_only_passed": (
        "The public examples pass, but this is not yet the verdict on your solution: "
        "{hidden:the # hidden test was|the # hidden tests were} skipped (--public-only).",
        "公开样例全部通过，但这还不是对你的解答的最终评测：跳过了 {hidden} 个隐藏测试（--public-only）。",
    ),
    "public_only_failed": (
        "Only the public examples ran: {hidden:the # hidden test was|the # hidden tests were} skipped (--public-only).",
        "只运行了公开样例：跳过了 {hidden} 个隐藏测试（--public-only）。",
    ),
    "public_only_no_diagnosis": (
        "The hidden tests also recognise known mistakes: run them to have yours named.",
        "隐藏测试还能识别常见错误：运行它们，可以知道你的代码可能错在哪里。",
    ),
    "run_hidden": ("For the full verdict, run:", "要得到完整的评测结果，请运行："),
    "no_file": (
        "No file {path}. Run `python practice/judge.py start {id}` first, or pass a file.",
        "找不到文件 {path}。请先运行 `python practice/judge.py start {id}`，或者指定一个文件。",
    ),
    "started": (
        "Created {path}. Edit it, then run `python practice/judge.py test {id}`.",
        "已创建 {path}。编辑它，然后运行 `python practice/judge.py test {id}`。",
    ),
    "exists": ("{path} already exists; it was left untouched.", "{path} 已经存在，没有改动它。"),
    "number": ("#", "编号"),
    "slug": ("slug", "标识"),
    "reference": ("Reference solution", "参考解答"),
    "explanation": ("Explanation", "讲解"),
    "submission_url": ("This submission on the site: {url}", "这次提交在网站上的页面：{url}"),
    "solution_ask": (
        "This shows the reference solution of exercise {id}. Show it? [y/N]",
        "这会显示练习 {id} 的参考解答。要显示吗？[y/N]",
    ),
    "solution_not_shown": ("Not shown.", "没有显示。"),
    "solution_needs_yes": (
        "error: the reference solution of exercise {id} is shown only after a yes: stdin is not a terminal,"
        " so add --yes to show it.",
        "错误：练习 {id} 的参考解答要确认后才会显示；标准输入不是终端，请加上 --yes 来显示它。",
    ),
    "none_run": ("{total:The one case did not run.|None of the # cases ran.}", "{total} 个测试点都没有运行。"),
    "details": ("Details of failing cases", "未通过测试点的详情"),
    # the figure of a failed check (judge/reports/figures.py), drawn with text bars under its case
    "figure_distribution": (
        "Your {n:# draw|# draws} against the target, one line per {outcome} (sorted by target probability): "
        "its id, target %, drawn %, then the bars ░ target and █ drawn; ▲ marks the cells furthest "
        "from the target",
        "你的 {n} 次抽样与目标分布的对比，每个{outcome}一行（按目标概率排序）：编号、目标 %、抽中 %，"
        "然后是条形图 ░ 目标、█ 抽中；▲ 标出偏离目标最远的格子",
    ),
    "figure_calibration": (
        "Coverage of your error bars over {n:# interval|# intervals} estimate ± z × error: z, the share a correct "
        "procedure covers, the share of yours that covered the true value, then the bars ░ correct and "
        "█ yours; ▲ marks a z that failed",
        "你的误差条在 {n} 个区间 估计值 ± z × 标准误 上的覆盖率：z、正确做法的覆盖比例、你的区间覆盖真实值的比例，"
        "然后是条形图 ░ 正确、█ 你的；▲ 标出未通过的 z",
    ),
    # a command that needs an optional dependency the install lacks (judge/extras.py): one line, no traceback
    "needs_extra": (
        "{what} cannot run without {module}, which the {extra} extra installs: pip install 'probjudge[{extra}]'"
        " (in a clone: pip install -e '.[{extra}]')",
        "{what}需要 {module}，它由可选依赖 {extra} 安装：pip install 'probjudge[{extra}]'"
        "（在克隆的仓库里：pip install -e '.[{extra}]'）",
    ),
    "error_line": ("error: {message}", "错误：{message}"),
    "extra_site": ("the web site", "网站"),
    "extra_scale": ("grading on many machines (Celery, Redis, PostgreSQL)", "多机评测（Celery、Redis、PostgreSQL）"),
    "extra_models": ("a real language model", "真实的语言模型"),
    "extra_test": ("the project's tests and tools", "项目的测试和工具"),
    "extra_judging": ("this exercise's hidden tests", "这道练习的隐藏测试"),
    "extra_mutation": ("mutation testing", "变异测试"),
    "wrote": ("Wrote {path}", "已写入 {path}"),
    "cannot_write": ("error: cannot write {path}: {reason}", "错误：无法写入 {path}：{reason}"),
    "is_folder": ("it is a folder", "这是一个文件夹"),
    "no_folder": ("there is no folder {folder}", "文件夹 {folder} 不存在"),
    # the Gradescope autograder (judge/gradescope.py), to a student whose submission has no solution to judge
    "gradescope_no_file": ("No Python file was submitted: submit {name}.", "没有提交 Python 文件：请提交 {name}。"),
    "gradescope_not_isolated": (
        "This run was not isolated (--sandbox local): the code could read and change the autograder's files.",
        "本次评测没有隔离（--sandbox local）：代码可以读取和修改评测程序的文件。",
    ),
    "gradescope_not_a_file": (
        "{files} is not a plain file (a link, a second name of another file, a folder or a device):"
        " submit {name} itself, as a file.",
        "{files} 不是普通文件（而是链接、另一文件的别名、文件夹或设备）：请直接以文件形式提交 {name}。",
    ),
    "gradescope_one_file": (
        "Only {name} was judged: the isolated autograder runs one file, so {files} could not be imported;"
        " put everything in {name}.",
        "只评测了 {name}：隔离的评测程序只运行一个文件，因此无法导入 {files}；请把全部代码放进 {name}。",
    ),
    "gradescope_which_file": (
        "Several Python files were submitted ({files}) and none is named {name}: name your solution {name}.",
        "提交了多个 Python 文件（{files}），其中没有 {name}：请把你的解答命名为 {name}。",
    ),
}


def function_list(names: list[str], lang: str) -> str:
    """Function names for a sentence in ``lang``: ``f, g`` in English, ``f、g`` in Chinese."""
    return ("、" if lang == "zh" else ", ").join(names)


def t(key: str, lang: str, **values: object) -> str:
    """The CLI text ``key`` (its own, or a shared one) in ``lang``, formatted with ``values``."""
    if key in _CLI:
        en, zh = _CLI[key]
    else:
        en, zh = SHARED[_CLI_ALIASES.get(key, key)]
        if key in _CLI_LOWER_CASE:
            en = en.lower()
    return format_text(zh if lang == "zh" else en, **values)
