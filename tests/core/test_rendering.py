"""core.forms writes every select, checkbox, radio button and input as Django's widget templates
would, without them."""

import pytest
from django import forms
from django.forms.renderers import DjangoTemplates, get_default_renderer
from django.test.html import parse_html
from django.test.signals import template_rendered

from audit.filters import AuditEventFilter
from core.forms import FormRenderer
from customers.filters import QueueFilter
from customers.forms.casework import DecisionForm
from customers.forms.create import CustomerCreate
from customers.forms.kyb import KybForm, PersonForm
from customers.forms.kyc import KycForm
from payments.filters import ApprovalRequestFilter, PaymentAccountFilter, TransactionFilter
from payments.forms.accounts import ExternalBankAccountForm, ExternalCryptoWalletForm, ServiceAutoFiatAccountForm
from payments.forms.rates import ExchangeRateForm
from payments.forms.rules import AutomationRuleForm
from staff.forms import TimeZoneForm

pytestmark = pytest.mark.django_db

FORMS = [
    lambda: TransactionFilter({"status": "COMPLETED", "rail": "BASE", "currency": "<b>&"}).form,
    lambda: TransactionFilter({}).form,
    lambda: PaymentAccountFilter({"status": "ACTIVE", "account_type": "EXTERNAL_BANK_ACCOUNT"}).form,
    lambda: ApprovalRequestFilter({"kind": "no-such-kind"}).form,
    lambda: AuditEventFilter({"actor": "<script>", "since": "2026-11-01"}).form,
    lambda: (
        QueueFilter({"status": ["UNDER_REVIEW", "REJECTED"], "view": "all", "sla": "<x>", "kind": "screening"}).form
    ),
    lambda: KycForm({"kyc-nationality": "FR", "kyc-country_of_tax_residence": "nowhere"}, prefix="kyc"),
    lambda: KybForm({"registration_country": "DE"}),
    lambda: PersonForm(),
    lambda: CustomerCreate().form,
    lambda: TimeZoneForm({"time_zone": "Asia/Tokyo"}),
    lambda: ExchangeRateForm({"source_payment_method": "BASE"}),
    lambda: ExternalBankAccountForm(),
    lambda: ExternalCryptoWalletForm(),
    lambda: ServiceAutoFiatAccountForm({"destination_currencies": ["USDC"]}),
    lambda: AutomationRuleForm(),
    lambda: DecisionForm({"kind": "approve"}),
    lambda: DecisionForm({"kind": "<b>"}),
]


def _rendered(form, renderer) -> dict:
    form.renderer = renderer
    form.is_valid()  # bound forms show their errors (aria-invalid), as on the page
    return {bound.name: str(bound) for bound in form}


@pytest.mark.parametrize("make", FORMS, ids=range(len(FORMS)))
def test_every_field_renders_as_djangos_templates_do(make):
    ours, djangos = _rendered(make(), FormRenderer()), _rendered(make(), DjangoTemplates())
    assert ours.keys() == djangos.keys()
    for name, html in ours.items():
        assert parse_html(html) == parse_html(djangos[name]), name


def _templates_rendered(render) -> int:
    seen = []

    def count(sender, **kwargs):
        seen.append(kwargs["template"].name)

    template_rendered.connect(count)
    try:
        render()
    finally:
        template_rendered.disconnect(count)
    return len(seen)


def test_a_country_select_is_written_without_a_template():
    ours, djangos = KycForm(prefix="kyc"), KycForm(prefix="kyc")
    ours.renderer, djangos.renderer = FormRenderer(), DjangoTemplates()
    html = str(ours["nationality"])
    assert html.count("<option") == len(ours.fields["nationality"].choices) > 200
    assert _templates_rendered(lambda: str(ours["nationality"])) == 0
    assert _templates_rendered(lambda: str(djangos["nationality"])) > 200


