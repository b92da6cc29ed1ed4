"""Webhook endpoints (CRUD, errors, secret once), signed deliveries, retries on the sandbox clock.
The back-office's receiver of these deliveries is tested in tests/backoffice/test_webhook_flow.py."""

import datetime as dt
import json
import uuid

import httpx
import pytest
from standardwebhooks.webhooks import Webhook

from sandbox import clock
from sandbox.models import Customer, Delivery, DeliveryStatus
from sandbox.services import webhooks as service
from sandbox.services.verification import customer_event_data
from sandbox.services.webhooks import emit
from sandbox.tasks import deliver_due_webhooks, deliver_webhook

from .conftest import SandboxClient, assert_error

URL = "https://integrator.example/hooks"


@pytest.fixture
def make_endpoint(api):
    """make_endpoint(url=URL, events=None, client=api) -> the create answer (with its secret)."""

    def make(url: str = URL, events: list | None = None, client=None):
        body = {"url": url} if events is None else {"url": url, "events": events}
        response = (client or api).post("/webhooks", body)
        assert response.status_code == 201, response.json()
        return response.json()

    return make


def customer_update(customer_id: str):
    customer = Customer.objects.get(pk=customer_id)
    return emit(
        organization_id=customer.organization_id, event_type="customer.update", data=customer_event_data(customer)
    )


def only_delivery(api, webhook_id: str) -> dict:
    response = api.get(f"/webhooks/{webhook_id}/deliveries")
    assert response.status_code == 200
    (delivery,) = response.json()["deliveries"]
    return delivery


def parse(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


# --- Endpoints ----------------------------------------------------------------------------------


def test_create_answers_the_endpoint_with_its_secret_once(api, make_endpoint):
    created = make_endpoint(events=["customer.update", "transaction.update"])
    assert set(created) == {"webhookId", "url", "events", "secret", "createdAt"}
    assert created["url"] == URL
    assert created["events"] == ["customer.update", "transaction.update"]
    assert created["secret"].startswith("whsec_")
    Webhook(created["secret"])  # a valid Standard Webhooks secret
    assert abs(parse(created["createdAt"]) - clock.now()) < dt.timedelta(seconds=5)

    read = api.get(f"/webhooks/{created['webhookId']}")
    assert read.status_code == 200
    assert read.json() == {k: v for k, v in created.items() if k != "secret"}
    listed = api.get("/webhooks").json()
    assert listed == {"webhooks": [read.json()], "nextPageToken": None}
    assert created["secret"] not in json.dumps(listed)


def test_every_endpoint_gets_its_own_secret(make_endpoint):
    assert make_endpoint()["secret"] != make_endpoint()["secret"]


def test_events_default_to_an_empty_list_and_duplicates_are_dropped(make_endpoint):
    assert make_endpoint()["events"] == []
    assert make_endpoint(events=["customer.update", "customer.update"])["events"] == ["customer.update"]


def test_http_and_hosts_without_a_dot_are_accepted(make_endpoint):
    assert make_endpoint(url="http://localhost:3000/hooks")["url"] == "http://localhost:3000/hooks"
    assert make_endpoint(url="http://backoffice:8000/webhooks/payments")["url"].startswith("http://backoffice")


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({}, ["url"]),
        ({"url": ""}, ["url"]),
        ({"url": 42}, ["url"]),
        ({"url": "ftp://files.example/x"}, ["url"]),
        ({"url": "integrator.example/hooks"}, ["url"]),
        ({"url": "https://"}, ["url"]),
        ({"url": "https://user:pw@integrator.example/hooks"}, ["url"]),
        ({"url": "https://integrator.example/a b"}, ["url"]),
        ({"url": "https://x.example/" + "a" * 2000}, ["url"]),
        ({"url": URL, "events": ["customer.created"]}, ["events", 0]),
        ({"url": URL, "events": [7]}, ["events", 0]),
        ({"url": URL, "events": "customer.update"}, ["events"]),
        ({"url": URL, "secret": "whsec_mine"}, ["secret"]),
    ],
)
def test_invalid_create_bodies_are_validation_errors(api, body, path):
    body = assert_error(api.post("/webhooks", body), 400, "VALIDATION_ERROR")
    assert [item["path"] for item in body["details"]] == [path], body
    assert body["details"][0]["location"] == "body"


