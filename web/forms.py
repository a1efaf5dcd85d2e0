"""The site's forms (Flask-WTF: validation plus a CSRF token in every one).

Messages are :class:`~web.i18n.LazyText`, resolved in the request's language when rendered.
"""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms.fields import SelectChoice
from wtforms import PasswordField, SelectField, StringField, SubmitField, TextAreaField
from wtforms.validators import DataRequired, EqualTo, Length, Regexp

from web.accounts import USER_NAME
from web.i18n import LazyText



class SignUpForm(FlaskForm):
    name = StringField(LazyText("user_name"), validators=[
        DataRequired(LazyText("required")), Length(1, 64, LazyText("name_length")),
        Regexp(USER_NAME, message=LazyText("name_characters"))])
    password = PasswordField(LazyText("password"), validators=[
        DataRequired(LazyText("required")), Length(8, 256, LazyText("password_length"))])
    confirm = PasswordField(LazyText("confirm_password"), validators=[
        DataRequired(LazyText("required")), EqualTo("password", LazyText("passwords_differ"))])
    language = SelectField(LazyText("language"), choices=[SelectChoice("en", "English"), SelectChoice("zh", "中文")])
    submit = SubmitField(LazyText("sign_up"))


class SignInForm(FlaskForm):
    name = StringField(LazyText("user_name"), validators=[DataRequired(LazyText("required"))])
    password = PasswordField(LazyText("password"), validators=[DataRequired(LazyText("required"))])
    submit = SubmitField(LazyText("sign_in"))


class CodeForm(FlaskForm):
    """The exercise page's editor: one form, two buttons (submit to the judge, or download)."""

    code = TextAreaField(LazyText("your_code"))
    submit = SubmitField(LazyText("submit"))


class TokenForm(FlaskForm):
    label = StringField(LazyText("token_label"), validators=[Length(0, 64, LazyText("label_length"))])
    submit = SubmitField(LazyText("create_token"))


class ConfirmForm(FlaskForm):
    """A button that changes something (sign out, revoke a token): a POST with a CSRF token."""

    submit = SubmitField()
