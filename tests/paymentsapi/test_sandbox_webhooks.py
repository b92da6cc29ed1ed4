"""The client against the real sandbox (in-process WSGI), end to end, as ARCHITECTURE.md's
decisions and the spec have it: webhook endpoints and their deliveries."""

import pytest

from paymentsapi import NotFound
from tests.paymentsapi.sandbox_data import KYC, new_customer


def test_webhook_endpoint_lifecycle(sandbox_client):
    created = sandbox_client.webhooks.create(url="https://hooks.example/payments", events=["customer.update"])

    assert created.webhook_id
    assert created.secret is not None and created.secret.get_secret_value()
    assert created.events == ["customer.update"]
    assert created.created_at is not None

    read = sandbox_client.webhooks.get(webhook_id=created.webhook_id)
    assert read.url == "https://hooks.example/payments"
    assert read.secret is None  # shown once
    assert [e.webhook_id for e in sandbox_client.webhooks.iter()] == [created.webhook_id]
    assert sandbox_client.webhooks.list_deliveries(webhook_id=created.webhook_id).items == []

    sandbox_client.webhooks.delete(webhook_id=created.webhook_id)
    with pytest.raises(NotFound):
        sandbox_client.webhooks.get(webhook_id=created.webhook_id)


def test_webhook_deliveries_after_a_customer_change(sandbox_client, helpers):
    endpoint = sandbox_client.webhooks.create(url="https://hooks.example/p", events=["customer.update"])
    customer = new_customer(sandbox_client, kyc_data=KYC)
    helpers.review(customer.customer_id, "ACTIVE")

    deliveries = list(sandbox_client.webhooks.iter_deliveries(webhook_id=endpoint.webhook_id))

    assert deliveries
    assert {d.event_type for d in deliveries} == {"customer.update"}
    assert all(d.webhook_id == endpoint.webhook_id and d.event_id for d in deliveries)
    assert all(d.status in {"PENDING", "RETRYING", "SUCCEEDED", "FAILED"} for d in deliveries)
    assert all(isinstance(d.attempts, int) and d.created_at for d in deliveries)
