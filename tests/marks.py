"""The one-time mark a page puts in a form that makes something (core.forms): tests post it
as the page would, a new one for each form filled in."""

import uuid

from core.forms import SUBMISSION_FIELD


def marked(data: dict | None = None, **more) -> dict:
    """`data` (and `more`) with a new one-time mark."""
    return {**(data or {}), **more, SUBMISSION_FIELD: str(uuid.uuid4())}
