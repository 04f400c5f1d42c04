"""The one token estimate every governed surface uses.

``estimate_tokens(text) = ceil(utf8_bytes / 4)``. It is subadditive
(``estimate(a + b) <= estimate(a) + estimate(b)``), so a pack assembled from parts whose
estimates fit a budget also fits it as a whole.
"""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: UTF-8 bytes divided by four, rounded up."""
    return -(-len(text.encode("utf-8")) // 4)
