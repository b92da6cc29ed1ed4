"""Hostile input on every form of the role matrix: never a 5xx, refusals leave the mirror as it
was, and whatever is echoed back is escaped.

For each POST of the matrix, the allowed role sends its valid body with one field at a time
replaced by something hostile: 100,000 characters, a list where one value is expected
(repeated keys), letters in numbers, impossible dates, unknown choices, markup, SQL
metacharacters, NUL; file fields get traversal names and non-images renamed .png/.jpg.
The KYC/KYB document fields also get a 100 MB + 1 byte upload (streamed, never in memory).
"""

from dataclasses import dataclass, field

import pytest
from django import forms
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from customers.forms.fields import DocumentField
from customers.forms.kyb import BusinessDocumentForm, KybForm, PersonForm
from customers.forms.kyc import IdentityDocumentForm, KycForm
from payments.forms.accounts import ACCOUNT_FORMS
from payments.forms.rules import AutomationRuleForm
from tests.payments.transactions_helpers import sandbox_customer
from tests.security.common import (
    MATRIX,
    POSTS,
    RAW_XSS,
    SQL,
    XSS,
    allowed_role,
    mirror_fingerprint,
    multipart_file,
    post_streamed,
    url_of,
)

pytestmark = pytest.mark.django_db

LONG = "x" * 100_000
# The POSTs that take no input: anything sent is ignored.
FORMLESS = {
    "customers-refresh-customer",
    "payments-refresh-payment-account",
    "payments-refresh-transaction",
    "mirror-replay-inbox-event",
    "staff-deactivate-staff",
    "staff-reactivate-staff",
    "staff-reset-staff-mfa",
    "staff-unlock-staff",
    "staff-create-staff-password-link",
    "payments-approve-approval-request",
    "payments-withdraw-approval-request",
    "notifications-read-all",
    "notifications-open-notification",
    "notifications-test-destination",
    "notifications-retry-delivery",
    "monitoring-submit-rule",
    "monitoring-withdraw-rule",
    "monitoring-approve-rule",
    "monitoring-pause-rule",
    "monitoring-resume-rule",
    "monitoring-backtest-rule",
}
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
HUNDRED_MB_PLUS_ONE = 100 * 1024 * 1024 + 1


@dataclass
class Target:
    """One form behind a URL: its fields as posted (name → form field) and a valid body."""

    url: str
    fields: dict
    base: dict = field(default_factory=dict)
    multipart: bool = False


def _fields(form_class, prefix: str = "") -> dict:
    form = form_class(prefix=prefix or None) if prefix else form_class()
    return {form.add_prefix(name): f for name, f in form.fields.items()}


def _kyb_management(persons=1, documents=1) -> dict:
    return {
        "persons-TOTAL_FORMS": str(persons),
        "persons-INITIAL_FORMS": "0",
        "documents-TOTAL_FORMS": str(documents),
        "documents-INITIAL_FORMS": "0",
    }