def test_an_unknown_kind_is_named_with_the_known_ones(api):
    body = assert_error(api.post("/webhooks", {"url": URL, "events": ["nope"]}), 400, "VALIDATION_ERROR")
    assert body["details"][0]["message"] == (
        "Unknown event kind 'nope'; known kinds: customer.update, transaction.update, payment_account.update"
    )


def test_an_organization_has_at_most_20_endpoints(api, make_endpoint):
    for _ in range(service.MAX_ENDPOINTS_PER_ORGANIZATION):
        make_endpoint()
    assert_error(api.post("/webhooks", {"url": URL}), 400, "BAD_REQUEST")


def test_delete_answers_204_and_the_endpoint_is_gone(api, make_endpoint, receiver):
    created = make_endpoint()
    customer = api.post(
        "/customers", {"customerType": "INDIVIDUAL", "email": "a@b.example", "firstName": "A", "lastName": "B"}
    )
    customer_update(customer.json()["customerId"])
    response = api.delete(f"/webhooks/{created['webhookId']}")
    assert response.status_code == 204
    assert response.content == b""
    body = assert_error(api.get(f"/webhooks/{created['webhookId']}"), 404, "NOT_FOUND")
    assert body["message"] == f"Webhook endpoint {created['webhookId']} not found"
    assert Delivery.objects.count() == 0
    assert service.deliver_due() == 0
    assert receiver.requests == []


@pytest.mark.parametrize(
    ("method", "suffix"), [("get", ""), ("delete", ""), ("get", "/deliveries")], ids=["get", "delete", "deliveries"]
)
def test_unknown_endpoint_is_404_naming_it(api, method, suffix):
    unknown = uuid.uuid4()
    body = assert_error(getattr(api, method)(f"/webhooks/{unknown}{suffix}"), 404, "NOT_FOUND")
    assert body["message"] == f"Webhook endpoint {unknown} not found"


def test_an_id_that_is_not_a_uuid_is_404(api):
    assert_error(api.get("/webhooks/not-a-uuid"), 404, "NOT_FOUND")


@pytest.mark.parametrize(
    ("method", "suffix"), [("get", ""), ("delete", ""), ("get", "/deliveries")], ids=["get", "delete", "deliveries"]
)
def test_another_organizations_endpoint_is_forbidden(api, make_api, make_endpoint, method, suffix):
    created = make_endpoint()
    other = make_api()
    assert_error(getattr(other, method)(f"/webhooks/{created['webhookId']}{suffix}"), 403, "FORBIDDEN")
    assert other.get("/webhooks").json() == {"webhooks": [], "nextPageToken": None}
    assert api.get(f"/webhooks/{created['webhookId']}").status_code == 200


def test_a_read_only_key_reads_but_cannot_create_or_delete(api, api_key, make_api, make_endpoint):
    created = make_endpoint()
    reader = make_api(organization_id=api_key[0].organization_id, read_only=True)
    assert reader.get("/webhooks").json()["webhooks"][0]["webhookId"] == created["webhookId"]
    assert reader.get(f"/webhooks/{created['webhookId']}").status_code == 200
    assert reader.get(f"/webhooks/{created['webhookId']}/deliveries").status_code == 200
    assert_error(reader.post("/webhooks", {"url": URL}), 403, "FORBIDDEN")
    assert_error(reader.delete(f"/webhooks/{created['webhookId']}"), 403, "FORBIDDEN")
    assert api.get(f"/webhooks/{created['webhookId']}").status_code == 200


def test_no_key_is_401(db):
    anonymous = SandboxClient(None)
    assert_error(anonymous.get("/webhooks"), 401, "UNAUTHORIZED")
    assert_error(anonymous.post("/webhooks", {"url": URL}), 401, "UNAUTHORIZED")


