"""User names are unique case-insensitively after Unicode NFKC, on every path that names a user
(sign-up, sign-in, ``create-user``, ``set-password``), and migration 0002 keys the accounts of
an existing site without deleting or renaming anyone.
"""

from __future__ import annotations

import pytest
from alembic import command
from site_client import sign_in, sign_up
from sqlalchemy import select, text
from werkzeug.security import generate_password_hash

from web.__main__ import main as web_command
from web.accounts.users import NameTaken, create_user, find_user
from web.core.database import alembic_config, make_engine, session_factory, upgrade
from web.core.models import User
from web.core.names import display_name, name_key
from web.services import services

SPELLINGS = ["Admin", "ADMIN", "ａｄｍｉｎ", "ＡＤＭＩＮ", " admin ", "ａdmin"]


def _users(app) -> list[User]:
    with services(app).sessions() as session:
        return session.scalars(select(User).order_by(User.id)).all()


def test_names_are_shown_as_typed_and_keyed_without_case_or_width():
    assert display_name(" Ａｎｎ ") == "Ann" and name_key(" Ａｎｎ ") == "ann"
    assert name_key("ADMIN") == name_key("ａｄｍｉｎ") == name_key("admin") == "admin"
    assert User(name="Ｂｅｎ").name == "Ben" and User(name="Ｂｅｎ").name_key == "ben"


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_way_to_create_an_account_refuses_another_spelling_of_a_taken_name(make_site, monkeypatch, spelling):
    app = make_site(start_workers=False)
    assert sign_up(app.test_client(), "admin").status_code == 302
    page = sign_up(app.test_client(), spelling)
    assert page.status_code == 400 and "This user name is taken" in page.get_data(as_text=True)
    with services(app).sessions() as session:
        with pytest.raises(NameTaken, match="^a user named '(admin|Admin|ADMIN)' already exists$"):
            create_user(session, spelling, "password123")
    monkeypatch.setenv("DATABASE_URL", services(app).settings.database_url)
    monkeypatch.setenv("SECRET_KEY", "test")
    assert web_command(["create-user", spelling, "--password", "password123"]) == 2
    assert [user.name for user in _users(app)] == ["admin"]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_sign_in_and_set_password_find_the_account_by_any_spelling(make_site, monkeypatch, spelling):
    app = make_site(start_workers=False)
    sign_up(app.test_client(), "admin")
    client = app.test_client()
    assert sign_in(client, spelling).status_code == 302
    assert ">admin<" in client.get("/profile/").get_data(as_text=True)
    monkeypatch.setenv("DATABASE_URL", services(app).settings.database_url)
    monkeypatch.setenv("SECRET_KEY", "test")
    assert web_command(["set-password", spelling, "--password", "password456"]) == 0
    assert sign_in(app.test_client(), "admin", "password456").status_code == 302


def test_a_fullwidth_sign_up_is_stored_in_ascii_as_typed(make_site):
    app = make_site(start_workers=False)
    assert sign_up(app.test_client(), " Ａｎｎ ").status_code == 302
    (ann,) = _users(app)
    assert (ann.name, ann.name_key) == ("Ann", "ann")


def test_the_sign_in_limit_counts_every_spelling_of_a_name_as_one(make_site):
    app = make_site()
    sign_up(app.test_client(), "ann")
    client = app.test_client()
    statuses = [sign_in(client, spelling, "wrong-password").status_code
                for spelling in ["ann", "ANN", "Ａｎｎ", "aNn", " ann "] * 2 + ["ann"]]
    assert statuses[:10] == [401] * 10 and statuses[10] == 429


def test_names_that_cannot_exist_find_nobody(make_site):
    app = make_site(start_workers=False)
    sign_up(app.test_client(), "ann")
    with services(app).sessions() as session:
        for name in ("ann\x00", "\udcff", "ann\ud800", ""):
            assert find_user(session, name) is None


# --- migration 0002 ------------------------------------------------------------------------------

COLLIDING = [(1, "admin"), (2, "bob"), (3, "Admin"), (4, "ADMIN"), (5, "Bob"), (6, "carol")]


# SQLite-only: the sites that had revision 0001 ran on SQLite files (make_site opens this one).
@pytest.mark.parametrize("database_backend", ["sqlite"])
def test_migration_0002_keys_colliding_names_without_renaming_anyone(tmp_path, make_site, capsys):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "0001")  # a site as it was before keys
    engine = make_engine(url)
    with engine.begin() as connection:
        for user_id, name in COLLIDING:
            connection.execute(text(
                "INSERT INTO user (id, name, password_hash, role, language, created_at) "
                "VALUES (:id, :name, :hash, 'learner', 'en', '2026-01-01 00:00:00')"),
                {"id": user_id, "name": name, "hash": generate_password_hash(f"password-of-{name}")})
            # Rows that point at users: rebuilding the user table must keep them and their links.
            connection.execute(text(
                "INSERT INTO api_token (user_id, token_hash, label, created_at) "
                "VALUES (:id, :hash, 'old', '2026-01-01 00:00:00')"), {"id": user_id, "hash": f"{user_id:064d}"})
    upgrade(url)
    warnings = capsys.readouterr().err
    assert all(f"'{name}' (id {user_id})" in warnings for user_id, name in ((3, "Admin"), (4, "ADMIN"), (5, "Bob")))
    assert "'carol'" not in warnings
    with session_factory(engine)() as session:
        rows = {user.id: (user.name, user.name_key) for user in session.scalars(select(User))}
    assert rows == {1: ("admin", "admin"), 2: ("bob", "bob"), 3: ("Admin", "admin#3"), 4: ("ADMIN", "admin#4"),
                    5: ("Bob", "bob#5"), 6: ("carol", "carol")}
    engine.dispose()

    app = make_site(start_workers=False, database_url=url)
    for user_id, name in COLLIDING:  # everyone signs in with their exact name, as their own account
        client = app.test_client()
        assert sign_in(client, name, f"password-of-{name}").status_code == 302, name
        assert f">{name}<" in client.get("/profile/").get_data(as_text=True)
    other = app.test_client()
    assert sign_in(other, "CAROL", "password-of-carol").status_code == 302  # a key with no collision
    for spelling in ("aDmin", "BOB"):
        assert "This user name is taken" in sign_up(app.test_client(), spelling).get_data(as_text=True)

    command.downgrade(alembic_config(url), "0001")  # and back, keeping every account
    command.upgrade(alembic_config(url), "head")
    assert len(_users(app)) == len(COLLIDING)
    with make_engine(url).connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM api_token").scalar() == len(COLLIDING)


def test_one_name_signed_up_twice_at_the_same_moment_is_a_400_not_a_500(make_site, monkeypatch):
    from web.accounts import auth

    app = make_site(start_workers=False)
    real = auth.create_user

    def racing(session, name, *args, **kwargs):
        user = real(session, name, *args, **kwargs)  # the name was free when checked...
        with services(app).sessions() as other:  # ...and another request takes it now
            rival = User(name=name.upper())
            rival.set_password("password123")
            other.add(rival)
            other.commit()
        return user

    monkeypatch.setattr(auth, "create_user", racing)
    response = sign_up(app.test_client(), "ann")
    assert response.status_code == 400 and "This user name is taken" in response.get_data(as_text=True)
    assert [user.name for user in _users(app)] == ["ANN"]
