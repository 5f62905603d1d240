"""Numbers as a person reads them in messages: :func:`fmt_bytes`, :func:`fmt_count`.

Re-exported by :mod:`dmlsched.kit`.
"""

from __future__ import annotations


def fmt_bytes(n: float) -> str:
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.3g} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n:.3g} TiB"  # pragma: no cover


def fmt_count(n: float) -> str:
    """A count as a person reads it: ``12,345`` up to 10^7, then ``about 2.8 x 10^99``."""
    try:
        n = int(n)
    except (OverflowError, ValueError):
        return str(n)
    if abs(n) < 10**7:
        return f"{n:,}"
    s = str(abs(n))
    k = len(s) - 1
    mant = f"{s[0]}.{s[1]}" if len(s) > 1 else s[0]
    return f"about {'-' if n < 0 else ''}{mant} x 10^{k}"
