"""The course pages: the list of one's courses (and invitations to answer), a course's home (for
its instructors: people, pending invitations, join code, roster, assignments; for a learner: the
assignments and their own standing), and the assignment form with its extensions.

Every view checks the viewer against the course (:mod:`web.access.permissions`): a course one is not
in is a 404, an instructor's form sent by a learner a 403. The work itself is
:mod:`web.teaching.courses`' (shared with the API).
"""

from __future__ import annotations

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from sqlalchemy import select
from wtforms import (
    DecimalField,
    SelectField,
    SelectMultipleField,
    StringField,
    SubmitField,
    TextAreaField,
)
from wtforms.validators import DataRequired, Length, NumberRange, Optional, StopValidation
from wtforms.widgets import CheckboxInput, ListWidget

from web.access.permissions import (
    course_to_attend,
    course_to_teach,
    invitation_of,
    invitation_to_answer,
    may_create_courses,
    refuse_unless,
    teaches,
)
from web.access.visibility import withheld_exercises
from web.core.extensions import join_code_limits
from web.core.forms import ConfirmForm, SiteForm, SureForm, show_error
from web.core.i18n import LazyText, bilingual, t
from web.core.models import (
    Assignment,
    Course,
    CourseRole,
    Exercise,
    Extension,
    Invitation,
    LatePolicy,
    User,
    Visibility,
)
from web.core.moments import MomentError, form_value, zone, zone_names
from web.teaching.counting import cells
from web.teaching.courses import (
    CourseError,
    courses_of,
    create_course,
    extension_history,
    grant_extension,
    instructors,
    learners,
    rotate_join_code,
    save_assignment,
    withdraw_extension,
)
from web.teaching.deadlines import UPCOMING_DAYS, upcoming_deadlines
from web.teaching.membership import (
    Invited,
    accept,
    add_instructor,
    add_roster,
    decline,
    invitations_for,
    invitations_in,
    join,
    remove_member,
    withdraw,
)

courses = Blueprint("courses", __name__, url_prefix="/courses")


class _Said(LazyText):
    """A validator's message that is already whole: WTForms' ``%``-filling leaves it alone (a
    label may contain a ``%`` sign)."""

    def __mod__(self, values: object) -> str:
        return str(self)


def _says(label: str, key: str, **values: object) -> LazyText:
    """An error under a field, in words: its label, then what to type (``field_error``)."""
    return _Said("field_error", label=LazyText(label), message=LazyText(key, **values))


class PercentField(DecimalField):
    """A percentage whose unreadable input is refused in the page's words (not WTForms')."""

    def process_formdata(self, valuelist: list) -> None:
        try:
            super().process_formdata(valuelist)
        except ValueError:
            raise ValueError(str(_says("penalty_percent", "error_number"))) from None

    def pre_validate(self, form: object) -> None:
        if self.process_errors:  # unreadable: one message, not a range error about nothing too
            raise StopValidation()


class CourseForm(SiteForm):
    name = StringField(
        LazyText("course_name"),
        validators=[
            DataRequired(LazyText("required")),
            Length(1, 200, _says("course_name", "error_too_long", most=200)),
        ],
    )
    # The list offers the common zones (web.core.moments.zone_names); any valid IANA name sent is
    # accepted (web.core.moments.zone decides), so a client that names another zone keeps working.
    time_zone = SelectField(LazyText("time_zone"), default="UTC", validate_choice=False)
    submit = SubmitField(LazyText("create_course"))


class JoinForm(SiteForm):
    join_code = StringField(
        LazyText("join_code"),
        validators=[DataRequired(LazyText("required")), Length(1, 64, _says("join_code", "error_too_long", most=64))],
    )
    submit = SubmitField(LazyText("join_course"))


class NameForm(SiteForm):
    name = StringField(
        LazyText("user_name"),
        validators=[DataRequired(LazyText("required")), Length(1, 64, _says("user_name", "error_too_long", most=64))],
    )
    submit = SubmitField(LazyText("add_instructor"))


