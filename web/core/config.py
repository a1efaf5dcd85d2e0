"""Configuration of the web site, from the environment (with defaults for `make run`).

| variable | default | meaning |
|---|---|---|
| `DATABASE_URL` | `sqlite:///instance/probjudge.db` | any SQLAlchemy URL |
| `SECRET_KEY` | generated once into `instance/secret_key` | signs sessions |
| `PROBJUDGE_WORKERS` | 2 | grading workers in the site's process (`0`: none; `python -m web grade` grades) |
| `PROBJUDGE_LANES` | 2 | learner processes one grading runs its test cases in at once (1 to 8); the sandbox gets `lanes` slots per grading thread |
| `PROBJUDGE_LEASE_SECONDS` | 30 | a grading whose worker sent no heartbeat for this long is taken over by another |
| `PROBJUDGE_SANDBOX` | `strict` | `strict` or `local` |
| `PROBJUDGE_ALLOW_WEAKER_SANDBOX` | unset | `1`: fall back to `local` when strict is unavailable (logged loudly) |
| `PROBJUDGE_MAX_CODE_BYTES` | 65536 | largest submission accepted |
| `PROBJUDGE_SECURE_COOKIES` | unset | `1`: cookies only over HTTPS (set it whenever the site is served over HTTPS) |
| `PROBJUDGE_RATE_LIMITS` | `1` | `0` turns every rate limit off (docs/security.md section 13 lists them) |
| `PROBJUDGE_RATELIMIT_STORAGE` | `memory://` | where rate-limit counters live; `redis://...` when several processes serve |
| `PROBJUDGE_BROKER_URL` | unset | `redis://HOST:6379/0`: grading runs in Celery workers on any number of machines (`python -m web grade` starts one); unset: graders poll the database |
| `PROBJUDGE_SWEEP_SECONDS` | 30 | with a broker: how often `python -m web beat` publishes again what the broker never got or lost |
| `PROBJUDGE_TRUSTED_PROXIES` | 0 | how many reverse proxies in front of the site set `X-Forwarded-For/-Proto/-Host/-Port/-Prefix` (Werkzeug's ProxyFix trusts that many hops); `0`: the headers are ignored |
| `PROBJUDGE_LTI_PASSBACK_SECONDS` | 20 | how often each site process sends changed scores to the LMSs it is linked to (docs/lms-grades.md); `0`: never |
| `PROBJUDGE_EXERCISES` | the repository's `exercises/` | packs of exercises, folders separated by `os.pathsep` (`:`); each pack's solutions in the `solutions/` folder beside it. Read by `judge.exercises.exercise` (the CLI reads it too); see docs/deploying.md |
"""  # noqa: E501 - a Markdown table's rows cannot wrap

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
INSTANCE_DIR = PROJECT_ROOT / "instance"
# A grading thread's learner processes at once; with 2 threads, 8 lanes fill the strict sandbox's 16 slots.
MAX_LANES = 8
# The strict sandbox's most slots (judge.sandbox.strict.MAX_SLOTS; kept here so reading the settings
# imports no sandbox).
SANDBOX_SLOTS = 16


def default_database_url() -> str:
    return f"sqlite:///{INSTANCE_DIR / 'probjudge.db'}"


def _secret_key(instance: Path) -> str:
    path = instance / "secret_key"
    if not path.exists():
        instance.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


@dataclass(frozen=True)
class Settings:
    database_url: str
    secret_key: str
    workers: int = 2
    lanes: int = 2
    sandbox: str = "strict"
    allow_weaker_sandbox: bool = False
    max_code_bytes: int = 64 * 1024
    secure_cookies: bool = False
    rate_limits: bool = True
    ratelimit_storage: str = "memory://"
    lease_s: float = 30.0
    broker_url: str | None = None
    sweep_s: float = 30.0
    lti_passback_s: float = 20.0  # 0: the site sends no scores to LMSs (web.lms.services_job)
    trusted_proxies: int = 0  # reverse proxies whose X-Forwarded-* headers are believed (web.app)

    def sandbox_slots(self, workers: int) -> int:
        """The sandbox slots for ``workers`` grading threads: ``lanes`` each, as many as the strict
        sandbox has at most, but never fewer than ``workers``. More workers than the sandbox has
        slots are refused when the launcher starts, as with one lane, instead of each grading past
        the 16th waiting for a slot and failing as an internal error when the site is busy."""
        return max(workers, min(workers * self.lanes, SANDBOX_SLOTS))

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> Settings:
        """Read the settings; raise ``ValueError`` naming the variable that is malformed."""
        env = dict(os.environ if environ is None else environ)

        def number(name: str, default: int, low: int) -> int:
            raw = env.get(name, str(default))
            try:
                value = int(raw)
            except ValueError:
                raise ValueError(f"{name} must be an integer, got {raw!r}") from None
            if value < low:
                raise ValueError(f"{name} must be at least {low}, got {value}")
            return value

        def flag(name: str, default: bool) -> bool:
            raw = env.get(name, "").strip().lower()
            if not raw:
                return default
            if raw in ("1", "true", "yes", "on"):
                return True
            if raw in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"{name} must be 1 or 0, got {raw!r}")

        lanes = number("PROBJUDGE_LANES", 2, 1)
        if lanes > MAX_LANES:
            raise ValueError(f"PROBJUDGE_LANES must be at most {MAX_LANES}, got {lanes}")
        sandbox = env.get("PROBJUDGE_SANDBOX", "strict")
        if sandbox not in ("strict", "local"):
            raise ValueError(f"PROBJUDGE_SANDBOX must be 'strict' or 'local', got {sandbox!r}")
        return cls(
            database_url=env.get("DATABASE_URL") or default_database_url(),
            secret_key=env.get("SECRET_KEY") or _secret_key(INSTANCE_DIR),
            workers=number("PROBJUDGE_WORKERS", 2, 0),
            lanes=lanes,
            sandbox=sandbox,
            allow_weaker_sandbox=flag("PROBJUDGE_ALLOW_WEAKER_SANDBOX", False),
            max_code_bytes=number("PROBJUDGE_MAX_CODE_BYTES", 64 * 1024, 1024),
            secure_cookies=flag("PROBJUDGE_SECURE_COOKIES", False),
            rate_limits=flag("PROBJUDGE_RATE_LIMITS", True),
            ratelimit_storage=env.get("PROBJUDGE_RATELIMIT_STORAGE") or "memory://",
            lease_s=float(number("PROBJUDGE_LEASE_SECONDS", 30, 1)),
            broker_url=broker_url(env.get("PROBJUDGE_BROKER_URL", "")),
            sweep_s=float(number("PROBJUDGE_SWEEP_SECONDS", 30, 1)),
            lti_passback_s=float(number("PROBJUDGE_LTI_PASSBACK_SECONDS", 20, 0)),
            trusted_proxies=number("PROBJUDGE_TRUSTED_PROXIES", 0, 0),
        )


def broker_url(raw: str) -> str | None:
    """``PROBJUDGE_BROKER_URL`` checked: None when unset; a Redis URL; ``ValueError`` otherwise.

    Only Redis is supported (the queue order and the depth the health endpoint reports are
    Redis's); ``memory://`` is accepted for tests in one process.
    """
    value = raw.strip()
    if not value:
        return None
    if not value.startswith(("redis://", "rediss://", "redis+socket://", "memory://")):
        raise ValueError(f"PROBJUDGE_BROKER_URL must be a redis:// URL, got {value!r}")
    return value
