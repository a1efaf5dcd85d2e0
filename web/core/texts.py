"""Every text of the web pages, in English and Chinese: key → (en, zh).

Keys are looked up with :func:`web.core.i18n.t`; ``{name}`` fields are filled by ``str.format``, and
a count phrase is written ``{count:# learner|# learners}`` in English (singular for 1, see
:func:`judge.i18n.format_text`; ``tests/web/test_wording.py`` finds a bare ``{n} nouns``).
A test renders every page in both languages and checks that each key has both texts. Code in a
text is written between backticks, as in Markdown; templates show such texts through the
``code_spans`` filter (:func:`web.core.i18n.code_spans`). The verdicts' names are not written here:
they come from :mod:`judge.verdicts`, so the site, the CLI and the browser's Run name them alike;
nor are the texts the CLI shows too (a report's summary, seed, run, the case table, the suites'
names, the false-failure budget): they come from :data:`judge.i18n.SHARED`. One table per fact,
checked by ``tests/test_one_text_per_fact.py``.
"""

from __future__ import annotations

from judge.i18n import SHARED
from judge.verdicts import Verdict
from web.core.instructor_texts import INSTRUCTOR
from web.core.lms_texts import LMS

# What only the site shows.
SITE: dict[str, tuple[str, str]] = {
    # chrome
    "skip_to_content": ("Skip to content", "跳到正文"),
    "main_navigation": ("Main navigation", "主导航"),
    "exercises": ("Exercises", "练习"),
    "instructor": ("instructor", "教师"),
    "footer": (
        "ProbJudge judges random answers with hypothesis tests whose false-failure probability is "
        "bounded and documented.",
        "ProbJudge 用假设检验评测随机输出；正确解答被误判的概率有明确的上界，并且有文档说明。",
    ),
    "weak_sandbox": (
        "This site runs submitted code at the '{level}' sandbox level: it is NOT isolated. "
        "Use it only for yourself or people you trust.",
        "本站以“{level}”沙箱级别运行提交的代码：代码没有被隔离。只供你自己或你信任的人使用。",
    ),
    # accounts
    "sign_in": ("Sign in", "登录"),
    "sign_up": ("Sign up", "注册"),
    "sign_out": ("Sign out", "退出"),
    "user_name": ("User name", "用户名"),
    "password": ("Password", "密码"),
    "confirm_password": ("Password again", "再次输入密码"),
    "language": ("Language", "语言"),
    "name_hint": (
        "Letters, digits, '.', '_' and '-'; case does not matter (Ann and ann are the same user).",
        "只能包含字母、数字、“.”、“_”和“-”；不区分大小写（Ann 和 ann 是同一个用户）。",
    ),
    "password_hint": ("At least 8 characters.", "至少 8 个字符。"),
    "have_account": ("Already have an account?", "已经有账号了？"),
    "no_account": ("No account yet?", "还没有账号？"),
    "required": ("This field is required.", "此项必填。"),
    "name_length": ("A user name has 1 to 64 characters.", "用户名长度为 1 到 64 个字符。"),
    "name_characters": ("Use only letters, digits, '.', '_' and '-'.", "只能使用字母、数字、“.”、“_”和“-”。"),
    "password_length": ("A password needs at least 8 characters.", "密码至少需要 8 个字符。"),
    "passwords_differ": ("The two passwords differ.", "两次输入的密码不一致。"),
    "name_taken": ("This user name is taken; choose another.", "这个用户名已被使用，请换一个。"),
    "welcome": ("Welcome, {name}! Pick an exercise to start.", "欢迎，{name}！选一道练习开始吧。"),
    "sign_in_failed": ("Wrong user name or password.", "用户名或密码错误。"),
    "sign_in_first": ("Please sign in to see this page.", "请先登录再查看此页面。"),
    "signed_out": ("You are signed out.", "你已退出登录。"),
    "change_password": ("Change password", "修改密码"),
    "change_password_help": (
        "Changing your password signs you out everywhere else (other browsers and "
        "devices); this browser stays signed in. With the box below ticked (the default), every "
        "API token is revoked too; untick it to keep your tokens valid.",
        "修改密码后，你在其他地方（其他浏览器和设备）的登录都会退出；本浏览器保持登录。"
        "勾选下面的选项（默认勾选）时，所有 API 令牌也会被撤销；取消勾选则令牌仍然有效。",
    ),
    "revoke_tokens_too": ("Also revoke all my API tokens", "同时撤销我的所有 API 令牌"),
    "tokens_revoked_count": ("API tokens revoked: {count}.", "已撤销的 API 令牌：{count} 个。"),
    "current_password": ("Current password", "当前密码"),
    "new_password": ("New password", "新密码"),
    "wrong_current_password": ("The current password is wrong.", "当前密码不正确。"),
    "password_changed": (
        "Your password is changed. Sessions signed out elsewhere: {ended}.",
        "密码已修改。在其他地方退出的登录：{ended} 个。",
    ),
    # confirmations (web.core.forms.SureForm)
    "i_am_sure": ("I am sure", "我确定"),
    "confirm_required": ("Tick the box to confirm.", "请勾选确认框。"),
    # the admin's page of one account (web/accounts/admin_pages.py)
    "admin_users": ("Accounts", "账号"),
    "admin_find_user": ("Find an account by name", "按用户名查找账号"),
    "admin_no_such_user": ("No account is called {name}.", "没有名为 {name} 的账号。"),
    "admin_user_heading": ("Account {name}", "账号 {name}"),
    "admin_user_summary": (
        "Site role: {role}. API tokens: {tokens}. Sign-in sessions: {sessions}.",
        "站点角色：{role}。API 令牌：{tokens} 个。登录会话：{sessions} 个。",
    ),
    "admin_revoke": ("Revoke all API tokens and end all sign-in sessions", "撤销全部 API 令牌并结束全部登录会话"),
    "admin_revoke_help": (
        "Every API token of this account stops working and every browser signed in as it is "
        "signed out, at once. The password is not changed: the account can sign in again.",
        "该账号的所有 API 令牌立即失效，所有以该账号登录的浏览器立即退出。密码不会改变，账号仍可重新登录。",
    ),
    "admin_revoked": (
        "{name}: {tokens} API tokens revoked, {sessions} sign-in sessions ended.",
        "{name}：已撤销 {tokens} 个 API 令牌，已结束 {sessions} 个登录会话。",
    ),
    # text the site cannot store
    "text_has_nul": (
        "Line {line}, column {column}: a NUL character (U+0000), which the site cannot store. "
        "Remove it and send again.",
        "第 {line} 行第 {column} 列：NUL 字符（U+0000），本站无法保存。请删除它后重新发送。",
    ),
    "text_has_surrogate": (
        "Line {line}, column {column}: an invalid character (a lone surrogate, U+{code}), "
        "which the site cannot store. Remove it and send again.",
        "第 {line} 行第 {column} 列：无效字符（单独的代理项 U+{code}），本站无法保存。请删除它后重新发送。",
    ),
    # exercise list
    "difficulty_easy": ("easy", "简单"),
    "difficulty_medium": ("medium", "中等"),
    "difficulty_hard": ("hard", "困难"),
    "tags": ("Tags", "标签"),
    "place_local": ("your machine", "本机"),
    "place_server": ("server", "服务器"),
    "place_browser": ("browser", "浏览器"),
    "your_status": ("Your status", "你的状态"),
    "status_solved": ("solved", "已通过"),
    "status_attempted": ("attempted", "尝试过"),
    "status_new": ("not started", "未开始"),
    "acceptance": ("Acceptance", "通过率"),
    "accepted_of": ("{accepted} of {graded}", "{graded} 次中 {accepted} 次"),
    "no_exercises": ("No exercises yet.", "还没有练习。"),
    # exercise page
    "statement": ("Statement", "题目"),
    "statement_table": ("Table {number} of the statement", "题目中的表格 {number}"),
    "table_of": ("Table: {what}", "表格：{what}"),  # names a table's scrolling box
    "your_solution": ("Your solution", "你的解答"),
    "your_code": ("Your code", "你的代码"),
    "submit": ("Submit", "提交"),
    "submit_for": ("Submit for", "提交到"),
    "context_practice": ("practice (no course)", "练习（不属于任何课程）"),
    "context_course": ("for the course {name}", "提交到课程 {name}"),
    "context_none": ("practice: no course sees it", "练习：任何课程都看不到"),
    "submit_shortcut": (
        "or Ctrl+Enter (⌘+Enter on a Mac). In the editor Tab indents; Esc then Tab leaves it.",
        "或按 Ctrl+Enter（Mac 上为 ⌘+Enter）。在编辑器中 Tab 用于缩进；先按 Esc 再按 Tab 可以离开编辑器。",
    ),
    "sign_in_to_submit": ("Sign in to submit", "登录后提交"),
    "not_gradable_here": (
        "This site cannot grade this exercise: its hidden tests need `{module}`, which the `{extra}` "
        "extra installs, and it is not installed here. The site's deployer must install it "
        "(`pip install 'probjudge[{extra}]'`); until then submissions are refused.",
        "本站无法评测这道练习：它的隐藏测试需要 `{module}`，由可选依赖 `{extra}` 安装，而本站没有安装。"
        "需要由部署本站的人安装（`pip install 'probjudge[{extra}]'`）；在此之前提交会被拒绝。",
    ),
    "not_gradable_tag": ("not graded on this site", "本站不评测"),
    "download": ("Download for local judging", "下载到本地评测"),
    "reset_starter": ("Reset to the starter code", "恢复为初始代码"),
    "reset_confirm": (
        "Replace your code with the starter code? Your draft will be lost.",
        "用初始代码替换你的代码吗？你的草稿将会丢失。",
    ),
    "draft_saved": ("Draft saved in this browser.", "草稿已保存在此浏览器中。"),
    "draft_restored": ("Your draft from this browser was restored.", "已恢复你在此浏览器中的草稿。"),
    "judge_locally": ("Judge on your own machine", "在自己的电脑上评测"),
    "judge_locally_help": (
        "Download your code, then run the public cases with the same judge (CPU or GPU) from a clone of the project:",
        "下载你的代码，然后在项目的克隆目录中用同一个评测程序（CPU 或 GPU）运行公开测试点：",
    ),
    "recent_attempts": ("Your recent attempts", "你最近的提交"),
    "all_attempts": ("All your attempts", "你的全部提交"),
    "no_attempts": ("No attempts yet.", "还没有提交。"),
    # deadlines where the learner works (web/teaching/deadlines.py)
    "deadlines_heading": ("Deadlines", "截止时间"),
    "deadline_line": ("{course} · {assignment}: due {due}", "{course} · {assignment}：截止于 {due}"),
    "deadline_extension": (
        "your extension: due {due} (the assignment's: {original})",
        "你的延期：截止于 {due}（作业原定：{original}）",
    ),
    "deadline_left": ("{span} left", "还剩 {span}"),
    "deadline_due_in": ("due in {span}", "{span}后截止"),
    "deadline_closed": ("closed {span} ago", "已于 {span}前截止"),
    "span_seconds": ("{n} s", "{n} 秒"),
    "span_minutes": ("{n} min", "{n} 分钟"),
    "span_hours": ("{n} h", "{n} 小时"),
    "span_days": ("{n:# day|# days}", "{n} 天"),
    "policy_not_accepted": ("Late submissions do not count.", "逾期提交不计分。"),
    "policy_flagged": ("Late submissions count in full and are marked late.", "逾期提交按全分计，但标记为逾期。"),
    "policy_penalty": (
        "Late submissions lose {rate} of their score per started day late: up to 1 day late counts "
        "{first}; more than {days:# day|# days} late counts nothing.",
        "逾期提交每开始一天扣除得分的 {rate}：逾期 1 天以内按 {first} 计；逾期超过 {days} 天不计分。",
    ),
    "late_warning": (
        "This is {late} past your due time; it will count {share} of its score. Submit anyway?",
        "现在已超过你的截止时间 {late}；这次提交将按得分的 {share} 计。仍要提交吗？",
    ),
    "late_warning_not_counted": (
        "This is {late} past your due time; this course does not count late submissions. Submit anyway?",
        "现在已超过你的截止时间 {late}；本课程不计逾期提交的分数。仍要提交吗？",
    ),
    "with_extension": ("with an extension", "已延期"),
    "submit_anyway": ("Submit anyway", "仍然提交"),
    "lateness_on_time": ("on time", "按时提交"),
    "lateness_counted": ("late by {late}, counted {share}", "逾期 {late}，按 {share} 计"),
    "lateness_not_counted": ("late by {late}, not counted", "逾期 {late}，不计分"),
    "lateness_before_opening": ("made before the assignment opened: not counted", "在作业开放之前提交：不计分"),
    "upcoming_deadlines": (
        "Your upcoming deadlines (next {days:# day|# days})",
        "你即将到来的截止时间（未来 {days} 天）",
    ),
    "no_upcoming_deadlines": ("No deadline in the next {days:# day|# days}.", "未来 {days} 天内没有截止时间。"),
    "assignment": ("Assignment", "作业"),
    "time_left": ("Time left", "剩余时间"),
    "hidden_details_limited": (
        "Hidden test details are limited to “{before}” until {due}; after that you will see “{after}”.",
        "截止时间 {due} 之前，隐藏测试的详情只显示“{before}”；之后你将看到“{after}”。",
    ),
    "times_in_utc": ("Times in UTC.", "时间为 UTC。"),
    # run in the browser
    "run": ("Run in the browser", "在浏览器中运行"),
    "run_hint": (
        "Run judges your code here, in this browser, on the public cases and small extra ones (no "
        "server, nothing stored). Submit grades it on the server with the hidden tests.",
        "“运行”在本浏览器中评测你的代码：公开测试点和一些小规模测试点（不经过服务器，也不保存）。"
        "“提交”则在服务器上用隐藏测试评测。",
    ),
    "run_heading": ("Run in this browser (not stored)", "在本浏览器中运行（不保存）"),
    "run_loading": (
        "Loading Python in your browser (the first run takes a few seconds)…",
        "正在浏览器中加载 Python（第一次运行需要几秒钟）……",
    ),
    "run_running": ("Running the public and tiny cases…", "正在运行公开测试点和小规模测试点……"),
    "go_to_editor": ("Go to the editor", "跳到编辑器"),
    "load_latest": (
        "Load my latest submission (#{id}, {ago}, {verdict})",
        "载入我最近的提交（#{id}，{ago}，{verdict}）",
    ),
    "latest_loaded": (
        "Your submission #{id} is in the editor. “Reset to the starter code” goes back.",
        "编辑器中现在是你的提交 #{id}。“恢复为初始代码”可以回到初始代码。",
    ),
    "run_button_loading": ("Loading Python…", "正在加载 Python…"),
    "run_button_running": ("Running…", "运行中…"),
    "run_failed": ("The browser run failed:", "浏览器运行失败："),
    "run_in_browser": ("in the browser, {seconds} s", "浏览器中，用时 {seconds} 秒"),
    # history
    "history": ("History", "提交历史"),
    "history_of": ("Your attempts at {number}. {title}", "你在 {number}. {title} 上的提交"),
    "back_to_exercise": ("Back to the exercise", "返回练习"),
    "back_to_exercises": ("Back to the exercises", "返回练习列表"),
    "submitted_at": ("Submitted", "提交时间"),
    "cases_passed": ("Cases passed", "通过的测试点"),
    "code": ("Code", "代码"),
    "show_code": ("Show the code", "查看代码"),
    "line_count": ("{count:# line|# lines}", "{count} 行"),
    # a submission
    "submission": ("Submission", "提交"),
    "status_queued": ("Queued", "排队中"),
    "status_running": ("Running", "评测中"),
    "status_done": ("Done", "已完成"),
    "pending_help": ("This page updates by itself.", "本页面会自动更新。"),
    "queue_position": ("{position} in the queue", "排在第 {position} 位"),  # en: an ordinal, "2nd"
    "progress_cases": ("{done} of {total:# case|# cases}", "已完成 {done}/{total} 个测试点"),
    "progress_hidden_count": ("the {count} hidden cases are running", "正在运行 {count} 个隐藏测试点"),
    "progress_hidden": ("the hidden cases are running", "正在运行隐藏测试点"),
    "elapsed_seconds": ("{seconds} s", "{seconds} 秒"),
    "cases": ("Test cases", "测试点"),
    "sandbox": ("sandbox", "沙箱"),
    # verdict_XX: a verdict's name, from judge.verdicts (added below: one name everywhere)
    "verdict_note_IE": ("The judge failed here, not your code.", "这是评测系统的问题，不是你的代码的问题。"),
    # profile
    "progress": ("Progress", "进度"),
    "progress_summary": (
        "Solved {solved} of {total:# exercise|# exercises}; attempted {attempted} more;"
        " {submissions:# submission|# submissions}.",
        "已通过 {total} 道练习中的 {solved} 道；另有 {attempted} 道尝试过；共提交 {submissions} 次。",
    ),
    "api_tokens": ("API tokens", "API 令牌"),
    "api_tokens_help": (
        "A token lets a program act as you through the JSON API, for example "
        "`practice/judge.py submit`. Anyone with the token can submit as you: keep it secret.",
        "令牌让程序通过 JSON API 以你的身份操作，例如 `practice/judge.py submit`。"
        "拿到令牌的人都能以你的身份提交，请妥善保管。",
    ),
    "token_label": ("Label", "备注"),
    "label_length": ("A label has at most 64 characters.", "备注最多 64 个字符。"),
    "create_token": ("Create a token", "创建令牌"),
    "token_created": (
        "Your new token. It is shown only this once: copy it now.",
        "这是你的新令牌，只显示这一次，请立即复制。",
    ),
    "token_revoked": ("The token is revoked.", "令牌已撤销。"),
    "too_many_tokens": ("You have {limit} tokens; revoke one first.", "你已有 {limit} 个令牌，请先撤销一个。"),
    "created": ("Created", "创建时间"),
    "revoke": ("Revoke", "撤销"),
    # errors
    "error_400": ("Bad request", "请求有误"),
    "error_help_400": (
        "The form was incomplete or expired. Go back, reload the page and try again.",
        "表单不完整或已过期。请返回、刷新页面后重试。",
    ),
    "error_404": ("Not found", "找不到页面"),
    "error_help_404": ("There is nothing here, or it is not yours to see.", "这里什么也没有，或者你无权查看。"),
    "error_413": ("Too large", "内容过大"),
    "error_help_413": ("What you sent is larger than this site accepts.", "你发送的内容超过了本站的上限。"),
    "error_429": ("Too many requests", "请求过于频繁"),
    "error_help_429": ("Slow down: wait a minute, then try again.", "请稍等一分钟后再试。"),
    "error_500": ("Something went wrong", "出错了"),
    "error_help_500": (
        "The site hit an error. Your submissions are safe; try again in a moment.",
        "网站遇到了错误。你的提交不会丢失，请稍后再试。",
    ),
}
VERDICT_NAMES = {f"verdict_{verdict.value}": (verdict.title_en, verdict.title_zh) for verdict in Verdict}

# Every text the pages look up; a key defined in two of these tables is a bug the test catches.
TEXTS: dict[str, tuple[str, str]] = {**SITE, **INSTRUCTOR, **LMS, **SHARED, **VERDICT_NAMES}
