"""A test LMS built on ``lti1p3platform`` (an independent implementation of the platform side):
its own RSA key, its JWKS served on a loopback HTTP server (what a real LMS does, and what
pylti1p3 fetches), and the launch flow driven through Flask's test client.

``TestPlatform.launch(client, ...)`` does what a browser does between an LMS and the tool: the
login initiation (``/lti/login``), our redirect to the platform's authorization URL (whose
state and nonce it reads), the id_token the platform signs for them, the POST to ``/lti/launch``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from jwcrypto.jwk import JWK
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request

TOOL = "https://tool.test"  # the site under test, as the test client's https base URL
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


def rsa_pem() -> str:
    return JWK.generate(kty="RSA", size=2048).export_to_pem(private_key=True, password=None).decode()


def public_pem(private_pem: str) -> str:
    return JWK.from_pem(private_pem.encode()).export_to_pem().decode()


class KeySetServer:
    """A loopback HTTP server answering ``GET /jwks`` with whatever key set it holds now."""

    def __init__(self) -> None:
        self.keys: dict[str, Any] = {"keys": []}
        self.fetches = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                owner.fetches += 1
                body = json.dumps(owner.keys).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/jwks"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _Request(Request):
    def build_metadata(self, request: dict) -> dict:
        return {
            "method": "GET",
            "form_data": {},
            "get_data": request,
            "headers": {},
            "content_type": None,
            "path": "/auth",
            "json": None,
        }


class _Conf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs: Any) -> None:
        self._registration = kwargs["registration"]

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        return self._registration


class _Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data: dict, **kwargs: Any) -> dict:
        return launch_data


class TestPlatform:
    """One LMS registration: issuer, client id, deployment, its key; ``server`` serves its JWKS."""

    __test__ = False  # not a test class, whatever pytest thinks of its name

    def __init__(
        self,
        server: KeySetServer,
        issuer: str = "https://lms.test",
        client_id: str = "client-1",
        deployment_id: str = "deployment-1",
        private_pem: str | None = None,
    ) -> None:
        self.server = server
        self.issuer, self.client_id, self.deployment_id = issuer, client_id, deployment_id
        self.private_pem = private_pem or rsa_pem()
        self.publish()

    def registration(self, private_pem: str | None = None) -> Registration:
        pem = private_pem or self.private_pem
        return (
            Registration()
            .set_iss(self.issuer)
            .set_client_id(self.client_id)
            .set_deployment_id(self.deployment_id)
            .set_launch_url(f"{TOOL}/lti/launch")
            .set_deeplink_launch_url(f"{TOOL}/lti/launch")
            .set_oidc_login_url(f"{TOOL}/lti/login")
            .set_platform_private_key(pem)
            .set_platform_public_key(public_pem(pem))
            .set_tool_key_set_url(f"{TOOL}/lti/jwks")
        )

    def publish(self) -> None:
        """Serve this platform's public key (beside any others the server holds)."""
        jwk = Registration.get_jwk(public_pem(self.private_pem))
        keys = [k for k in self.server.keys["keys"] if k.get("kid") != jwk["kid"]]
        self.server.keys = {"keys": [*keys, jwk]}

    def register_command(self) -> list[str]:
        """``python -m web lti register`` arguments for this platform."""
        return [
            "lti",
            "register",
            "--issuer",
            self.issuer,
            "--client-id",
            self.client_id,
            "--deployment",
            self.deployment_id,
            "--auth-login-url",
            f"{self.issuer}/auth",
            "--auth-token-url",
            f"{self.issuer}/token",
            "--key-set-url",
            self.server.url,
        ]

    def register_in(self, app) -> None:
        from web.lms.registry import PlatformFields, register
        from web.services import services

        with services(app).sessions() as session:
            register(
                session,
                PlatformFields(
                    self.issuer,
                    self.client_id,
                    self.deployment_id,
                    f"{self.issuer}/auth",
                    f"{self.issuer}/token",
                    self.server.url,
                ),
            )
            session.commit()

    def login(self, client, **extra: str):
        """The login initiation, as the LMS's page starts it (past the cookie check)."""
        params = {
            "iss": self.issuer,
            "login_hint": "hint",
            "target_link_uri": f"{TOOL}/lti/launch",
            "client_id": self.client_id,
            "lti_deployment_id": self.deployment_id,
            "lti1p3_new_window": "1",
        }
        params.update(extra)
        return client.get("/lti/login", query_string=params, base_url=TOOL)

    def id_token(
        self,
        preflight: dict,
        *,
        sub: str = "user-1",
        roles: tuple[str, ...] = (LEARNER,),
        context_id: str = "course-1",
        link_id: str | None = "link-1",
        custom: dict | None = None,
        name: str | None = "Ann Lee",
        deep_link: bool = False,
        sign_with: str | None = None,
        expires_in: int = 300,
        claims: dict | None = None,
        drop: tuple[str, ...] = (),
    ) -> dict:
        """What the platform posts back for ``preflight`` (the query of our redirect to it)."""
        launch = _Launch(_Request(preflight), _Conf(registration=self.registration(sign_with)))
        launch.set_user_data(sub, list(roles), full_name=name)
        launch.set_launch_context_claim(context_id, context_title="Probability 101")
        if link_id is not None:
            launch.set_resource_link_claim(link_id, title="ProbJudge link")
        if custom:
            launch.set_custom_parameters_claim(custom)
        launch.set_launch_presentation_claim("iframe", f"{self.issuer}/courses/1/return")
        launch.set_ags(f"{self.issuer}/api/lineitems", f"{self.issuer}/api/lineitems/7")
        launch.set_nrps(f"{self.issuer}/api/memberships")
        if deep_link:
            launch.set_dl(f"{self.issuer}/deep_link_return", accept_types={"ltiResourceLink"}, extra_data={"d": 1})
        launch.set_id_token_expiration(expires_in)
        if claims:
            launch.set_extra_claims(claims)
        if drop:
            original = launch.get_launch_message

            def without(include_extra_claims: bool = True) -> dict:
                message = original(include_extra_claims)
                for key in drop:
                    message.pop(key, None)
                return message

            launch.get_launch_message = without  # type: ignore[method-assign]
        return launch.lti_launch()

    def launch(self, client, **token: Any):
        """Login, redirect, id_token, POST: the launch's response (not followed)."""
        response = self.login(client)
        assert response.status_code == 302, response.get_data(as_text=True)[:500]
        preflight = {k: v[0] for k, v in parse_qs(urlsplit(response.location).query).items()}
        data = self.id_token(preflight, **token)
        return client.post("/lti/launch", data={"id_token": data["id_token"], "state": data["state"]}, base_url=TOOL)


# The fixtures of the launch and linking tests (each module imports them by name).

@pytest.fixture
def key_server():
    server = KeySetServer()
    yield server
    server.close()


@pytest.fixture
def site(make_site):
    return make_site(start_workers=False)


@pytest.fixture
def platform(site, key_server) -> TestPlatform:
    platform = TestPlatform(key_server)
    platform.register_in(site)
    return platform
