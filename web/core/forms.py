"""The site's forms (Flask-WTF: validation plus a CSRF token in every one).

Every form is a :class:`SiteForm`, which holds two invariants for all of them:

- a form reads the request's form fields only (``request.form``): never uploaded files or a
  JSON body, which Flask-WTF would otherwise also read, and whose values are not strings;
- every text a form accepts has passed :func:`web.core.validation.text_problem` (no NUL, no lone
  surrogate).

Messages are :class:`~web.core.i18n.LazyText`, resolved in the request's language when rendered.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import request
from flask_wtf import FlaskForm
from wtforms import BooleanField, Field, PasswordField, SelectField, StringField, SubmitField, TextAreaField
from wtforms.fields import SelectChoice
from wtforms.validators import DataRequired, EqualTo, Length, Regexp

from judge.i18n import Bilingual
from web.core.i18n import LazyText, localized, t
from web.core.names import USER_NAME, display_name
from web.core.validation import text_problem


class FieldRefusal(Protocol):
    """An input a domain operation refused, naming the field it is about (for example
    :class:`web.teaching.courses.CourseError`): ``field`` is the API's name of the input, ``shown``
    the wording for a page's reader where it differs from the message (``str(error)``)."""

    field: str | None
    shown: Bilingual | None


SUBMIT_METHODS = ("POST", "PUT", "PATCH", "DELETE")


class SiteForm(FlaskForm):
    """The base of every form here (see the module docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        if "formdata" not in kwargs:
            kwargs["formdata"] = request.form if request.method in SUBMIT_METHODS else None
        super().__init__(**kwargs)

    def validate(self, extra_validators: dict | None = None) -> bool:
        valid = super().validate(extra_validators=extra_validators)
        for field in self:
            problem = text_problem(field.data) if isinstance(field.data, str) else None
            if problem is not None:
                field.errors.append(localized(problem))
                valid = False
        return valid


def _normalized_name(value: str | None) -> str | None:
    """The name as it will be stored, so that the validators judge that (fullwidth letters become ASCII)."""
    return display_name(value) if isinstance(value, str) else value


class SignUpForm(SiteForm):
    name = StringField(
        LazyText("user_name"),
        description=LazyText("name_hint"),
        filters=[_normalized_name],
        validators=[
            DataRequired(LazyText("required")),
            Length(1, 64, LazyText("name_length")),
            Regexp(USER_NAME, message=LazyText("name_characters")),
        ],
    )
    password = PasswordField(
        LazyText("password"),
        description=LazyText("password_hint"),
        validators=[DataRequired(LazyText("required")), Length(8, 256, LazyText("password_length"))],
    )
    confirm = PasswordField(
        LazyText("confirm_password"),
        validators=[DataRequired(LazyText("required")), EqualTo("password", LazyText("passwords_differ"))],
    )
    language = SelectField(LazyText("language"), choices=[SelectChoice("en", "English"), SelectChoice("zh", "中文")])
    submit = SubmitField(LazyText("sign_up"))


class SignInForm(SiteForm):
    name = StringField(LazyText("user_name"), validators=[DataRequired(LazyText("required"))])
    password = PasswordField(LazyText("password"), validators=[DataRequired(LazyText("required"))])
    submit = SubmitField(LazyText("sign_in"))


class PasswordForm(SiteForm):
    """The profile's password change: the current password, then the new one twice."""

    current_password = PasswordField(LazyText("current_password"), validators=[DataRequired(LazyText("required"))])
    new_password = PasswordField(
        LazyText("new_password"),
        description=LazyText("password_hint"),
        validators=[DataRequired(LazyText("required")), Length(8, 256, LazyText("password_length"))],
    )
    new_password_again = PasswordField(
        LazyText("confirm_password"),
        validators=[DataRequired(LazyText("required")), EqualTo("new_password", LazyText("passwords_differ"))],
    )
    # Checked by default: whoever changes a password after a leak wants the tokens gone too.
    revoke_tokens = BooleanField(LazyText("revoke_tokens_too"), default=True)
    submit = SubmitField(LazyText("change_password"))


class CodeForm(SiteForm):
    """The exercise page's editor: one form, two buttons (submit to the judge, or download)."""

    code = TextAreaField(LazyText("your_code"))
    submit = SubmitField(LazyText("submit"))


class TokenForm(SiteForm):
    label = StringField(LazyText("token_label"), validators=[Length(0, 64, LazyText("label_length"))])
    submit = SubmitField(LazyText("create_token"))


class ConfirmForm(SiteForm):
    """A button that changes something (sign out, revoke a token): a POST with a CSRF token."""

    submit = SubmitField()


class SureForm(SiteForm):
    """A button that takes something away (leave a course, remove a member, rotate a join code,
    revoke an account's credentials): a POST with a CSRF token and a box the user must tick."""

    confirm = BooleanField(LazyText("i_am_sure"), validators=[DataRequired(LazyText("confirm_required"))])
    submit = SubmitField()


def show_error(form: SiteForm, error: FieldRefusal, default: Field, renames: dict[str, str] | None = None) -> None:
    """Show a refusal of :mod:`web.teaching.courses` under the form's field it is about, in words: the
    field's label, then the page's wording (``error.shown``, else the message).

    ``error.field`` is the API's name of the input; ``renames`` maps it to the form's where they
    differ; an error about no field of this form goes under ``default``.
    """
    name = (renames or {}).get(error.field or "", error.field or "")
    field = form._fields.get(name, default)
    message = localized(error.shown) if error.shown is not None else str(error)
    field.errors = [*field.errors, t("field_error", label=field.label.text, message=message)]
