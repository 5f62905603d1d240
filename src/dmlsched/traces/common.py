"""What trace readers share."""

from __future__ import annotations

from ..errors import InstanceError


class TraceError(InstanceError):
    """A malformed trace row: ``str(err)`` reads ``"file.swf:12: run time: must be an integer"``."""

    def __init__(self, source: str, line: int, message: str):
        self.line = line
        super().__init__(f"{source}:{line}", message)
