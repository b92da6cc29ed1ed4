"""`{% filter_input %}` writes a filter's select as Django's widget templates would."""

import pytest
from django.test.html import parse_html

from core.filters import AuditEventFilter
from core.templatetags.filter_inputs import filter_input
from payments.filters import ApprovalRequestFilter, PaymentAccountFilter, TransactionFilter

pytestmark = pytest.mark.django_db

FILTERS = [
    (TransactionFilter, {"status": "COMPLETED", "rail": "BASE", "currency": "<b>&"}),
    (TransactionFilter, {}),
    (PaymentAccountFilter, {"status": "ACTIVE", "account_type": "EXTERNAL_BANK_ACCOUNT"}),
    (ApprovalRequestFilter, {"kind": "no-such-kind"}),
    (AuditEventFilter, {"actor": "<script>", "since": "2026-11-01"}),
]


@pytest.mark.parametrize(("filterset", "data"), FILTERS, ids=lambda v: getattr(v, "__name__", repr(v)))
def test_every_field_renders_as_djangos_widget_does(filterset, data):
    form = filterset(data).form
    form.is_valid()
    for bound in form:
        assert parse_html(str(filter_input(bound))) == parse_html(str(bound.as_widget())), bound.name


def test_a_select_is_written_without_widget_templates(django_assert_num_queries):
    bound = TransactionFilter({"rail": "BASE"}).form["rail"]
    html = str(filter_input(bound))
    assert '<option value="BASE" selected>' in html and html.count("<option") == len(list(bound.field.choices))
