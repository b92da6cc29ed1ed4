import uuid

import pytest

from sandbox import clock

from .conftest import assert_error


@pytest.fixture
def setup(onramp, make_account):
    """The onramp customer plus a SERVICE wallet on BASE."""
    return {**onramp, "service": make_account(onramp["customer_id"], "service_wallet")}


def rule_body(setup, trigger=None, **overrides):
    body = {
        "name": "Sweep USDC to the bank",
        "customerId": setup["customer_id"],
        "transactionTemplate": {
            "source": {
                "sourcePaymentAccountId": setup["service"]["paymentAccountId"],
                "sourcePaymentMethod": "BASE",
                "sourceCurrency": "USDC",
            },
            "destination": {
                "destinationPaymentAccountId": setup["bank"]["paymentAccountId"],
                "destinationPaymentMethod": "ACH",
                "destinationCurrency": "USD",
            },
            "amount": {"value": "50.00"},
        },
        "trigger": trigger or {"thresholdAmount": "100"},
    }
    return {**body, **overrides}


def test_create_threshold_rule(api, setup):
    response = api.post("/automation-rules", rule_body(setup))
    assert response.status_code == 201, response.json()
    rule = response.json()
    uuid.UUID(rule["id"])
    assert rule["name"] == "Sweep USDC to the bank" and rule["customerId"] == setup["customer_id"]
    template = rule["transactionTemplate"]
    assert template["source"]["sourceCurrency"]["label"] == "USDC"
    assert template["source"]["sourceCurrency"]["chain"] == "BASE"
    assert template["destination"]["destinationCurrency"] == {"label": "USD"}
    assert template["amount"] == {"type": "FLAT", "value": "50.00"}
    assert template["developerFee"] == {"developerFeeType": "USD", "developerFeeAmount": "0.00"}
    assert rule["trigger"] == {"thresholdAmount": "100", "type": "THRESHOLD_BASED"}
    assert rule["createdAt"].endswith("Z")
    assert api.get(f"/automation-rules/{rule['id']}").json() == rule


def test_create_cron_rule_with_developer_fee(api, setup):
    body = rule_body(setup, {"cronSchedule": "0  9 * * 1-5"})
    body["transactionTemplate"]["developerFee"] = {"developerFeeType": "USD", "developerFeeAmount": "1.5"}
    rule = api.post("/automation-rules", body).json()
    assert rule["trigger"] == {"cronSchedule": "0 9 * * 1-5", "type": "CRON_BASED"}
    assert rule["transactionTemplate"]["developerFee"] == {"developerFeeType": "USD", "developerFeeAmount": "1.5"}


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"name": ""}, ["name"]),
        ({"trigger": {"cronSchedule": "* * * * * *"}}, ["trigger", "cronSchedule"]),
        ({"trigger": {"cronSchedule": "61 * * * *"}}, ["trigger", "cronSchedule"]),
        ({"trigger": {"cronSchedule": "* * * * *", "thresholdAmount": "5", "type": "CRON_BASED"}}, ["trigger", "type"]),
        ({"trigger": {}}, ["trigger"]),
        ({"trigger": {"thresholdAmount": 100}}, ["trigger", "thresholdAmount"]),
        ({"trigger": {"thresholdAmount": "100", "type": "CRON_BASED"}}, ["trigger", "type"]),
        ({"trigger": {"thresholdAmount": "1.0000001"}}, ["trigger", "thresholdAmount"]),
    ],
)
def test_validation(api, setup, change, path):
    details = assert_error(api.post("/automation-rules", {**rule_body(setup), **change}), 400, "VALIDATION_ERROR")[
        "details"
    ]
    assert details[0]["path"] == path


def test_template_is_checked_like_a_quote(api, setup):
    body = rule_body(setup)
    body["transactionTemplate"]["amount"] = {"value": 10}
    assert_error(api.post("/automation-rules", body), 400, "VALIDATION_ERROR")
    body = rule_body(setup)
    body["transactionTemplate"]["source"]["sourcePaymentMethod"] = "ETHEREUM"
    details = assert_error(api.post("/automation-rules", body), 400, "VALIDATION_ERROR")["details"]
    assert details[0]["path"] == ["source", "sourcePaymentMethod"]
    # A threshold needs a balance the service keeps.
    body = rule_body(setup)
    body["transactionTemplate"]["source"]["sourcePaymentAccountId"] = setup["wallet"]["paymentAccountId"]
    details = assert_error(api.post("/automation-rules", body), 400, "VALIDATION_ERROR")["details"]
    assert details[0]["path"] == ["trigger", "thresholdAmount"]
    assert api.post("/automation-rules", {**body, "trigger": {"cronSchedule": "* * * * *"}}).status_code == 201


