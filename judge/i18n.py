"""English and Chinese texts for what learners read: CLI chrome and bilingual diagnoses.

A :class:`Bilingual` is a ``str`` (its English text, so it works wherever a string does)
that also carries the Chinese text; the runner stores both in reports.
"""

from __future__ import annotations

import os

LANGUAGES = ("en", "zh")


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


_CLI = {
    "cases": ("{passed}/{total} cases passed", "通过 {passed}/{total} 个测试点"),
    "exercise": ("exercise", "练习"),
    "seed": ("seed", "种子"),
    "run": ("run", "评测编号"),
    "device": ("device", "设备"),
    "time": ("time", "用时"),
    "case": ("case", "测试点"),
    "suite": ("suite", "测试组"),
    "result": ("result", "结果"),
    "p_value": ("p-value", "p 值"),
    "public": ("public", "公开"),
    "hidden": ("hidden", "隐藏"),
    "tiny": ("tiny", "小规模"),
    "judge": ("judge", "评测"),
    "diagnosis": ("Likely mistake", "可能的错误"),
    "output": ("What your code printed (last lines)", "你的代码输出（末尾部分）"),
    "reproduce": ("Reproduce this run with --seed {seed}", "使用 --seed {seed} 可以复现这次评测"),
    "budget": ("A correct solution fails this judge with probability below {total:.0e}.",
               "正确的解答被误判为失败的概率低于 {total:.0e}。"),
    "judging": ("Judging", "正在评测"),
    "starting": ("Starting your code and loading torch", "正在启动你的代码并加载 torch"),
    "starting_browser": ("Running the browser variant under Node.js", "正在用 Node.js 运行浏览器版本"),
    "same_error": ("{case}: same error as above", "{case}：错误同上"),
    "public_only_passed": ("The public examples pass, but this is not yet the verdict on your solution: "
                           "the {hidden} hidden tests were skipped (--public-only).",
                           "公开样例全部通过，但这还不是对你的解答的最终评测："
                           "跳过了 {hidden} 个隐藏测试（--public-only）。"),
    "public_only_failed": ("Only the public examples ran: the {hidden} hidden tests were skipped (--public-only).",
                           "只运行了公开样例：跳过了 {hidden} 个隐藏测试（--public-only）。"),
    "public_only_no_diagnosis": ("The hidden tests also recognise known mistakes: run them to have yours named.",
                                 "隐藏测试还能识别常见错误：运行它们，可以知道你的代码可能错在哪里。"),
    "run_hidden": ("For the full verdict, run:", "要得到完整的评测结果，请运行："),
    "no_file": ("No file {path}. Run `python practice/judge.py start {id}` first, or pass a file.",
                "找不到文件 {path}。请先运行 `python practice/judge.py start {id}`，或者指定一个文件。"),
    "started": ("Created {path}. Edit it, then run `python practice/judge.py test {id}`.",
                "已创建 {path}。编辑它，然后运行 `python practice/judge.py test {id}`。"),
    "exists": ("{path} already exists; it was left untouched.", "{path} 已经存在，没有改动它。"),
    "title": ("title", "标题"),
    "difficulty": ("difficulty", "难度"),
    "runs_in": ("runs in", "运行于"),
    "number": ("#", "编号"),
    "slug": ("slug", "标识"),
    "reference": ("Reference solution", "参考解答"),
    "explanation": ("Explanation", "讲解"),
    "none_run": ("None of the {total} cases ran.", "{total} 个测试点都没有运行。"),
    "details": ("Details of failing cases", "未通过测试点的详情"),
}


def t(key: str, lang: str, **values: object) -> str:
    """The CLI text ``key`` in ``lang``, formatted with ``values``."""
    en, zh = _CLI[key]
    return (zh if lang == "zh" else en).format(**values)
