"""client.webhooks: the webhook endpoints (create, list, iter, get, delete) and their deliveries
(list_deliveries, iter_deliveries)."""

from collections.abc import Iterator

from .._base_client import parse_model, parse_page
from .._wire import segment
from ..pagination import MAX_PAGE_SIZE, iter_items
from ..types import Page, WebhookDelivery, WebhookEndpoint
from ._resource import Resource


class Webhooks(Resource):
    def create(self, *, url: str, events: list[str]) -> WebhookEndpoint:
        """The answer carries the signing `secret`, shown this once: store it now."""
        body = {"url": url, "events": list(events)}
        return parse_model(WebhookEndpoint, self._request("POST", "/webhooks", body=body))

    def list(self, *, page_token: str | None = None, page_size: int | None = None) -> Page[WebhookEndpoint]:
        params = {"pageToken": page_token, "pageSize": page_size}
        body = self._request("GET", "/webhooks", params=params)
        return parse_page(WebhookEndpoint, body, "webhooks", "webhookEndpoints", "data")

    def iter(self, *, page_size: int = MAX_PAGE_SIZE) -> Iterator[WebhookEndpoint]:
        return iter_items(lambda token: self.list(page_token=token, page_size=page_size))

    def get(self, *, webhook_id: str) -> WebhookEndpoint:
        return parse_model(WebhookEndpoint, self._request("GET", f"/webhooks/{segment(webhook_id)}"))

    def delete(self, *, webhook_id: str) -> None:
        self._request("DELETE", f"/webhooks/{segment(webhook_id)}")

    def list_deliveries(
        self, *, webhook_id: str, page_token: str | None = None, page_size: int | None = None
    ) -> Page[WebhookDelivery]:
        params = {"pageToken": page_token, "pageSize": page_size}
        body = self._request("GET", f"/webhooks/{segment(webhook_id)}/deliveries", params=params)
        return parse_page(WebhookDelivery, body, "deliveries", "webhookDeliveries", "data")

    def iter_deliveries(self, *, webhook_id: str, page_size: int = MAX_PAGE_SIZE) -> Iterator[WebhookDelivery]:
        return iter_items(
            lambda token: self.list_deliveries(webhook_id=webhook_id, page_token=token, page_size=page_size)
        )