def test_list_and_filters(api, make_api, setup, make_account, customer_factory):
    first = api.post("/automation-rules", rule_body(setup)).json()
    fiat = make_account(setup["customer_id"], "fiat")
    body = rule_body(setup, {"cronSchedule": "*/5 * * * *"})
    body["transactionTemplate"]["source"] = {
        "sourcePaymentAccountId": fiat["paymentAccountId"],
        "sourcePaymentMethod": "WIRE",
        "sourceCurrency": "USD",
    }
    body["transactionTemplate"]["destination"] = {
        "destinationPaymentAccountId": setup["wallet"]["paymentAccountId"],
        "destinationPaymentMethod": "BASE",
        "destinationCurrency": "USDC",
    }
    second = api.post("/automation-rules", body).json()
    other = make_api()
    customer = customer_factory("ACTIVE", client=other)["customerId"]
    wallet = other.post(
        "/payment-accounts",
        {
            "paymentAccountType": "SERVICE_CRYPTO_WALLET",
            "customerId": customer,
            "serviceCryptoWallet": {"chain": "BASE"},
        },
    ).json()
    assert wallet["paymentAccountId"]

    everything = api.get("/automation-rules").json()
    assert [r["id"] for r in everything["automationRules"]] == [first["id"], second["id"]]
    by_source = api.get("/automation-rules", {"sourcePaymentAccountId": fiat["paymentAccountId"]}).json()
    assert [r["id"] for r in by_source["automationRules"]] == [second["id"]]
    by_customer = api.get("/automation-rules", {"customerId": setup["customer_id"]}).json()
    assert len(by_customer["automationRules"]) == 2
    assert api.get("/automation-rules", {"customerId": str(uuid.uuid4())}).json() == {"automationRules": []}
    assert other.get("/automation-rules").json() == {"automationRules": []}
    assert_error(api.get("/automation-rules", {"customerId": "x"}), 400, "VALIDATION_ERROR")


def test_get_and_permissions(api, api_key, make_api, setup):
    rule = api.post("/automation-rules", rule_body(setup)).json()
    missing = str(uuid.uuid4())
    response = api.get(f"/automation-rules/{missing}")
    assert assert_error(response, 404, "NOT_FOUND")["message"] == f"Automation rule {missing} not found"
    assert_error(make_api().get(f"/automation-rules/{rule['id']}"), 403, "FORBIDDEN")
    assert_error(make_api().post("/automation-rules", rule_body(setup)), 403, "FORBIDDEN")
    read_only = make_api(read_only=True, organization_id=api_key[0].organization_id)
    assert_error(read_only.post("/automation-rules", rule_body(setup)), 403, "FORBIDDEN")
    assert_error(
        read_only.put(f"/automation-rules/{rule['id']}", {**rule_body(setup), "id": rule["id"]}), 403, "FORBIDDEN"
    )


def test_put_replaces_the_rule(api, setup):
    rule = api.post("/automation-rules", rule_body(setup)).json()
    path = f"/automation-rules/{rule['id']}"
    body = {**rule_body(setup, {"cronSchedule": "30 * * * *"}), "id": rule["id"], "name": "Hourly"}
    updated = api.put(path, body)
    assert updated.status_code == 200, updated.json()
    assert updated.json()["name"] == "Hourly"
    assert updated.json()["trigger"] == {"cronSchedule": "30 * * * *", "type": "CRON_BASED"}
    assert updated.json()["createdAt"] == rule["createdAt"]
    assert api.get(path).json() == updated.json()

    mismatch = api.put(path, {**body, "id": str(uuid.uuid4())})
    assert "does not match" in assert_error(mismatch, 400, "BAD_REQUEST")["message"]
    no_id = {key: value for key, value in body.items() if key != "id"}
    assert assert_error(api.put(path, no_id), 400, "VALIDATION_ERROR")["details"][0]["path"] == ["id"]
    moved = api.put(path, {**body, "customerId": str(uuid.uuid4())})
    assert_error(moved, 400, "BAD_REQUEST")
    assert_error(api.put(f"/automation-rules/{uuid.uuid4()}", body), 404, "NOT_FOUND")