def test_the_list_pages_with_a_cursor_oldest_first(api, make_endpoint):
    ids = [make_endpoint(url=f"{URL}/{n}")["webhookId"] for n in range(3)]
    first = api.get("/webhooks", {"pageSize": 2}).json()
    assert [w["webhookId"] for w in first["webhooks"]] == ids[:2]
    assert first["nextPageToken"]
    second = api.get("/webhooks", {"pageSize": 2, "pageToken": first["nextPageToken"]}).json()
    assert [w["webhookId"] for w in second["webhooks"]] == ids[2:]
    assert second["nextPageToken"] is None


@pytest.mark.parametrize("query", [{"pageSize": 0}, {"pageSize": 101}, {"pageSize": "x"}, {"pageToken": "%%%"}])
def test_bad_list_queries_are_validation_errors(api, make_endpoint, query):
    created = make_endpoint()
    for path in ("/webhooks", f"/webhooks/{created['webhookId']}/deliveries"):
        body = assert_error(api.get(path, query), 400, "VALIDATION_ERROR")
        assert body["details"][0]["location"] == "query"


def test_operations_are_in_the_openapi_document(db):
    paths = json.loads(SandboxClient(None).client.get("/sandbox/openapi.json").content)["paths"]
    assert {m: paths["/webhooks"][m]["operationId"] for m in ("get", "post")} == {
        "get": "listWebhooks",
        "post": "createWebhook",
    }
    assert paths["/webhooks/{webhookId}"]["delete"]["operationId"] == "deleteWebhook"
    assert paths["/webhooks/{webhookId}/deliveries"]["get"]["operationId"] == "listWebhookDeliveries"
    assert "secret" not in json.dumps(paths["/webhooks/{webhookId}"]["get"]["responses"]["200"])


# --- Deliveries ---------------------------------------------------------------------------------


def test_a_delivery_is_signed_per_standard_webhooks(api, make_endpoint, active_customer, receiver):
    created = make_endpoint()
    event = customer_update(active_customer["customerId"])
    assert service.deliver_due() == 1

    (request,) = receiver.requests
    assert request.method == "POST"
    assert str(request.url) == URL
    assert request.headers["content-type"] == "application/json"
    assert request.headers["webhook-id"] == str(event.id)
    assert abs(int(request.headers["webhook-timestamp"]) - dt.datetime.now(tz=dt.UTC).timestamp()) < 5
    # The receiving side's check, with the secret from the create answer.
    body = Webhook(created["secret"]).verify(request.content, dict(request.headers))
    assert set(body) == {"eventId", "eventType", "createdAt", "data"}
    assert body["eventId"] == str(event.id)
    assert body["eventType"] == "customer.update"
    assert body["data"]["customerId"] == active_customer["customerId"]
    assert body["data"]["verificationIssues"] == []
    # Compact JSON, exactly the bytes signed.
    assert request.content == json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    other = "whsec_" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY"
    with pytest.raises(Exception, match="signature"):
        Webhook(other).verify(request.content, dict(request.headers))


def test_a_2xx_makes_the_delivery_succeeded(api, make_endpoint, active_customer, receiver):
    created = make_endpoint()
    receiver.answers = [204]
    event = customer_update(active_customer["customerId"])
    before = only_delivery(api, created["webhookId"])
    assert before["status"] == "PENDING"
    assert before["attempts"] == 0
    assert before["lastAttemptAt"] is None

    service.deliver_due()
    delivery = only_delivery(api, created["webhookId"])
    assert set(delivery) == {
        "deliveryId",
        "webhookId",
        "eventId",
        "eventType",
        "status",
        "attempts",
        "responseStatus",
        "lastError",
        "lastAttemptAt",
        "nextAttemptAt",
        "createdAt",
    }
    assert delivery["deliveryId"] == before["deliveryId"]
    assert (delivery["webhookId"], delivery["eventId"], delivery["eventType"]) == (
        created["webhookId"],
        str(event.id),
        "customer.update",
    )
    assert (delivery["status"], delivery["attempts"], delivery["responseStatus"]) == ("SUCCEEDED", 1, 204)
    assert delivery["lastError"] == ""
    assert delivery["nextAttemptAt"] is None
    assert delivery["lastAttemptAt"] is not None
    assert service.deliver_due() == 0
    assert len(receiver.requests) == 1


