"""A stand-in LMS for the LTI services tests: an independent platform (``lti1p3platform``) behind a
loopback HTTP server.

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
from urllib.parse import parse_qs, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.registration import Registration

ISSUER = "https://lms.example.edu"
CLIENT_ID = "probjudge-tool"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


def rsa_pems() -> tuple[str, str]:
    """A fresh RSA key pair as (private PEM, public PEM)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, public


def public_jwk(public_pem: str, kid: str) -> dict:
    """The tool's public key as a JWK with its ``kid`` (what the tool's JWKS URL serves)."""
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(serialization.load_pem_public_key(public_pem.encode())))
    return jwk | {"kid": kid, "alg": "RS256", "use": "sig"}


class _Platform(LTI1P3PlatformConfAbstract):
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
        self.lti = _Platform(platform_keys=rsa_pems(), tool_jwks=self.tool_jwks)
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