class RosterForm(SiteForm):
    roster = TextAreaField(LazyText("roster_csv"), validators=[Optional()])
    submit = SubmitField(LazyText("upload_roster"))


class MultiCheckbox(SelectMultipleField):
    widget = ListWidget(prefix_label=False)
    option_widget = CheckboxInput()


class AssignmentForm(SiteForm):
    title = StringField(
        LazyText("title"),
        validators=[DataRequired(LazyText("required")), Length(1, 200, _says("title", "error_too_long", most=200))],
    )
    exercises = MultiCheckbox(LazyText("exercises"), coerce=int)
    # Date-times are text, read by web.teaching.courses (web.core.moments.parse_moment: the course's wall-clock
    # time, seconds optional); a date-time picker fills them, and what was typed comes back as typed.
    opens_at = StringField(LazyText("opens_at"), validators=[DataRequired(LazyText("required"))])
    due_at = StringField(LazyText("due_at"), validators=[DataRequired(LazyText("required"))])
    late_policy = SelectField(LazyText("late_policy"), default=LatePolicy.not_accepted.value)
    penalty_percent = PercentField(
        LazyText("penalty_percent"),
        default=0,
        places=None,
        validators=[Optional(), NumberRange(0, 100, _says("penalty_percent", "error_percent"))],
    )
    visibility_before = SelectField(LazyText("visibility_before"), default=Visibility.rule.value)
    visibility_after = SelectField(LazyText("visibility_after"), default=Visibility.rule.value)
    submit = SubmitField(LazyText("save_assignment"))


class ExtensionForm(SiteForm):
    learner = SelectField(LazyText("learner"), coerce=int)
    # Its own id: the assignment form on the same page has a due_at too.
    due_at = StringField(LazyText("due_at"), id="extension_due_at", validators=[DataRequired(LazyText("required"))])
    submit = SubmitField(LazyText("grant_extension"))


def _course_form() -> CourseForm:
    form = CourseForm()
    form.time_zone.choices = [(name, name) for name in zone_names()]
    return form


def _render_index(course_form: CourseForm | None = None, join_form: JoinForm | None = None, status: int = 200):
    memberships = courses_of(g.db, current_user)
    return render_template(
        "courses/index.html",
        memberships=memberships,
        learns=any(role is CourseRole.learner for _, role in memberships),
        may_create=may_create_courses(current_user),
        course_form=course_form or _course_form(),
        join_form=join_form or JoinForm(formdata=None),
        invitations=invitations_for(g.db, current_user),
        confirm_form=ConfirmForm(formdata=None),
        upcoming=upcoming_deadlines(g.db, current_user.id),
        upcoming_days=UPCOMING_DAYS,
    ), status


@courses.get("/")
@login_required
def index():
    return _render_index()


@courses.post("/")
@login_required
def create():
    refuse_unless(may_create_courses(current_user), "creating a course")
    form = _course_form()
    if not form.validate_on_submit():
        return _render_index(course_form=form, status=400)
    try:
        zone(form.time_zone.data)
    except MomentError as error:
        form.time_zone.errors = [str(error)]
        return _render_index(course_form=form, status=400)
    try:
        course = create_course(g.db, current_user, form.name.data, form.time_zone.data)
    except CourseError as error:
        show_error(form, error, form.name)
        return _render_index(course_form=form, status=400)
    g.db.commit()
    flash(t("course_created", code=course.join_code), "success")
    return redirect(url_for("courses.show", course_id=course.id))


@courses.post("/join")
@login_required
@join_code_limits
def join_course():
    form = JoinForm()
    if not form.validate_on_submit():
        return _render_index(join_form=form, status=400)
    try:
        course = join(g.db, current_user, form.join_code.data)
    except CourseError:
        form.join_code.errors.append(t("no_such_join_code"))
        return _render_index(join_form=form, status=404)
    g.db.commit()
    flash(t("joined_course", name=course.name), "success")
    return redirect(url_for("courses.show", course_id=course.id))