def test_failures_retry_on_the_backoff_schedule_until_failed(api, make_endpoint, active_customer, receiver):
    created = make_endpoint()
    receiver.answers = [500]
    customer_update(active_customer["customerId"])
    schedule = [5, 20, 80, 320, 1280, 5120, 20480]

    for attempt, wait in enumerate(schedule, start=1):
        assert service.deliver_due() == 1
        delivery = only_delivery(api, created["webhookId"])
        assert (delivery["status"], delivery["attempts"], delivery["responseStatus"]) == ("RETRYING", attempt, 500)
        assert delivery["lastError"] == "HTTP 500"
        gap = parse(delivery["nextAttemptAt"]) - clock.now()
        assert dt.timedelta(seconds=wait - 2) < gap <= dt.timedelta(seconds=wait), (attempt, gap)
        # Not due a little before its time, due at it.
        clock.advance(wait - 3)
        assert service.deliver_due() == 0
        clock.advance(3)

    assert service.deliver_due() == 1
    delivery = only_delivery(api, created["webhookId"])
    assert (delivery["status"], delivery["attempts"]) == ("FAILED", service.MAX_ATTEMPTS)
    assert delivery["nextAttemptAt"] is None
    clock.advance(10**6)
    assert service.deliver_due() == 0
    assert len(receiver.requests) == service.MAX_ATTEMPTS == 8


def test_a_timeout_is_retried_then_succeeds(api, make_endpoint, active_customer, receiver):
    created = make_endpoint()
    receiver.answers = [httpx.ReadTimeout, httpx.ConnectError, 200]
    customer_update(active_customer["customerId"])

    service.deliver_due()
    delivery = only_delivery(api, created["webhookId"])
    assert (delivery["status"], delivery["responseStatus"]) == ("RETRYING", None)
    assert delivery["lastError"] == "Timed out after 5 s"
    clock.advance(5)
    service.deliver_due()
    delivery = only_delivery(api, created["webhookId"])
    assert (delivery["status"], delivery["attempts"]) == ("RETRYING", 2)
    assert delivery["lastError"] == "Connection failed (ConnectError)"
    clock.advance(20)
    service.deliver_due()
    delivery = only_delivery(api, created["webhookId"])
    assert (delivery["status"], delivery["attempts"], delivery["responseStatus"]) == ("SUCCEEDED", 3, 200)
    assert delivery["lastError"] == ""
    # Every attempt carries the same webhook-id; each is signed afresh.
    assert {r.headers["webhook-id"] for r in receiver.requests} == {delivery["eventId"]}


def test_a_redirect_is_a_failed_attempt(api, make_endpoint, active_customer, receiver):
    created = make_endpoint()
    receiver.answers = [lambda request: httpx.Response(302, headers={"location": "https://elsewhere.example/"})]
    customer_update(active_customer["customerId"])
    service.deliver_due()
    delivery = only_delivery(api, created["webhookId"])
    assert (delivery["status"], delivery["responseStatus"]) == ("RETRYING", 302)
    assert len(receiver.requests) == 1


def test_the_secret_is_never_stored_as_an_error(api, make_endpoint, active_customer, receiver):
    created = make_endpoint()
    receiver.answers = [httpx.ConnectError, 500]
    customer_update(active_customer["customerId"])
    service.deliver_due()
    clock.advance(5)
    service.deliver_due()
    row = Delivery.objects.get()
    assert created["secret"] not in row.last_error
    assert created["secret"] not in api.get(f"/webhooks/{created['webhookId']}/deliveries").content.decode()