def test_checkboxes_and_radio_buttons_are_written_without_a_template():
    ours = QueueFilter({"status": ["UNDER_REVIEW"]}).form
    ours.renderer = FormRenderer()
    fields = [bound for bound in ours if bound.field.widget.input_type in ("checkbox", "radio")]
    assert fields, "the queue's filter form has checkboxes"
    assert _templates_rendered(lambda: [str(bound) for bound in fields]) == 0
    radios = DecisionForm()
    radios.renderer = FormRenderer()
    assert 'type="radio"' in str(radios["kind"])
    assert _templates_rendered(lambda: str(radios["kind"])) == 0


INPUTS = [
    forms.TextInput(attrs={"flag": True, "off": False, "none": None, "zero": 0, "odd": '<"&>'}),
    forms.TextInput(attrs={"type": "search", "autocomplete": "off"}),
    forms.DateInput(attrs={"type": "date"}),
    forms.NumberInput(),
    forms.EmailInput(),
    forms.URLInput(),
    forms.HiddenInput(),
    forms.PasswordInput(render_value=True),
    forms.CheckboxInput(),
]


@pytest.mark.parametrize("widget", INPUTS, ids=lambda w: type(w).__name__)
@pytest.mark.parametrize("value", [None, "", 'a"<b>&', 0, 12.5, True, False])
def test_an_input_is_written_byte_for_byte_as_djangos_template_writes_it(widget, value):
    attrs = {"id": "id_<x>", "required": True, "aria-describedby": "id_x_helptext"}
    ours = widget.render('x"<', value, attrs=attrs, renderer=FormRenderer())
    assert ours == widget.render('x"<', value, attrs=attrs, renderer=DjangoTemplates())
    assert _templates_rendered(lambda: widget.render("x", value, renderer=FormRenderer())) == 0


def test_a_chosen_value_is_selected_and_text_escaped():
    form = TransactionFilter({"rail": "BASE"}).form
    form.renderer = FormRenderer()
    assert '<option value="BASE" selected>' in str(form["rail"])
    form = AuditEventFilter({"actor": "<script>"}).form
    form.renderer = FormRenderer()
    assert "<script>" not in "".join(str(bound) for bound in form)


def test_the_project_renders_forms_with_it():
    assert isinstance(get_default_renderer(), FormRenderer)


def test_fixed_choices_are_shared_by_each_form_and_still_checked():
    first, second = KybForm({"registration_country": "DE"}), KybForm({"registration_country": "XX"})
    choices = first.fields["registration_country"].choices
    assert choices is second.fields["registration_country"].choices  # no copy per form
    assert first.fields["registration_country"].widget.choices is choices
    assert len(choices) > 200 and ("DE", "Germany") in list(choices)
    first.is_valid(), second.is_valid()
    assert "registration_country" not in first.errors and "registration_country" in second.errors


@pytest.mark.parametrize("value", [None, "", "DE", "XX", "<b>", ["FR", "DE"], 3])
@pytest.mark.parametrize("required", [False, True])
def test_a_select_of_fixed_choices_writes_what_select_html_writes(value, required):
    from core.forms import FixedChoices, FixedSelect

    pairs = [("", "—"), ("DE", "Germany"), ("FR", "France & <Co>"), ("3", "Three"), (None, "None"), ("DE", "Again")]
    fixed, listed = FixedSelect(choices=FixedChoices(pairs)), forms.Select(choices=pairs)
    attrs = {"id": "id_x", "required": required, "aria-describedby": "id_x_helptext"}
    ours = fixed.render("x", value, attrs=attrs, renderer=FormRenderer())
    assert ours == listed.render("x", value, attrs=attrs, renderer=FormRenderer())
    djangos = fixed.render("x", value, attrs=attrs, renderer=DjangoTemplates())
    assert djangos == listed.render("x", value, attrs=attrs, renderer=DjangoTemplates())
    assert parse_html(ours) == parse_html(djangos)
    assert _templates_rendered(lambda: fixed.render("x", value, renderer=FormRenderer())) == 0