def _answer_invitation(invitation_id: int, answer) -> Invitation:
    """The signed-in user's ``answer`` (:func:`accept` or :func:`decline`) to their invitation,
    committed; a 400 for a missing confirmation or an invitation already decided."""
    invitation = invitation_to_answer(invitation_id, current_user)
    if not ConfirmForm().validate_on_submit():
        abort(400)
    try:
        answer(invitation)
    except CourseError as error:
        abort(400, description=str(error))
    g.db.commit()
    return invitation


@courses.post("/invitations/<int:invitation_id>/accept")
@login_required
def accept_invitation(invitation_id: int):
    invitation = _answer_invitation(invitation_id, lambda found: accept(g.db, found, current_user))
    flash(t("invitation_accepted", name=invitation.course.name), "success")
    return redirect(url_for("courses.show", course_id=invitation.course_id))


@courses.post("/invitations/<int:invitation_id>/decline")
@login_required
def decline_invitation(invitation_id: int):
    invitation = _answer_invitation(invitation_id, lambda found: decline(found, current_user))
    flash(t("invitation_declined", name=invitation.course.name), "info")
    return redirect(url_for("courses.index"))


def _exercise_rows() -> list[Exercise]:
    return list(g.db.scalars(select(Exercise).order_by(Exercise.number)).all())


def _teach_page(
    course: Course, status: int = 200, name_form: NameForm | None = None, roster_form: RosterForm | None = None
):
    """The course home as its instructors see it (forms sent back with their errors, if any)."""
    return render_template(
        "courses/teach.html",
        course=course,
        learners=learners(g.db, course),
        instructors=instructors(g.db, course),
        name_form=name_form or NameForm(formdata=None),
        roster_form=roster_form or RosterForm(formdata=None),
        invitations=invitations_in(g.db, course),
        confirm_form=ConfirmForm(formdata=None),
        sure_form=SureForm(formdata=None),
    ), status


@courses.get("/<int:course_id>")
@login_required
def show(course_id: int):
    course = course_to_attend(course_id, current_user)
    if teaches(g.db, current_user, course):
        return _teach_page(course)
    own = cells(g.db, course.id, [current_user.id])
    extensions = {
        row.assignment_id: row.due_at
        for row in g.db.scalars(
            select(Extension).where(
                Extension.user_id == current_user.id,
                Extension.assignment_id.in_([assignment.id for assignment in course.assignments]),
            )
        )
    }
    return render_template(
        "courses/learn.html",
        course=course,
        cells={exercise_id: cell for (_, exercise_id), cell in own.items()},
        # A counted score (and whether the counted attempt was late) depends on hidden cases.
        withheld=withheld_exercises(g.db, current_user.id, course_id=course.id),
        extensions=extensions,
        sure_form=SureForm(formdata=None),
    )


@courses.post("/<int:course_id>/instructors")
@login_required
def add_course_instructor(course_id: int):
    course = course_to_teach(course_id, current_user)
    form = NameForm()
    if not form.validate_on_submit():
        return _teach_page(course, 400, name_form=form)
    try:
        user, done = add_instructor(g.db, course, form.name.data, current_user)
    except CourseError as error:
        show_error(form, error, form.name)
        return _teach_page(course, 400, name_form=form)
    g.db.commit()
    message = {Invited.invited: "instructor_invited", Invited.pending: "instructor_already_pending"}
    flash(t(message.get(done, "instructor_already"), name=user.name), "success" if done is Invited.invited else "info")
    return redirect(url_for("courses.show", course_id=course.id))


@courses.post("/<int:course_id>/invitations/<int:invitation_id>/withdraw")
@login_required
def withdraw_invitation(course_id: int, invitation_id: int):
    course = course_to_teach(course_id, current_user)
    invitation = invitation_of(course, invitation_id)
    if not ConfirmForm().validate_on_submit():
        abort(400)
    try:
        withdraw(invitation, current_user)
    except CourseError as error:
        abort(400, description=str(error))
    g.db.commit()
    flash(t("invitation_withdrawn", name=invitation.user.name), "info")
    return redirect(url_for("courses.show", course_id=course.id))


