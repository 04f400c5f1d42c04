"""``engram cloud serve`` settings from the environment, refused in one line when incoherent.

Two modes, exclusive: authenticated (managed tokens through ``ENGRAM_CLOUD_TOKEN_PEPPER``, the
legacy ``ENGRAM_CLOUD_TOKEN``, or both, + an explicit, non-default ``ENGRAM_JWT_SECRET``) or insecure local development (``ENGRAM_CLOUD_INSECURE_NO_AUTH=1``).
``ENGRAM_CLOUD_ALLOWED_PROJECTS`` is required in both (``*`` allows every project).
``ENGRAM_CLOUD_TOKEN_PEPPER`` turns on managed tokens; without it only the legacy env tokens
authenticate.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from engram.errors import EngramError

DEFAULT_PORT = 8080
DEFAULT_MAX_PUSH_BYTES = 8 * 1024 * 1024
# Postgres connections one server process may hold (docs/cloud.md, "Sizing").
DEFAULT_POOL_SIZE = 10
DEFAULT_BODY_STALL_S = 10
DEFAULT_BODY_DEADLINE_S = 120
# Placeholders from docs and examples: a server started with one of these is not secured.
_DEFAULT_SECRETS = frozenset(
    {
        "",
        "secret",
        "changeme",
        "change-me",
        "dev",
        "development",
        "engram",
        "engram-dev-secret",
        "replace-with-32+-byte-random-secret",
    }
)
MIN_SECRET_BYTES = 32


@dataclass(frozen=True)
class CloudSettings:
    """Everything ``engram cloud serve`` reads from the environment."""

    database_url: str
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    max_push_bytes: int = DEFAULT_MAX_PUSH_BYTES
    # A push's body may stop arriving this long, and take this long in all (seconds): while
    # it arrives, the push holds a database connection (engram.cloud.push_arrival).
    body_stall_s: int = DEFAULT_BODY_STALL_S
    body_deadline_s: int = DEFAULT_BODY_DEADLINE_S
    pool_size: int = DEFAULT_POOL_SIZE
    allowed_projects: tuple[str, ...] = ()
    insecure: bool = False
    sync_token: str = ""
    jwt_secret: str = ""
    admin_token: str = ""
    token_pepper: str = ""
    allowed_hosts: tuple[str, ...] = ()

    @property
    def allows_every_project(self) -> bool:
        """True for ``ENGRAM_CLOUD_ALLOWED_PROJECTS=*``."""
        return "*" in self.allowed_projects

    @property
    def guards_browsers(self) -> bool:
        """Whether requests get the Host/Origin check of ``engram serve``: a loopback bind or
        insecure mode (a web page on the user's machine could otherwise reach it)."""
        from engram.browser_guard import is_loopback

        return self.insecure or is_loopback(self.host)

    @property
    def managed_tokens(self) -> bool:
        """True when managed-token authentication is on (a pepper is set)."""
        return bool(self.token_pepper)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> CloudSettings:
        """Read and check the environment.

        Raises:
            EngramError: ``cloud.config_error`` naming the first incoherent setting.
        """
        env = os.environ if env is None else env

        def get(name: str) -> str:
            return env.get(name, "").strip()

        database_url = get("ENGRAM_DATABASE_URL")
        if not database_url:
            raise _refuse("ENGRAM_DATABASE_URL is not set", "set it to the Postgres DSN")
        allowed = tuple(
            p.strip() for p in get("ENGRAM_CLOUD_ALLOWED_PROJECTS").split(",") if p.strip()
        )
        if not allowed:
            raise _refuse(
                "ENGRAM_CLOUD_ALLOWED_PROJECTS is not set",
                "set a comma-separated project allowlist (or * for every project)",
            )
        settings = cls(
            database_url=database_url,
            host=get("ENGRAM_CLOUD_HOST") or "127.0.0.1",
            port=_int_setting(env, "ENGRAM_PORT", DEFAULT_PORT, 1, 65535),
            max_push_bytes=_int_setting(
                env, "ENGRAM_CLOUD_MAX_PUSH_BYTES", DEFAULT_MAX_PUSH_BYTES, 1024, 1 << 30
            ),
            body_stall_s=_int_setting(
                env, "ENGRAM_CLOUD_BODY_STALL_S", DEFAULT_BODY_STALL_S, 1, 600
            ),
            body_deadline_s=_int_setting(
                env, "ENGRAM_CLOUD_BODY_DEADLINE_S", DEFAULT_BODY_DEADLINE_S, 1, 3600
            ),
            pool_size=_int_setting(env, "ENGRAM_CLOUD_POOL_SIZE", DEFAULT_POOL_SIZE, 2, 500),
            allowed_projects=allowed,
            insecure=get("ENGRAM_CLOUD_INSECURE_NO_AUTH") == "1",
            sync_token=get("ENGRAM_CLOUD_TOKEN"),
            jwt_secret=get("ENGRAM_JWT_SECRET"),
            admin_token=get("ENGRAM_CLOUD_ADMIN"),
            token_pepper=get("ENGRAM_CLOUD_TOKEN_PEPPER"),
            allowed_hosts=tuple(
                h.strip().lower() for h in get("ENGRAM_CLOUD_ALLOWED_HOSTS").split(",") if h.strip()
            ),
        )
        settings._check_mode()
        return settings

    def _check_mode(self) -> None:
        if self.insecure:
            if self.sync_token:
                raise _refuse(
                    "ENGRAM_CLOUD_INSECURE_NO_AUTH=1 cannot be combined with ENGRAM_CLOUD_TOKEN",
                    "unset one of them",
                )
            if self.admin_token:
                raise _refuse(
                    "ENGRAM_CLOUD_ADMIN is rejected in insecure mode",
                    "unset ENGRAM_CLOUD_ADMIN or leave insecure mode",
                )
            return
        if not self.sync_token and not self.token_pepper:
            raise _refuse(
                "neither ENGRAM_CLOUD_TOKEN_PEPPER nor ENGRAM_CLOUD_TOKEN is set (authenticated"
                " mode needs managed tokens or the legacy token)",
                "set ENGRAM_CLOUD_TOKEN_PEPPER (managed tokens), or ENGRAM_CLOUD_INSECURE_NO_AUTH=1"
                " for local development",
            )
        if self.jwt_secret.lower() in _DEFAULT_SECRETS:
            raise _refuse(
                "ENGRAM_JWT_SECRET is missing or a default value",
                f"set it to a random secret of at least {MIN_SECRET_BYTES} bytes",
            )
        if len(self.jwt_secret.encode("utf-8")) < MIN_SECRET_BYTES:
            raise _refuse(
                f"ENGRAM_JWT_SECRET is shorter than {MIN_SECRET_BYTES} bytes",
                f"set it to a random secret of at least {MIN_SECRET_BYTES} bytes",
            )
        if self.token_pepper and self.token_pepper == self.jwt_secret:
            raise _refuse(
                "ENGRAM_CLOUD_TOKEN_PEPPER must differ from ENGRAM_JWT_SECRET",
                "give the token pepper its own random secret",
            )
        for name, value in (
            ("ENGRAM_CLOUD_TOKEN", self.sync_token),
            ("ENGRAM_CLOUD_ADMIN", self.admin_token),
        ):
            if value and len(value) < MIN_SECRET_BYTES:  # a short shared secret can be guessed
                raise _refuse(
                    f"{name} is shorter than {MIN_SECRET_BYTES} characters",
                    f"set it to a random value of at least {MIN_SECRET_BYTES} characters "
                    "(openssl rand -hex 32), or use managed tokens",
                )


def _refuse(message: str, remedy: str) -> EngramError:
    return EngramError("cloud.config_error", message, remedy)


def _int_setting(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise _refuse(f"{name}={raw!r} is not a number from {low} to {high}", f"fix {name}")
    return int(raw)


def pepper_from_env(env: Mapping[str, str] | None = None) -> str:
    """``ENGRAM_CLOUD_TOKEN_PEPPER`` for the CLI bootstrap commands (refused when missing)."""
    env = os.environ if env is None else env
    pepper = env.get("ENGRAM_CLOUD_TOKEN_PEPPER", "").strip()
    if not pepper:
        raise EngramError(
            "cloud.pepper_required",
            "ENGRAM_CLOUD_TOKEN_PEPPER is not set; nothing was created",
            "set ENGRAM_CLOUD_TOKEN_PEPPER to a dedicated secret (not ENGRAM_JWT_SECRET)",
        )
    if pepper == env.get("ENGRAM_JWT_SECRET", "").strip():
        raise EngramError(
            "cloud.pepper_required",
            "ENGRAM_CLOUD_TOKEN_PEPPER must differ from ENGRAM_JWT_SECRET; nothing was created",
            "give the token pepper its own random secret",
        )
    return pepper
