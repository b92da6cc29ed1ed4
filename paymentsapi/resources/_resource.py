"""The base of the resources: each one holds the client and sends through its `_request`."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._base_client import BaseClient


class Resource:
    def __init__(self, client: "BaseClient") -> None:
        self._client = client

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        return self._client._request(method, path, **kwargs)