def test_an_attempt_in_flight_is_not_taken_twice(api, make_endpoint, active_customer, receiver):
    """A second worker (a beat, or a task enqueued twice) finds the delivery claimed."""
    make_endpoint()
    customer_update(active_customer["customerId"])
    delivery_id = Delivery.objects.get().pk
    second_tries = []

    def reentrant(request):
        second_tries.append(service.deliver(delivery_id))
        second_tries.append(service.deliver_due())
        return httpx.Response(200)

    receiver.answers = [reentrant]
    assert service.deliver(delivery_id).status == DeliveryStatus.SUCCEEDED
    assert second_tries == [None, 0]
    assert len(receiver.requests) == 1


def test_a_lost_worker_is_retried_after_its_lease(api, make_endpoint, active_customer, receiver):
    make_endpoint()
    customer_update(active_customer["customerId"])
    row = Delivery.objects.get()
    # What a worker that died during the HTTP call leaves behind.
    now = clock.now()
    Delivery.objects.filter(pk=row.pk).update(
        attempts=1, last_attempt_at=now, next_attempt_at=now + service._lease_length()
    )
    assert service.deliver_due() == 0
    clock.advance(service._lease_length().total_seconds())
    assert service.deliver_due() == 1
    row.refresh_from_db()
    assert (row.status, row.attempts) == (DeliveryStatus.SUCCEEDED, 2)


def test_a_lost_last_attempt_ends_failed(api, make_endpoint, active_customer, receiver):
    make_endpoint()
    customer_update(active_customer["customerId"])
    Delivery.objects.update(attempts=service.MAX_ATTEMPTS, status=DeliveryStatus.RETRYING)
    assert service.deliver_due() == 0
    row = Delivery.objects.get()
    assert row.status == DeliveryStatus.FAILED
    assert row.next_attempt_at is None
    assert receiver.requests == []


def test_deliveries_are_listed_newest_first_with_a_cursor(api, make_endpoint, active_customer, receiver):
    created = make_endpoint()
    receiver.answers = [200, 500]
    events = []
    for _ in range(3):
        events.append(str(customer_update(active_customer["customerId"]).id))
        service.deliver_due()
        clock.advance(1)
    first = api.get(f"/webhooks/{created['webhookId']}/deliveries", {"pageSize": 2}).json()
    assert [d["eventId"] for d in first["deliveries"]] == events[::-1][:2]
    assert [d["status"] for d in first["deliveries"]] == ["RETRYING", "RETRYING"]
    second = api.get(
        f"/webhooks/{created['webhookId']}/deliveries", {"pageSize": 2, "pageToken": first["nextPageToken"]}
    ).json()
    assert [(d["eventId"], d["status"]) for d in second["deliveries"]] == [(events[0], "SUCCEEDED")]
    assert second["nextPageToken"] is None


def test_the_timeout_setting_reaches_the_client(settings):
    settings.SANDBOX_WEBHOOK_TIMEOUT = 2.5
    with service.delivery_client() as client:
        assert client.timeout.read == 2.5
        assert client.follow_redirects is False


def test_an_endpoint_deleted_during_an_attempt_drops_the_delivery(api, make_endpoint, active_customer, receiver):
    created = make_endpoint()
    customer_update(active_customer["customerId"])

    def delete_meanwhile(request):
        assert api.delete(f"/webhooks/{created['webhookId']}").status_code == 204
        return httpx.Response(500)

    receiver.answers = [delete_meanwhile]
    assert service.deliver_due() == 0
    assert Delivery.objects.count() == 0


def test_the_tasks_deliver_one_and_every_due_delivery(api, make_endpoint, active_customer, receiver):
    make_endpoint()
    make_endpoint(url=f"{URL}/2")
    customer_update(active_customer["customerId"])
    first, second = Delivery.objects.order_by("endpoint__url")
    assert deliver_webhook.delay(str(first.pk)).get() == "SUCCEEDED"
    assert deliver_webhook.delay(str(first.pk)).get() == "not-due"
    assert deliver_due_webhooks.delay().get() == 1
    second.refresh_from_db()
    assert second.status == DeliveryStatus.SUCCEEDED
    assert len(receiver.requests) == 2
