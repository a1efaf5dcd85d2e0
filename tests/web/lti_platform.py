"""A test LMS built on ``lti1p3platform`` (an independent implementation of the platform side),
for the launch, linking and services tests; each test module imports what it uses by name.

The launch (:class:`TestPlatform`): its own RSA key, its JWKS served on a loopback HTTP server
(:class:`KeySetServer`: what a real LMS does, and what pylti1p3 fetches), and the launch flow
driven through Flask's test client. ``TestPlatform.launch(client, ...)`` does what a browser does
between an LMS and the tool: the login initiation (``/lti/login``), our redirect to the platform's
authorization URL (whose state and nonce it reads), the id_token the platform signs for them, the
POST to ``/lti/launch``.

The services (:class:`FakePlatform`, started by :func:`serve` on a loopback HTTP server):

- ``POST /token``: lti1p3platform's ``get_access_token`` checks the tool's client assertion
  against the tool's JWKS and signs an access token with the platform's key;
- ``GET /nrps/members`` (Names and Roles), pages joined by ``Link: <...>; rel="next"``;
- ``GET``/``POST /lineitems`` and ``POST /lineitems/<n>/scores`` (Assignment and Grade Services);

every service call's bearer token is checked with lti1p3platform's ``validate_token`` for the
scope it needs (a 401 otherwise). Set :attr:`FakePlatform.down` to answer 503 to score posts,
:attr:`FakePlatform.roster_down` to roster pages.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
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
# The services platform's registration and the scopes its services check.
ISSUER = "https://lms.example.edu"
CLIENT_ID = "probjudge-tool"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


def rsa_pem() -> str:
    return JWK.generate(kty="RSA", size=2048).export_to_pem(private_key=True, password=None).decode()


def public_pem(private_pem: str) -> str:
    return JWK.from_pem(private_pem.encode()).export_to_pem().decode()


def rsa_pems() -> tuple[str, str]:
    """A fresh RSA key pair as (private PEM, public PEM)."""
    private = rsa_pem()
    return private, public_pem(private)


def public_jwk(public: str, kid: str) -> dict:
    """A public key as a JWK with its ``kid`` (what the tool's JWKS URL serves)."""
    return JWK.from_pem(public.encode()).export_public(as_dict=True) | {"kid": kid, "alg": "RS256", "use": "sig"}


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


# --- the services: token, Names and Roles, Assignment and Grade Services ---

class _ServicesConf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs) -> None:
        self._settings = kwargs

    def get_registration_by_params(self, **kwargs) -> Registration:
        private, public = self._settings["platform_keys"]
        registration = Registration()
        registration.set_iss(ISSUER).set_client_id(CLIENT_ID)
        registration.set_platform_private_key(private).set_platform_public_key(public)
        registration.set_tool_key_set(self._settings["tool_jwks"])
        return registration


@dataclass
class FakePlatform:
    """The platform's state: what it serves and what it was sent."""

    tool_jwks: dict
    base: str = ""
    pages: list[list[dict]] = field(default_factory=list)
    next_link_host: str | None = None  # a next link to another host (an attack)
    lineitems: list[dict] = field(default_factory=list)
    scores: list[tuple[str, dict]] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    tokens_issued: int = 0
    down: bool = False  # score posts answer 503
    roster_down: bool = False  # roster pages answer 503
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.lti = _ServicesConf(platform_keys=rsa_pems(), tool_jwks=self.tool_jwks)
        self.lti.get_registration()

    def allowed(self, header: str | None, scope: str) -> bool:
        if not header or not header.startswith("Bearer "):
            return False
        try:
            return self.lti.validate_token(header.removeprefix("Bearer "), allowed_scopes=[scope])
        except Exception:
            return False


def _handler(platform: FakePlatform):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet tests
            pass

        def _send(self, status: int, body: object, headers: dict | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            with platform.lock:
                platform.requests.append(("GET", self.path))
            if url.path == "/nrps/members":
                if platform.roster_down:
                    return self._send(503, {"error": "down for maintenance"})
                if not platform.allowed(self.headers.get("Authorization"), NRPS):
                    return self._send(401, {"error": "bad token"})
                number = int(query.get("page", ["0"])[0])
                headers = {}
                if number + 1 < len(platform.pages):
                    host = platform.next_link_host or platform.base
                    headers["Link"] = f'<{host}/nrps/members?page={number + 1}>; rel="next"'
                return self._send(200, {"id": "x", "context": {"id": "c1"}, "members": platform.pages[number]}, headers)
            if url.path == "/lineitems":
                if not platform.allowed(self.headers.get("Authorization"), LINEITEM):
                    return self._send(401, {"error": "bad token"})
                wanted = query.get("resource_id", [None])[0]
                found = [item for item in platform.lineitems if wanted is None or item.get("resourceId") == wanted]
                return self._send(200, found)
            return self._send(404, {"error": "no such page"})

        def do_POST(self) -> None:
            url = urlsplit(self.path)
            body = self._body()
            with platform.lock:
                platform.requests.append(("POST", self.path))
            if url.path == "/token":
                form = {key: values[0] for key, values in parse_qs(body.decode()).items()}
                try:
                    answer = platform.lti.get_access_token(form)
                except Exception as error:
                    return self._send(400, {"error": "invalid_client", "detail": str(error)})
                platform.tokens_issued += 1
                return self._send(200, dict(answer))
            if url.path == "/lineitems":
                if not platform.allowed(self.headers.get("Authorization"), LINEITEM):
                    return self._send(401, {"error": "bad token"})
                item = json.loads(body) | {"id": f"{platform.base}/lineitems/{len(platform.lineitems) + 1}"}
                platform.lineitems.append(item)
                return self._send(201, item)
            if url.path.startswith("/lineitems/") and url.path.endswith("/scores"):
                if platform.down:
                    return self._send(503, {"error": "maintenance"})
                if not platform.allowed(self.headers.get("Authorization"), SCORE):
                    return self._send(401, {"error": "bad token"})
                if self.headers.get("Content-Type") != "application/vnd.ims.lis.v1.score+json":
                    return self._send(415, {"error": "a score is application/vnd.ims.lis.v1.score+json"})
                platform.scores.append((url.path.removesuffix("/scores"), json.loads(body)))
                return self._send(200, {})
            return self._send(404, {"error": "no such page"})

    return Handler


def serve(platform: FakePlatform) -> ThreadingHTTPServer:
    """Start ``platform`` on 127.0.0.1 (a free port); its ``base`` URL is set. Call ``shutdown()``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(platform))
    platform.base = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


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