def targets(name: str, upstream) -> list[Target]:
    """The forms behind the POST `name`, with a body that passes the back-office's checks."""
    access = MATRIX[name]
    base = access.data() if access.data else {}
    if name == "staff-create-staff":
        from staff.forms import AddMemberForm

        return [Target(url_of(name), _fields(AddMemberForm), base)]
    if name == "staff-change-staff-roles":
        from staff.forms import RolesForm

        return [Target(url_of(name), _fields(RolesForm), base)]
    if name == "customers-edit-kyc":
        fields = _fields(KycForm)
        body = {"legal_first_name": "Ada"}
        fields.update(_fields(IdentityDocumentForm, "kyc_documents-0"))  # further documents, as rows
        management = {"kyc_documents-TOTAL_FORMS": "1", "kyc_documents-INITIAL_FORMS": "0"}
        fields.update({key: forms.IntegerField() for key in management})
        body.update(management)
        return [Target(url_of(name), fields, body, multipart=True)]
    if name == "customers-edit-kyb":
        fields = {
            **_fields(KybForm, "kyb"),
            **_fields(PersonForm, "persons-0"),
            **_fields(BusinessDocumentForm, "documents-0"),
        }
        fields.update({key: forms.IntegerField() for key in _kyb_management()})
        body = {**_kyb_management(), "kyb-legal_business_name": "Acme Ltd", "persons-0-legal_first_name": "Ada"}
        return [Target(url_of(name), fields, body, multipart=True)]
    if name == "customers-create-customer":
        from customers.forms.create import CustomerCreateForm

        body = {"customer_type": "INDIVIDUAL", "email": "ada@example.com", "first_name": "Ada", "last_name": "L"}
        found = [Target(url_of(name), _fields(CustomerCreateForm), body)]
        # The KYC or KYB data may go with the creation: the same page, prefixed fields.
        kyc = {**_fields(CustomerCreateForm), **_fields(KycForm, "kyc")}
        found.append(Target(url_of(name), kyc, {**body, "kyc-legal_first_name": "Ada"}, multipart=True))
        kyb = {**_fields(CustomerCreateForm), **_fields(KybForm, "kyb"), **_fields(PersonForm, "persons-0")}
        business = {"customer_type": "BUSINESS", "email": "b@example.com", "business_name": "Acme"}
        found.append(Target(url_of(name), kyb, {**business, **_kyb_management(1, 0)}, multipart=True))
        return found
    if name in ("customers-claim-next-case",):
        from customers.filters import QueueFilter

        return [
            Target(url_of(name), {**_fields(QueueFilter().get_form_class()), "return_query": forms.CharField()}, base)
        ]
    if name == "customers-assign-customer":
        from customers.forms.casework import AssignForm

        return [Target(url_of(name), {**_fields(AssignForm), "claim": forms.CharField()}, {})]
    if name == "customers-add-note":
        from customers.forms.casework import NoteForm

        return [Target(url_of(name), _fields(NoteForm), base)]
    if name == "customers-decide-customer":
        from customers.forms.casework import DecisionForm

        return [Target(url_of(name), _fields(DecisionForm), base)]
    if name == "customers-bulk-assign":
        from customers.forms.casework import BulkAssignForm

        return [Target(url_of(name), {**_fields(BulkAssignForm), "back": forms.CharField()}, base)]
    if name == "customers-record-handout":
        from customers.forms.casework import HandoutForm

        return [Target(url_of(name), _fields(HandoutForm), base)]
    if name == "payments-create-payment-account":
        customer = sandbox_customer(upstream, name="Grace", with_accounts=False)["customer_id"]
        bodies = {
            "EXTERNAL_BANK_ACCOUNT": {
                "entry": "DETAILS",
                "bank_account_type": "CHECKING",
                "owner_name": "Grace",
                "currency": "USD",
                "payment_method": "ACH",
                "account_number": "000123456789",
                "routing_number": "021000021",
            },
            "EXTERNAL_CRYPTO_WALLET": {"chain": "BASE", "currency": "USDC", "address": "0x" + "ab" * 20},
            "SERVICE_CRYPTO_WALLET": {"chain": "BASE"},
            "SERVICE_AUTO_FIAT_ACCOUNT": {"currency": "USD", "destination_currencies": ["USDC"]},
        }
        return [
            Target(
                url_of(name),
                {**_fields(form_class), "account_type": forms.ChoiceField()},
                {"account_type": kind, "customer_id": customer, **bodies[kind]},
            )
            for kind, form_class in ACCOUNT_FORMS.items()
        ]
    if name in ("payments-create-automation-rule", "payments-edit-automation-rule", "payments-create-quote"):
        setup = sandbox_customer(upstream)
        wallet, bank = setup["wallet"]["paymentAccountId"], setup["bank"]["paymentAccountId"]
        if name == "payments-create-quote":
            from payments.forms.transactions import QuoteForm

            fields = {**QuoteForm.base_fields, "customer": forms.CharField()}
            body = {
                "customer": setup["customer_id"],
                "source_account": bank,
                "source_method": "ACH",
                "source_currency": "USD",
                "destination_account": wallet,
                "destination_method": "BASE",
                "destination_currency": "USDC",
                "amount": "100.00",
            }
            return [Target(url_of(name), fields, body)]
        body = {
            "name": "Sweep",
            "customer_id": setup["customer_id"],
            "source_account_id": wallet,
            "source_payment_method": "BASE",
            "source_currency": "USDC",
            "destination_account_id": bank,
            "destination_payment_method": "ACH",
            "destination_currency": "USD",
            "amount": "50.00",
            "trigger_type": "CRON",
            "cron_schedule": "0 9 * * 1-5",
        }
        if name == "payments-edit-automation-rule":
            from payments.models import AutomationRule

            rule = AutomationRule.objects.get(pk=MATRIX[name].kwargs()["pk"])
            rule.customer_upstream_id = setup["customer_id"]
            rule.save(update_fields=["customer_upstream_id"])
            return [Target(reverse(name, kwargs={"pk": rule.pk}), _fields(AutomationRuleForm), body)]
        return [Target(url_of(name), _fields(AutomationRuleForm), body)]
    if name == "payments-execute-quote":
        from payments.forms.transactions import ExecuteForm

        return [Target(url_of(name), _fields(ExecuteForm), base)]
    if name == "payments-cancel-transaction":
        from payments.forms.transactions import CancelForm

        return [Target(url_of(name), _fields(CancelForm), base)]
    if name == "payments-reject-approval-request":
        from payments.forms.approvals import RejectForm

        return [Target(url_of(name), _fields(RejectForm), base)]
    if name == "payments-bulk-cancel-transactions":
        from payments.forms.transactions import BulkCancelForm

        return [Target(url_of(name), _fields(BulkCancelForm), base)]
    if name == "staff-set-time-zone":
        from staff.forms import TimeZoneForm

        return [Target(url_of(name), _fields(TimeZoneForm), {"time_zone": "Europe/Berlin"})]
    if name == "notifications-preferences":
        from notifications.kinds import KINDS
        from notifications.models import Choice

        return [Target(url_of(name), {code: forms.ChoiceField(choices=Choice.choices) for code in KINDS}, base)]
    if name in ("notifications-list-destinations", "notifications-change-destination"):
        from notifications.forms import DestinationForm

        return [Target(url_of(name), _fields(DestinationForm), base)]
    if name in ("payments-hold-payment-account", "payments-release-payment-account", "monitoring-hold-alert-account"):
        from payments.forms.approvals import HoldForm

        return [Target(url_of(name), _fields(HoldForm), base)]
    if name == "monitoring-decide-alert":
        from monitoring.forms import DecideForm

        return [Target(url_of(name), _fields(DecideForm), base)]
    if name in ("monitoring-create-rule", "monitoring-edit-rule"):
        from monitoring.forms import RuleForm

        fields = {**_fields(lambda: RuleForm(kind="large_transfer")), "kind": forms.ChoiceField()}
        return [Target(url_of(name), fields, base)]
    if name in ("monitoring-import-watchlist", "monitoring-reimport-watchlist"):
        from monitoring.forms import ImportForm

        fields = {n: f for n, f in ImportForm().fields.items() if not isinstance(f, forms.FileField)}
        return [Target(url_of(name), fields, {"name": "A list", "match_threshold": "90"})]
    # Actions without a form (refresh, replay): junk fields must be ignored.
    assert name in FORMLESS, f"{name}: a new POST of the matrix needs its hostile cases here"
    return [Target(url_of(name), {"unexpected": forms.CharField()}, base)]