def _sure() -> bool:
    """Whether the confirmation box was ticked; if not, the course page says so (flash)."""
    if SureForm().validate_on_submit():
        return True
    flash(t("confirm_required"), "error")
    return False


@courses.post("/<int:course_id>/members/<int:user_id>/remove")
@login_required
def remove_course_member(course_id: int, user_id: int):
    course = course_to_teach(course_id, current_user)
    member = g.db.get(User, user_id)
    if member is None:
        abort(404)
    if _sure():
        try:
            remove_member(g.db, course, member, by=current_user)
        except CourseError as error:
            flash(str(error), "error")
        else:
            g.db.commit()
            flash(t("member_removed", name=member.name), "success")
    return redirect(url_for("courses.show", course_id=course.id))


@courses.post("/<int:course_id>/leave")
@login_required
def leave(course_id: int):
    course = course_to_attend(course_id, current_user)
    if _sure():
        try:
            remove_member(g.db, course, current_user)
        except CourseError as error:
            flash(str(error), "error")
        else:
            g.db.commit()
            flash(t("left_course", name=course.name), "success")
            return redirect(url_for("courses.index"))
    return redirect(url_for("courses.show", course_id=course.id))


@courses.post("/<int:course_id>/join-code")
@login_required
def new_code(course_id: int):
    course = course_to_teach(course_id, current_user)
    if _sure():
        code = rotate_join_code(g.db, course)
        g.db.commit()
        flash(t("join_code_rotated", code=code), "success")
    return redirect(url_for("courses.show", course_id=course.id))


@courses.post("/<int:course_id>/roster")
@login_required
def upload_roster(course_id: int):
    course = course_to_teach(course_id, current_user)
    form = RosterForm()
    if not form.validate_on_submit():
        return _teach_page(course, 400, roster_form=form)
    upload = request.files.get("roster_file")
    data: bytes | str = upload.read() if upload is not None and upload.filename else (form.roster.data or "")
    try:
        result = add_roster(g.db, course, data, current_user)
    except CourseError as error:
        show_error(form, error, form.roster)
        return _teach_page(course, 400, roster_form=form)
    g.db.commit()
    counts = {"invited": result.invited, "pending": result.pending, "already": result.already}
    flash(t("roster_result", unknown=len(result.unknown), **{key: len(names) for key, names in counts.items()}), "info")
    if result.unknown:
        flash(t("roster_unknown", names=", ".join(result.unknown[:50])), "error")
    return redirect(url_for("courses.show", course_id=course.id))


def _assignment_form(course: Course, assignment: Assignment | None = None) -> AssignmentForm:
    form = AssignmentForm(obj=None)
    form.exercises.choices = [(row.id, f"{row.number}. {row.title_en}") for row in _exercise_rows()]
    form.late_policy.choices = [(policy.value, t(f"late_{policy.value}")) for policy in LatePolicy]
    for field in (form.visibility_before, form.visibility_after):
        field.choices = [(level.value, t(f"visibility_{level.value}")) for level in Visibility]
    if assignment is not None and request.method == "GET":
        form.title.data = assignment.title
        form.opens_at.data = form_value(assignment.opens_at, course.time_zone)
        form.due_at.data = form_value(assignment.due_at, course.time_zone)
        form.exercises.data = [row.id for row in assignment.exercises]
        form.late_policy.data = assignment.late_policy.value
        form.penalty_percent.data = round(assignment.penalty_per_day * 100, 4)
        form.visibility_before.data = assignment.visibility_before.value
        form.visibility_after.data = assignment.visibility_after.value
    return form


def _render_assignment(
    course: Course,
    form: AssignmentForm,
    assignment: Assignment | None,
    status: int = 200,
    extension_form: ExtensionForm | None = None,
):
    if extension_form is None:
        extension_form = ExtensionForm(formdata=None)
        extension_form.learner.choices = [(user.id, user.name) for user in learners(g.db, course)]
    return render_template(
        "courses/assignment.html",
        course=course,
        assignment=assignment,
        form=form,
        extension_form=extension_form,
        history=extension_history(g.db, assignment) if assignment is not None else [],
        sure_form=SureForm(formdata=None),
    ), status


