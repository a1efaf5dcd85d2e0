"""Our RSA signing keys: made on first need, rotated by ``python -m web lti rotate-keys``.

The newest unretired :class:`~web.lms.models.LtiToolKey` signs (deep-linking responses, and the
client assertions of the grade and roster services). Rotating makes a new key and retires the
old ones; a retired key stays in the JWKS for :data:`GRACE` (7 days), because platforms cache
our key set (Canvas for up to a day) and must still verify what the old key signed just before
the rotation. A key's ``kid`` is its JWK thumbprint (RFC 7638), as pylti1p3 computes it.
"""

from __future__ import annotations

import datetime as dt
import json

from jwcrypto.jwk import JWK
from sqlalchemy import select
from sqlalchemy.orm import Session

from web.core.models import as_utc, utcnow
from web.lms.models import LtiToolKey

GRACE = dt.timedelta(days=7)


def new_key(session: Session) -> LtiToolKey:
    """Add (not commit) a fresh RSA 2048 key; it signs from now on."""
    jwk = JWK.generate(kty="RSA", size=2048)
    kid = jwk.thumbprint()
    public = json.loads(jwk.export_public())
    public.update(kid=kid, alg="RS256", use="sig")
    row = LtiToolKey(
        kid=kid, private_pem=jwk.export_to_pem(private_key=True, password=None).decode(), public_jwk=public
    )
    session.add(row)
    session.flush()
    return row


def signing_key(session: Session) -> LtiToolKey:
    """The key that signs now: the newest unretired one, made (and flushed) when there is none."""
    row = session.scalar(
        select(LtiToolKey).where(LtiToolKey.retired_at.is_(None)).order_by(LtiToolKey.id.desc()).limit(1)
    )
    return row if row is not None else new_key(session)


def rotate(session: Session) -> LtiToolKey:
    """Retire every signing key and make a new one (not committed); the new key."""
    now = utcnow()
    for row in session.scalars(select(LtiToolKey).where(LtiToolKey.retired_at.is_(None))):
        row.retired_at = now
    return new_key(session)


def published(session: Session, now: dt.datetime | None = None) -> list[LtiToolKey]:
    """The keys the JWKS lists: unretired ones, and those retired less than :data:`GRACE` ago."""
    now = now or utcnow()
    rows = session.scalars(select(LtiToolKey).order_by(LtiToolKey.id.desc()))
    return [row for row in rows if row.retired_at is None or as_utc(row.retired_at) > now - GRACE]


def jwks(session: Session) -> dict:
    """Our public key set, as ``/lti/jwks`` serves it (a signing key is made on first need)."""
    signing_key(session)
    return {"keys": [row.public_jwk for row in published(session)]}
