"""Shared by the security tests: the role matrix as one table, a fingerprint of the mirror,
and a request body streamed from a generator (a 100 MB upload without 100 MB in memory)."""

import hashlib

from django.urls import reverse

from tests.matrix import MATRIX

POSTS = sorted(name for name, access in MATRIX.items() if access.method == "post")
GETS = sorted(name for name, access in MATRIX.items() if access.method == "get")

XSS = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>')
RAW_XSS = ("<script>alert(1)</script>", "<img src=x onerror=alert(1)>")
SQL = "' OR 1=1 --"


def allowed_role(name: str) -> str:
    """The most privileged role the matrix lets use `name` (admin where it may)."""
    roles = MATRIX[name].roles
    for role in ("admin", "compliance", "operations", "auditor"):
        if role in roles:
            return role
    raise AssertionError(f"{name}: no role may use it")


def url_of(name: str) -> str:
    access = MATRIX[name]
    return reverse(name, kwargs=access.kwargs() if access.kwargs else None)


def mirror_fingerprint() -> str:
    """A digest of every mirror row and every staff record a form may write."""
    from customers.models import (
        CaseDecision,
        Customer,
        CustomerNote,
        CustomerStatusChange,
        HostedLinkHandout,
        VerificationIssue,
    )
    from payments.models import (
        ApprovalRequest,
        AutomationRule,
        PaymentAccount,
        Quote,
        Transaction,
        TransactionStatusChange,
    )

    digest = hashlib.sha256()
    for model in (
        Customer,
        VerificationIssue,
        CustomerStatusChange,
        CustomerNote,
        HostedLinkHandout,
        CaseDecision,
        PaymentAccount,
        AutomationRule,
        Quote,
        Transaction,
        TransactionStatusChange,
        ApprovalRequest,
    ):
        fields = [f.attname for f in model._meta.concrete_fields if f.attname not in ("synced_at",)]
        for row in model.objects.order_by("pk").values_list(*fields):
            digest.update(repr(row).encode())
    return digest.hexdigest()


class StreamedBody:
    """A WSGI input that produces `head`, then `size` filler bytes, then `tail`, on demand."""

    def __init__(self, head: bytes, size: int, tail: bytes, filler: bytes = b"A"):
        self.parts = [head, None, tail]
        self.remaining_filler = size
        self.filler = filler * (64 * 1024)
        self.length = len(head) + size + len(tail)

    def read(self, size: int = -1) -> bytes:
        out = bytearray()
        while self.parts and (size < 0 or len(out) < size):
            want = (size - len(out)) if size >= 0 else 1 << 20
            part = self.parts[0]
            if part is None:
                chunk = self.filler[: min(want, self.remaining_filler)]
                self.remaining_filler -= len(chunk)
                out += chunk
                if not self.remaining_filler:
                    self.parts.pop(0)
            else:
                out += part[:want]
                self.parts[0] = part[want:]
                if not self.parts[0]:
                    self.parts.pop(0)
        return bytes(out)

    def readline(self, size: int = -1) -> bytes:  # pragma: no cover - Django reads in chunks
        return self.read(size)


def post_streamed(client, url: str, *, content_type: str, body: StreamedBody, **extra):
    """POST a body that is never held in memory whole (the test client would build it)."""
    return client.request(
        REQUEST_METHOD="POST",
        PATH_INFO=url,
        CONTENT_TYPE=content_type,
        CONTENT_LENGTH=str(body.length),
        **{"wsgi.input": body},
        **extra,
    )


def multipart_file(fields: dict, file_field: str, filename: str, size: int, filler: bytes = b"A") -> tuple:
    """(content type, StreamedBody) of a multipart form with `fields` and one file of `size` bytes."""
    boundary = "----security-test-boundary-7c1d"
    head = b""
    for name, value in fields.items():
        head += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
    head += (
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{filename}"\r\n'
        "Content-Type: image/png\r\n\r\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    return f"multipart/form-data; boundary={boundary}", StreamedBody(head, size, tail, filler)
