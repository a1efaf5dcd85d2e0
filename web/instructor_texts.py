"""The texts of the course and instructor pages, in English and Chinese: key → (en, zh).

Merged into :data:`web.texts.TEXTS` (one table per fact, as there). Grouped by page; keep a
key in the group of the page that uses it.
"""

from __future__ import annotations

INSTRUCTOR: dict[str, tuple[str, str]] = {
    # --- shared by the course pages ---
    "courses": ("Courses", "课程"),
    "course": ("Course", "课程"),
    "site_admin": ("site admin", "站点管理员"),
    "hidden_case_failed": (
        "A hidden case failed. Your course shows only the diagnosis of hidden cases for now.",
        "有隐藏用例未通过。你的课程目前只显示隐藏用例的诊断。",
    ),
    "results_withheld": (
        "The verdict depends on hidden cases, whose results your course does not show yet.",
        "结果取决于隐藏用例，你的课程暂时不公开这些结果。",
    ),
    # --- courses, people, assignments (web/course_pages.py) ---
    "your_courses": ("Your courses", "你的课程"),
    "your_role": ("Your role", "你的角色"),
    "course_role_learner": ("learner", "学员"),
    "course_role_instructor": ("instructor of the course", "课程教师"),
    "no_courses_yet": ("You are in no course yet.", "你还没有加入任何课程。"),
    "course_name": ("Course name", "课程名称"),
    "time_zone": ("Time zone", "时区"),
    "create_course": ("Create a course", "创建课程"),
    "course_created": (
        "The course is created. Learners join it with the code {code}.",
        "课程已创建。学员用加入码 {code} 加入。",
    ),
    "join_code": ("Join code", "加入码"),
    "join_course": ("Join a course", "加入课程"),
    "join_help": ("Type the join code your instructor gave you.", "输入教师给你的加入码。"),
    "no_such_join_code": (
        "No course has this join code; check it with your instructor.",
        "没有课程使用这个加入码，请向教师核对。",
    ),
    "joined_course": ("You joined {name}.", "你已加入 {name}。"),
    "course_pages": ("Course pages", "课程页面"),
    "course_home": ("Course home", "课程首页"),
    "assignments": ("Assignments", "作业"),
    "no_assignments": ("No assignment yet.", "还没有作业。"),
    "new_assignment": ("New assignment", "新建作业"),
    "opens_at": ("Opens", "开放时间"),
    "due_at": ("Due", "截止时间"),
    "late_policy": ("Late work", "迟交"),
    "late_not_accepted": ("not accepted", "不接受"),
    "late_penalty": ("accepted with a penalty per day", "接受，每天扣分"),
    "late_flagged": ("accepted and flagged late", "接受并标记为迟交"),
    "penalty_percent": (
        "Penalty per started day late (% of the score)",
        "每迟交一天（不足一天按一天）扣除的分数比例（%）",
    ),
    "penalty_per_day_value": ("{percent}% a day", "每天 {percent}%"),
    "visibility_before": ("Hidden cases before the due date", "截止前隐藏用例的可见范围"),
    "visibility_after": ("Hidden cases after the due date", "截止后隐藏用例的可见范围"),
    "visibility_rule": ("verdict, failed rule and row label", "结论、未通过的规则和行标签"),
    "visibility_diagnosis": ("verdict and diagnosis only", "只有结论和诊断"),
    "visibility_nothing": ("nothing (verdict withheld)", "不显示（结论暂不公开）"),
    "visibility_help": (
        "What learners see of hidden cases. Instructors always see everything, seeds included.",
        "学员能看到的隐藏用例信息。教师总能看到全部信息，包括种子。",
    ),
    "save_assignment": ("Save the assignment", "保存作业"),
    "assignment_saved": ("Assignment {title} saved.", "作业 {title} 已保存。"),
    "times_typed_in": (
        "Date-times are typed and shown in the course's time zone, {zone}.",
        "日期时间按课程的时区 {zone} 输入和显示。",
    ),
    "times_shown_in": ("Times are shown in the course's time zone, {zone}.", "时间按课程的时区 {zone} 显示。"),
    "extensions": ("Extensions", "延期"),
    "no_extensions": ("No extension granted.", "没有延期。"),
    "learner": ("Learner", "学员"),
    "grant_extension": ("Grant the extension", "批准延期"),
    "extension_granted": ("{name} has a new due date.", "{name} 有了新的截止时间。"),
    "your_extension": ("your extension", "你的延期"),
    "people": ("People", "成员"),
    "learners": ("Learners", "学员"),
    "instructors": ("Instructors", "教师"),
    "learner_count": ("{count} learners.", "{count} 名学员。"),
    "add_instructor": ("Add an instructor", "添加教师"),
    "instructor_added": ("{name} is an instructor of this course.", "{name} 现在是本课程的教师。"),
    "upload_roster": ("Upload a roster", "上传名单"),
    "roster_help": (
        "A CSV file with one user name per row (or a column headed name). Accounts that exist join as "
        "learners; others are listed so that you can send them the join code.",
        "CSV 文件，每行一个用户名（或有一列表头为 name）。已有账号的用户作为学员加入；"
        "其余的会列出来，你可以把加入码发给他们。",
    ),
    "roster_file": ("CSV file", "CSV 文件"),
    "roster_csv": ("Or paste the CSV", "或粘贴 CSV 内容"),
    "roster_result": (
        "Roster: {added} added, {already} already in the course, {unknown} without an account.",
        "名单：新加入 {added} 人，已在课程中 {already} 人，{unknown} 人没有账号。",
    ),
    "roster_unknown": ("No account for: {names}", "以下用户名没有账号：{names}"),
    "counted_score": ("Counted score", "计分"),
    "attempts": ("Attempts", "尝试次数"),
    "notes": ("Notes", "备注"),
    "late": ("late", "迟交"),
    "override_note": ("Score set to {score}% by your instructor", "教师把分数改为 {score}%"),
    # --- gradebook and exports (web/gradebook_pages.py) ---
    "gradebook": ("Gradebook", "成绩册"),
    "gradebook_total": ("Total", "总分"),
    "gradebook_score": ("Score", "得分"),
    "gradebook_verdict": ("Verdict", "结论"),
    "gradebook_show": ("Show", "显示"),
    "gradebook_name_filter": ("Learner name contains", "学员用户名包含"),
    "gradebook_filter_all": ("all learners", "全部学员"),
    "gradebook_filter_late": ("learners with late work", "有迟交的学员"),
    "gradebook_filter_missing": ("learners with missing work", "有未完成练习的学员"),
    "gradebook_filter_overridden": ("learners with an overridden score", "有被教师改分的学员"),
    "gradebook_per_page": ("Learners per page", "每页学员数"),
    "gradebook_apply": ("Apply", "应用"),
    "gradebook_matching": (
        "{count} learners match; page {page} of {pages}.",
        "{count} 名学员符合条件；第 {page} 页，共 {pages} 页。",
    ),
    "gradebook_no_learners": ("No learner matches.", "没有符合条件的学员。"),
    "gradebook_pages": ("Gradebook pages", "成绩册分页"),
    "gradebook_previous": ("Previous page", "上一页"),
    "gradebook_next": ("Next page", "下一页"),
    "gradebook_download_csv": ("Download the gradebook (CSV)", "下载成绩册（CSV）"),
    "gradebook_csv_help": (
        "One row per learner: each exercise's score as a share from 0 to 1, its late flag, "
        "the total and the late count.",
        "每名学员一行：每道练习的得分（0 到 1 之间的比例）、是否迟交、总分和迟交次数。",
    ),
    "gradebook_overridden": ("overridden by an instructor", "教师已改分"),
    "gradebook_late_flag": ("counted attempt was late", "计分的提交迟交了"),
    "gradebook_not_tried": ("not tried", "未尝试"),
    "gradebook_cell_heading": ("{name} on exercise {number}", "{name} 的练习 {number}"),
    "gradebook_back": ("Back to the gradebook", "返回成绩册"),
    "gradebook_counted": ("counted", "计分"),
    "gradebook_overrides": ("Score overrides", "改分记录"),
    "gradebook_no_overrides": ("No override yet.", "还没有改分。"),
    "gradebook_set_by": ("Set by", "改分人"),
    "gradebook_set_at": ("Set at", "改分时间"),
    "gradebook_score_percent": ("Score (% of the exercise's point)", "得分（占该练习分值的百分比）"),
    "gradebook_percent_range": ("A score is a percentage from 0 to 100.", "分数是 0 到 100 之间的百分数。"),
    "gradebook_comment": ("Comment (the learner reads it)", "说明（学员会看到）"),
    "gradebook_set_score": ("Set the score", "设定分数"),
    "gradebook_score_set": (
        "The score of {name} on exercise {number} is set.",
        "{name} 的练习 {number} 的分数已设定。",
    ),
    "gradebook_attempts_of": ("Attempts, oldest first", "提交记录（从早到晚）"),
    # --- submissions list, instructor's submission view, diff, rejudge, overrides ---
    # --- analytics (web/analytics_pages.py) ---
}
