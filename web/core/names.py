"""User names: what is shown, and the key that makes them unique.

Invariants:

- a user name is stored as typed after Unicode NFKC normalization and stripping
  (:func:`display_name`), and must then match :data:`USER_NAME` (ASCII letters, digits, '.',
  '_', '-'; 1 to 64 characters);
- every user has a unique ``name_key``, :func:`name_key` of the name (NFKC, then case-folded,
  then NFKC again, as Unicode's NFKC_Casefold does), so "Admin" cannot exist beside "admin",
  and fullwidth "ａｄｍｉｎ" is "admin";
- accounts created before keys existed may collide; migration 0002 gave the later ones the key
  ``"<key>#<id>"`` ('#' is never in a name, so no new name can take it), and they sign in with
  their exact name (see :func:`web.accounts.users.find_user`).
"""

from __future__ import annotations

import unicodedata

USER_NAME = r"^[A-Za-z0-9._-]{1,64}$"
NAME_KEY_LENGTH = 80  # 64 characters, '#' and an id (see migration 0002)


def display_name(name: str) -> str:
    """``name`` as it is stored and shown: NFKC-normalized, without surrounding spaces."""
    return unicodedata.normalize("NFKC", name).strip()


def name_key(name: str) -> str:
    """The unique lookup key of ``name``: NFKC, case-folded, NFKC again."""
    return unicodedata.normalize("NFKC", display_name(name).casefold())