def test_threshold_rule_fires_once_when_reached(api, setup):
    rule = api.post("/automation-rules", rule_body(setup)).json()
    wallet = setup["service"]["paymentAccountId"]
    assert api.post("/test-helpers/automation-rules/run").json() == {"fired": [], "failed": []}
    api.post(f"/test-helpers/payment-accounts/{wallet}/fund", {"currency": "USDC", "amount": "160"})
    run = api.post("/test-helpers/automation-rules/run").json()
    assert [item["ruleId"] for item in run["fired"]] == [rule["id"]]
    fired = run["fired"][0]
    assert fired["transactionStatus"] == "PROCESSING"
    tx = api.get(f"/transactions/{fired['transactionId']}").json()
    assert tx["source"]["sourceAmount"] == "50.000000"
    assert tx["correlationId"] == f"automation-rule:{rule['id']}"
    # 110 left, still above 100: it fired already, so not again until the balance dips below.
    assert api.post("/test-helpers/automation-rules/run").json()["fired"] == []
    run = api.post("/test-helpers/automation-rules/run").json()
    assert run["fired"] == []


def test_threshold_rearms_below_the_threshold(api, setup):
    api.post("/automation-rules", rule_body(setup, {"thresholdAmount": "60"}))
    wallet = setup["service"]["paymentAccountId"]
    api.post(f"/test-helpers/payment-accounts/{wallet}/fund", {"currency": "USDC", "amount": "60"})
    assert len(api.post("/test-helpers/automation-rules/run").json()["fired"]) == 1  # 60 -> 10
    assert api.post("/test-helpers/automation-rules/run").json()["fired"] == []  # below: re-armed
    api.post(f"/test-helpers/payment-accounts/{wallet}/fund", {"currency": "USDC", "amount": "50"})
    assert len(api.post("/test-helpers/automation-rules/run").json()["fired"]) == 1


def test_cron_rule_fires_when_due_on_the_sandbox_clock(api, setup):
    body = rule_body(setup, {"cronSchedule": "0 * * * *"})
    body["transactionTemplate"]["source"]["sourcePaymentAccountId"] = setup["wallet"]["paymentAccountId"]
    rule = api.post("/automation-rules", body).json()
    assert api.post("/test-helpers/automation-rules/run").json()["fired"] == []
    clock.advance(3600)
    run = api.post("/test-helpers/automation-rules/run").json()
    assert [item["ruleId"] for item in run["fired"]] == [rule["id"]]
    assert run["fired"][0]["transactionStatus"] == "AWAITING_TRANSFER"
    assert api.post("/test-helpers/automation-rules/run").json()["fired"] == []


def test_a_rule_that_cannot_run_is_reported(api, setup):
    body = rule_body(setup, {"cronSchedule": "* * * * *"})
    body["transactionTemplate"]["source"]["sourcePaymentAccountId"] = setup["wallet"]["paymentAccountId"]
    rule = api.post("/automation-rules", body).json()
    api.post(f"/test-helpers/customers/{setup['customer_id']}/deactivate")
    clock.advance(120)
    run = api.post("/test-helpers/automation-rules/run").json()
    assert run["fired"] == []
    assert run["failed"][0]["ruleId"] == rule["id"] and "DEACTIVATED" in run["failed"][0]["message"]


def test_a_threshold_on_a_schedule_is_checked_when_the_schedule_runs(api, setup):
    """The spec's trigger carries both fields and shows THRESHOLD_BASED: a threshold checked on
    the cron schedule, not at each balance change."""
    rule = api.post("/automation-rules", rule_body(setup, {"cronSchedule": "0 * * * *", "thresholdAmount": "100"}))
    assert rule.status_code == 201, rule.json()
    rule = rule.json()
    assert rule["trigger"] == {"cronSchedule": "0 * * * *", "thresholdAmount": "100", "type": "THRESHOLD_BASED"}
    assert api.get(f"/automation-rules/{rule['id']}").json() == rule
    wallet = setup["service"]["paymentAccountId"]
    # Reached between two runs: nothing fires before the schedule says so.
    api.post(f"/test-helpers/payment-accounts/{wallet}/fund", {"currency": "USDC", "amount": "160"})
    assert api.post("/test-helpers/automation-rules/run").json()["fired"] == []
    clock.advance(3600)
    run = api.post("/test-helpers/automation-rules/run").json()
    assert [item["ruleId"] for item in run["fired"]] == [rule["id"]]
    # 110 left: the next run fires again (the schedule spaces the firings) ...
    clock.advance(3600)
    assert len(api.post("/test-helpers/automation-rules/run").json()["fired"]) == 1
    # ... and a run that finds 60, below the threshold, does not.
    clock.advance(3600)
    assert api.post("/test-helpers/automation-rules/run").json()["fired"] == []
