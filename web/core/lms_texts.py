"""The texts of the LMS (LTI 1.3) pages, in English and Chinese: key → (en, zh).

Merged into :data:`web.core.texts.TEXTS` (one table per fact, as there).
"""

from __future__ import annotations

LMS: dict[str, tuple[str, str]] = {
    # --- launch errors (web/lms/pages.py) ---
    "lti_error_title": ("The LMS launch was refused", "来自学习管理系统的启动被拒绝"),
    "lti_error_unknown_platform": (
        "This LMS (its issuer and client id) is not registered with ProbJudge. Ask the site admin to register it.",
        "ProbJudge 尚未登记这个学习管理系统（它的 issuer 与 client id）。请联系站点管理员登记。",
    ),
    "lti_error_unknown_deployment": (
        "This installation of ProbJudge in your LMS (its deployment id) is not registered. "
        "Ask the site admin to add it.",
        "ProbJudge 在你的学习管理系统中的这次安装（deployment id）尚未登记。请联系站点管理员添加。",
    ),
    "lti_error_bad_signature": (
        "The launch was not signed by the registered LMS. Open ProbJudge again from your course.",
        "这次启动不是由已登记的学习管理系统签名的。请从课程中重新打开 ProbJudge。",
    ),
    "lti_error_expired": (
        "The launch has expired. Open ProbJudge again from your course.",
        "这次启动已过期。请从课程中重新打开 ProbJudge。",
    ),
    "lti_error_replayed": (
        "This launch was already used once. Open ProbJudge again from your course.",
        "这次启动已经使用过。请从课程中重新打开 ProbJudge。",
    ),
    "lti_error_bad_state": (
        "The launch did not come back to the browser that started it (cookies may be blocked). "
        "Open ProbJudge again from your course, or in a new window.",
        "启动没有回到发起它的浏览器（可能禁用了 Cookie）。请从课程中重新打开 ProbJudge，或在新窗口中打开。",
    ),
    "lti_error_wrong_message": (
        "ProbJudge cannot open this kind of LMS message.",
        "ProbJudge 无法处理这种学习管理系统消息。",
    ),
    "lti_error_missing_claims": (
        "The launch lacks information ProbJudge needs (who you are, or which course).",
        "这次启动缺少 ProbJudge 需要的信息（你是谁，或是哪门课程）。",
    ),
    "lti_error_no_course_yet": (
        "This course is not set up in ProbJudge yet: your instructor must open ProbJudge from it first.",
        "这门课程尚未在 ProbJudge 中建立：需要教师先从课程中打开一次 ProbJudge。",
    ),
    "lti_error_not_instructor": (
        "Only an instructor of the course can choose what ProbJudge adds to it.",
        "只有课程教师可以选择要添加到课程中的 ProbJudge 内容。",
    ),
    "lti_error_help": (
        "Nothing was changed. If this keeps happening, show this page to your instructor.",
        "没有做任何更改。如果问题反复出现，请把此页展示给教师。",
    ),
    # --- cookie check (templates/lti/cookie_check.html) ---
    "lti_cookies_loading": ("Opening ProbJudge…", "正在打开 ProbJudge……"),
    "lti_cookies_blocked": (
        "Your browser does not let ProbJudge keep you signed in inside this page.",
        "你的浏览器不允许 ProbJudge 在此页面内保持登录。",
    ),
    "lti_cookies_open": ("Open ProbJudge in a new window", "在新窗口中打开 ProbJudge"),
    # --- deep linking picker (templates/lti/picker.html) ---
    "lti_picker_title": ("Add ProbJudge to your LMS course", "将 ProbJudge 添加到学习管理系统课程"),
    "lti_picker_help": (
        "Tick what to add. Each becomes a link in your LMS course, with a gradebook column.",
        "勾选要添加的内容。每一项会成为学习管理系统课程中的一个链接，并带有成绩列。",
    ),
    "lti_picker_assignments": ("Assignments of {course}", "{course} 的作业"),
    "lti_picker_no_assignments": ("The course has no assignments yet.", "这门课程还没有作业。"),
    "lti_picker_exercises": ("Exercises", "练习"),
    "lti_picker_submit": ("Add to the LMS course", "添加到课程"),
    "lti_picker_nothing": ("Tick at least one item.", "请至少勾选一项。"),
    "lti_returning": ("Returning to your LMS…", "正在返回学习管理系统……"),
    "lti_return_button": ("Continue", "继续"),
    # --- admin page (templates/lti/admin.html) ---
    "lti_admin_title": ("LMS platforms (LTI 1.3)", "学习管理系统平台（LTI 1.3）"),
    "lti_admin_give": ("Give the LMS these URLs", "把以下网址填入学习管理系统"),
    "lti_admin_jwks": ("Public key set (JWKS) URL", "公钥集（JWKS）网址"),
    "lti_admin_login": ("OIDC login initiation URL", "OIDC 登录发起网址"),
    "lti_admin_launch": ("Launch (redirect) URL", "启动（重定向）网址"),
    "lti_admin_deep_link": ("Deep linking URL", "深度链接网址"),
    "lti_admin_registered": ("Registered platforms", "已登记的平台"),
    "lti_admin_none": ("No platform is registered yet.", "尚未登记任何平台。"),
    "lti_admin_register": ("Register a platform", "登记平台"),
    "lti_admin_saved": ("Platform {name} saved.", "平台 {name} 已保存。"),
    "lti_admin_deployments": ("Deployment ids", "部署 ID"),
    "lti_field_name": ("Name (for you)", "名称（供你识别）"),
    "lti_field_issuer": ("Issuer", "Issuer（签发者）"),
    "lti_field_client_id": ("Client id", "客户端 ID（Client ID）"),
    "lti_field_deployment_id": ("Deployment id", "部署 ID"),
    "lti_field_auth_login_url": ("Platform's OIDC authorization URL", "平台的 OIDC 授权网址"),
    "lti_field_auth_token_url": ("Platform's access token URL", "平台的访问令牌网址"),
    "lti_field_key_set_url": ("Platform's public key set (JWKS) URL", "平台的公钥集（JWKS）网址"),
    "lti_field_auth_audience": ("Token audience (optional)", "令牌受众（可选）"),
}
