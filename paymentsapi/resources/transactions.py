"""client.transactions: create (always under an idempotency key), get, cancel."""

import uuid

from .._base_client import parse_model
from .._wire import segment
from ..types import CancelResult, Transaction
from ._resource import Resource


class Transactions(Resource):
    def create(
        self, *, quote_id: str, correlation_id: str | None = None, idempotency_key: str | None = None
    ) -> Transaction:
        """Create a transaction from a quote.

        Every try sends the same `x-idempotency-key`, so a retry after a lost answer replays
        the first answer instead of creating a second transaction. Pass your own key (kept
        with your record) to make a later, separate call safe too; else a UUID is made here.
        `.replayed` says the API answered with the transaction an earlier call under this key
        made (its `x-idempotent-replayed` header).
        """
        body = {"quoteId": quote_id, "correlationId": correlation_id}
        key = idempotency_key or str(uuid.uuid4())
        headers: dict[str, str] = {}
        answer = self._request("POST", "/transactions", body=body, idempotency_key=key, answer_headers=headers)
        transaction = parse_model(Transaction, answer)
        transaction._replayed = headers.get("x-idempotent-replayed", "").lower() == "true"
        return transaction

    def get(self, *, transaction_id: str) -> Transaction:
        return parse_model(Transaction, self._request("GET", f"/transactions/{segment(transaction_id)}"))

    def cancel(self, *, transaction_id: str) -> CancelResult:
        """DELETE; only CREATED or AWAITING_TRANSFER can be cancelled (else BadRequest)."""
        return parse_model(CancelResult, self._request("DELETE", f"/transactions/{segment(transaction_id)}") or {})
