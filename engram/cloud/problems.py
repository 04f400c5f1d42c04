"""``CloudProblem``: a refused request, rendered as the seed's JSON envelope.

``{"error_class": ..., "error_code": ..., "error": ...}`` where ``error_class`` is one of
``repairable | blocked | policy | invalid_request``.
"""

from __future__ import annotations

from typing import Any, Literal

ErrorClass = Literal["repairable", "blocked", "policy", "invalid_request"]


class CloudProblem(Exception):
    """A request the server refuses, with its HTTP status and envelope."""

    def __init__(
        self, status: int, error_class: ErrorClass, error_code: str, message: str, **extra: Any
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error_class = error_class
        self.error_code = error_code
        self.message = message
        self.extra = extra

    def envelope(self) -> dict[str, Any]:
        """The JSON body."""
        return {
            "error_class": self.error_class,
            "error_code": self.error_code,
            "error": self.message,
            **self.extra,
        }


def invalid(code: str, message: str) -> CloudProblem:
    """A 400 ``invalid_request``."""
    return CloudProblem(400, "invalid_request", code, message)


def too_large(limit: int) -> CloudProblem:
    """A 413: the body is over ``ENGRAM_CLOUD_MAX_PUSH_BYTES``."""
    return CloudProblem(
        413, "invalid_request", "payload_too_large", f"request body exceeds {limit} bytes"
    )