@courses.route("/<int:course_id>/assignments/new", methods=["GET", "POST"])
@login_required
def new_assignment(course_id: int):
    course = course_to_teach(course_id, current_user)
    return _edit_assignment(course, None)


@courses.route("/<int:course_id>/assignments/<int:assignment_id>", methods=["GET", "POST"])
@login_required
def edit_assignment(course_id: int, assignment_id: int):
    course = course_to_teach(course_id, current_user)
    assignment = g.db.get(Assignment, assignment_id)
    if assignment is None or assignment.course_id != course.id:
        abort(404)
    return _edit_assignment(course, assignment)


def _edit_assignment(course: Course, assignment: Assignment | None):
    form = _assignment_form(course, assignment)
    if request.method == "GET":
        return _render_assignment(course, form, assignment)
    if not form.validate_on_submit():
        return _render_assignment(course, form, assignment, 400)
    numbers = {row.id: row.number for row in _exercise_rows()}
    try:
        saved = save_assignment(
            g.db,
            course,
            assignment=assignment,
            title=form.title.data,
            exercises=[numbers[exercise_id] for exercise_id in form.exercises.data or []],
            # Wall-clock times in the course's zone (datetime-local has no offset).
            opens_at=form.opens_at.data,
            due_at=form.due_at.data,
            late_policy=form.late_policy.data,
            penalty_per_day=float(form.penalty_percent.data or 0) / 100,
            visibility_before=form.visibility_before.data,
            visibility_after=form.visibility_after.data,
        )
    except CourseError as error:
        g.db.rollback()
        show_error(form, error, form.title, {"penalty_per_day": "penalty_percent"})
        return _render_assignment(course, form, assignment, 400)
    g.db.commit()
    flash(t("assignment_saved", title=saved.title), "success")
    return redirect(url_for("courses.edit_assignment", course_id=course.id, assignment_id=saved.id))


@courses.post("/<int:course_id>/assignments/<int:assignment_id>/extensions")
@login_required
def extend(course_id: int, assignment_id: int):
    course = course_to_teach(course_id, current_user)
    assignment = g.db.get(Assignment, assignment_id)
    if assignment is None or assignment.course_id != course.id:
        abort(404)
    form = ExtensionForm()
    form.learner.choices = [(user.id, user.name) for user in learners(g.db, course)]
    if form.validate_on_submit():
        learner = g.db.get(User, form.learner.data)
        try:
            if learner is None:
                raise CourseError("choose a learner", field="learner", shown=bilingual("required"))
            grant_extension(g.db, assignment, learner, form.due_at.data, current_user)
        except CourseError as error:
            show_error(form, error, form.due_at)
        else:
            g.db.commit()
            flash(t("extension_granted", name=learner.name), "success")
            return redirect(url_for("courses.edit_assignment", course_id=course.id, assignment_id=assignment.id))
    return _render_assignment(course, _assignment_form(course, assignment), assignment, 400, extension_form=form)


@courses.post("/<int:course_id>/assignments/<int:assignment_id>/extensions/<int:user_id>/withdraw")
@login_required
def withdraw_course_extension(course_id: int, assignment_id: int, user_id: int):
    course = course_to_teach(course_id, current_user)
    assignment = g.db.get(Assignment, assignment_id)
    learner = g.db.get(User, user_id)
    if assignment is None or assignment.course_id != course.id or learner is None:
        abort(404)
    if _sure():  # the learner's due date moves back at once: their late attempts may count less
        try:
            withdraw_extension(g.db, assignment, learner, current_user)
        except CourseError as error:
            flash(str(error), "error")
        else:
            g.db.commit()
            flash(t("extension_withdrawn", name=learner.name), "success")
    return redirect(url_for("courses.edit_assignment", course_id=course.id, assignment_id=assignment.id))