def variants(f: forms.Field) -> list:
    """Hostile values for one field, by its kind."""
    if isinstance(f, DocumentField):
        return [
            SimpleUploadedFile("../../etc/passwd.png", PNG, content_type="image/png"),
            SimpleUploadedFile("../../etc/passwd.png", b"root:x:0:0:root:/root:/bin/bash\n", content_type="image/png"),
            SimpleUploadedFile("scan.jpg", b"<?php system($_GET['c']); ?>", content_type="image/jpeg"),
            SimpleUploadedFile("scan.png", b"<script>alert(1)</script>", content_type="image/png"),
            SimpleUploadedFile(f"{XSS[1]}.png", b"GIF89a not a png", content_type="image/png"),
            SimpleUploadedFile("empty.png", b"", content_type="image/png"),
        ]
    if isinstance(f, forms.DecimalField | forms.IntegerField | forms.FloatField):
        return ["12abc", "NaN", "1e999999", "9" * 100_000, ["1", "2"]]
    if isinstance(f, forms.DateField):
        return ["2026-02-31", "9" * 100_000, ["2020-01-01", "x"]]
    if isinstance(f, forms.MultipleChoiceField | forms.ModelMultipleChoiceField):
        return [["NOT_A_CHOICE"], [SQL, XSS[0]], [LONG]]
    if isinstance(f, forms.ChoiceField | forms.ModelChoiceField):
        return ["NOT_A_CHOICE", XSS[0], SQL + "\ufffe", LONG, ["a", "b"]]
    if isinstance(f, forms.BooleanField):
        return ["maybe", ["on", "off"], LONG]
    return [LONG, *XSS, SQL + " \ud7ff\ufffe", "a\x00b", ["first", "second"]]


