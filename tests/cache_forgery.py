"""What someone who can put files in a user's cache (a restored CI cache, a copied
directory) but does not hold its key can write there: entries in the real format
whose authentication is the best such a forger can do."""

from __future__ import annotations

import hashlib
import hmac
import shutil
from pathlib import Path

from shiplint import cache

MAGIC = b"shiplint-cache 2\n"
# How a forger may try to authenticate an entry without the user's key.
WAYS = ("attacker-key", "plain-digest", "format-1")


def entry_path(kind: str, name: str) -> Path:
    return cache.cache_dir() / kind / name


def secret_key(secret: str) -> bytes:
    """The key a cache secret (SHIPLINT_CACHE_SECRET) stands for."""
    return hashlib.sha256(b"shiplint cache secret\0" + secret.encode()).digest()


def entry_bytes(kind: str, name: str, payload: bytes, key: bytes) -> bytes:
    """An entry as shiplint writes it, authenticated with `key`."""
    mac = hmac.new(key, f"{kind}\0{name}\0".encode(), hashlib.sha256)
    mac.update(payload)
    return MAGIC + mac.digest() + payload


def forge(
    kind: str, name: str, payload: bytes, way: str = "attacker-key", root: Path | None = None
) -> Path:
    """Write `payload` as the entry `kind`/`name` (of the cache directory `root`, default
    the user's), authenticated the forger's `way`."""
    if way == "attacker-key":
        data = entry_bytes(kind, name, payload, b"\x00" * 32)
    elif way == "plain-digest":
        data = MAGIC + hashlib.sha256(payload).digest() + payload
    elif way == "format-1":
        data = b"shiplint-cache 1\n" + hashlib.sha256(payload).digest() + payload
    else:
        raise ValueError(way)
    path = (root or cache.cache_dir()) / kind / name
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_bytes(data)
    return path


def transplant(kind: str, source: str, target: str) -> Path:
    """Copy an authentic entry whole to another name (another input's key)."""
    path = entry_path(kind, target)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    shutil.copyfile(entry_path(kind, source), path)
    return path
