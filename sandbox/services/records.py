"""Finding a record for an API key: 404 when there is none (or the id is no UUID), 403 when it
is another organization's. Each resource's `<record>_for_key` is this with its query."""

import uuid

from django.db.models import QuerySet

from ..auth import check_organization
from ..errors import not_found
from ..models import ApiKey, Customer, PaymentAccount, WebhookEndpoint


def parse_id(value, kind: str) -> uuid.UUID:
    """A record id from a path or body; anything that is not a UUID names no record (404)."""
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        raise not_found(kind, value) from None


def organization_of(record) -> uuid.UUID:
    """Customers, payment accounts and webhook endpoints carry their organization; quotes,
    transactions and automation rules belong to their customer's."""
    if isinstance(record, (Customer, PaymentAccount, WebhookEndpoint)):
        return record.organization_id
    return record.customer.organization_id


def record_for_key(records: QuerySet, *, api_key: ApiKey, kind: str, record_id, id_field: str = "pk"):
    """The record of `records` whose `id_field` is `record_id`, if the key's organization owns it."""
    record = records.filter(**{id_field: parse_id(record_id, kind)}).first()
    if record is None:
        raise not_found(kind, record_id)
    check_organization(api_key, organization_of(record))
    return record