def _kept_variants(name: str) -> list[tuple[str, str]]:
    """A kept document (hidden data URI) that is not one: bad base64, HTML, oversized."""
    return [
        (f"{name}_kept", "data:image/png;base64,!!!not-base64"),
        (f"{name}_kept", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="),
        (f"{name}_kept", "data:image/png;base64," + "A" * 100_000),
        (f"{name}_kept", XSS[1]),
    ]


def check(client, response, before: str, label) -> None:
    """Never 5xx; a refusal changes nothing; markup never comes back raw."""
    assert response.status_code < 500, (label, response.status_code)
    pages = [response]
    if response.status_code == 302 and response["Location"].startswith("/"):
        pages.append(client.get(response["Location"]))
        assert pages[-1].status_code < 500, (label, response["Location"])
    for page in pages:
        if getattr(page, "streaming", False):
            continue
        html = page.content.decode(errors="replace")
        for raw in RAW_XSS:
            assert raw not in html, (label, raw)
    if refused(response, pages[-1]):
        assert mirror_fingerprint() == before, (label, "a refused request changed the mirror")


def refused(response, final) -> bool:
    """Did the back-office refuse? A 4xx; a redirect to a page with an error message; or the
    form page again, with errors (a 200 without any is an htmx fragment of a success)."""
    if response.status_code >= 400:
        return True
    if response.status_code == 302:
        return "msg-error" in final.content.decode(errors="replace")
    context = response.context or {}
    for key in ("form", "edit", "create", "error", "errors", "cancel_form"):
        value = context.get(key) if hasattr(context, "get") else None
        if isinstance(value, forms.BaseForm) and value.errors:
            return True
        if key in ("edit", "create") and value is not None and (value.top_errors or not value.is_valid()):
            return True
        if isinstance(value, str | list) and value:
            return True
    return False


def test_every_post_of_the_matrix_has_hostile_cases():
    """Each POST is a form described in `targets`, or one of the actions without a form."""
    assert set(POSTS) >= FORMLESS
    assert len(POSTS) >= 17


# Past this many fields a form's page is slow to render (the KYC/KYB editors: ~0.3 s a page):
# the i-th hostile value of every field goes in one request instead of one field at a time.
# The KYC/KYB forms' validation is also driven field by field in test_kyc_properties.py.
PER_FIELD_LIMIT = 20


def hostile_bodies(target: Target):
    """(label, body) pairs: one hostile field at a time, or every field at once for big forms."""
    if len(target.fields) <= PER_FIELD_LIMIT:
        for field_name, form_field in target.fields.items():
            for value in variants(form_field):
                yield (field_name, repr(value)[:60]), {**target.base, field_name: value}
            if isinstance(form_field, DocumentField):
                for kept_name, value in _kept_variants(field_name):
                    yield (kept_name, value[:40]), {**target.base, kept_name: value}
        return
    rounds = max(len(variants(f)) for f in target.fields.values())
    for i in range(rounds):
        body = dict(target.base)
        for field_name, form_field in target.fields.items():
            values = variants(form_field)
            if i < len(values):
                body[field_name] = values[i]
        yield ("every field", i), body
    documents = [n for n, f in target.fields.items() if isinstance(f, DocumentField)]
    for i in range(len(_kept_variants("x"))):
        body = {**target.base, **dict(_kept_variants(n)[i] for n in documents)}
        yield ("every kept document", i), body


@pytest.mark.parametrize("name", POSTS)
def test_hostile_values_in_every_field(client_as, upstream, name):
    client = client_as(allowed_role(name))
    for target in targets(name, upstream):
        for label, body in hostile_bodies(target):
            before = mirror_fingerprint()
            response = client.post(target.url, body)
            check(client, response, before, (name, *label))


@pytest.mark.parametrize("name", POSTS)
def test_htmx_posts_get_the_same_answers(client_as, upstream, name):
    """An htmx request takes other template branches: the same hostile text, HX-Request on."""
    client = client_as(allowed_role(name))
    for target in targets(name, upstream):
        text = [n for n, f in target.fields.items() if type(f) in (forms.CharField, forms.EmailField)]
        body = {**target.base, **dict.fromkeys(text, XSS[0])}
        before = mirror_fingerprint()
        response = client.post(target.url, body, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="main")
        check(client, response, before, (name, "htmx", "all text fields"))


def test_errors_name_the_field_and_keep_markup_escaped(client_as, upstream):
    """A sample of the answers above, read closely: a clear field error, escaped."""
    client = client_as("compliance")
    response = client.post(reverse("customers-create-customer"), {"customer_type": "ROBOT", "email": XSS[0]})
    html = response.content.decode()
    assert response.status_code == 200
    assert "Select a valid choice. ROBOT is not one of the available choices." in html
    assert "Enter a valid email address." in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and XSS[0] not in html


def test_kyb_management_form_tampering_is_a_clear_error(client_as):
    from tests.factories import CustomerFactory

    customer = CustomerFactory(business=True)
    url = reverse("customers-edit-kyb", args=[customer.customer_id])
    client = client_as("compliance")
    cases = [("abc", "persons"), (LONG, "documents"), ("99999999", "")]
    for total, add_row in cases:
        body = {**_kyb_management(), "persons-TOTAL_FORMS": total, "documents-TOTAL_FORMS": total}
        if add_row:
            body["add_row"] = add_row
        response = client.post(url, body)
        assert response.status_code == 200, (total, add_row)
        # At most 20 rows of each kind, whatever the browser claims.
        assert response.content.decode().count('name="persons-') <= 20 * 40, (total, add_row)


@pytest.mark.parametrize(
    ("name", "file_field"),
    [("customers-edit-kyc", "front_image"), ("customers-edit-kyb", "documents-0-document_image")],
)
def test_a_100_mb_upload_is_a_clear_field_error(client_as, name, file_field):
    from tests.factories import CustomerFactory

    kind = "INDIVIDUAL" if name.endswith("kyc") else "BUSINESS"
    customer = CustomerFactory(customer_type=kind)
    fields = (
        {"legal_first_name": "Ada"} if kind == "INDIVIDUAL" else {**_kyb_management(0, 1), "documents-0-type": "other"}
    )
    content_type, body = multipart_file(fields, file_field, "../../huge.png", HUNDRED_MB_PLUS_ONE, filler=b"\x89")
    client = client_as("compliance")
    before = mirror_fingerprint()
    response = post_streamed(client, reverse(name, args=[customer.customer_id]), content_type=content_type, body=body)
    assert response.status_code == 200
    html = response.content.decode()
    assert "huge.png is 100.0 MB; the limit is 10 MB. Upload a smaller scan." in html
    assert "../" not in html.split("huge.png")[0][-10:]
    assert mirror_fingerprint() == before


def test_a_100_mb_form_body_is_refused_with_a_message(client_as):
    from tests.factories import CustomerFactory
    from tests.security.common import StreamedBody

    customer = CustomerFactory()
    client = client_as("compliance")
    body = StreamedBody(b"body=", HUNDRED_MB_PLUS_ONE, b"")
    before = mirror_fingerprint()
    response = post_streamed(
        client,
        reverse("customers-add-note", args=[customer.customer_id]),
        content_type="application/x-www-form-urlencoded",
        body=body,
    )
    assert response.status_code in (400, 413)
    assert "too large" in response.content.decode()
    assert mirror_fingerprint() == before


def test_a_traversal_file_name_is_never_used_as_a_path(client_as, tmp_path, settings):
    """The upload's name is not a path anywhere: nothing is written under MEDIA_ROOT."""
    from tests.factories import CustomerFactory

    settings.MEDIA_ROOT = str(tmp_path)
    customer = CustomerFactory(status="NEEDS_ADDITIONAL_INFORMATION")
    client = client_as("compliance")
    upload = SimpleUploadedFile("../../../../tmp/evil.png", PNG, content_type="image/png")
    response = client.post(
        reverse("customers-edit-kyc", args=[customer.customer_id]),
        {"front_image": upload, "document_type": "GOVERNMENT_ID", "legal_first_name": "Ada"},
    )
    assert response.status_code < 500
    assert list(tmp_path.iterdir()) == []


def test_a_nul_in_the_address_or_a_cookie_is_refused(client_as):
    """PostgreSQL holds no NUL in text: ids in URLs, query parameters and the session key
    would reach a lookup with one. Every page refuses them first (400), on every database."""
    from tests.security.common import GETS

    client = client_as("admin")
    for name in [*GETS, *POSTS]:
        access = MATRIX[name]
        kwargs = access.kwargs() if access.kwargs else {}
        method = getattr(client, access.method)
        tainted = {key: "a\x00b" if isinstance(value, str) else value for key, value in kwargs.items()}
        urls = [f"{reverse(name, kwargs=kwargs or None)}?q=%00&customer=x%00y&source=%00"]
        if tainted != kwargs:
            urls.append(reverse(name, kwargs=tainted))
        for url in urls:
            response = method(url)
            assert response.status_code == 400, (name, url, response.status_code)
            assert "The request was refused" in response.content.decode()
    client.cookies["sessionid"] = "abc\x00def"
    assert client.get(reverse("home")).status_code == 400


def test_a_nul_in_a_posted_id_is_refused_without_a_query(client_as):
    response = client_as("operations").post(reverse("payments-create-quote"), {"customer": "a\x00b"}, follow=True)
    assert "Choose an active customer first." in response.content.decode()
