"""Automation rules: list per customer and source account; create and edit (admin), each a
request another manage_rules holder approves."""

import functools

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from core.access import role_required
from core.views import filtered_page, page_or_partial

from ..filters import AutomationRuleFilter
from ..forms.rules import AutomationRuleForm, trigger_words
from ..models import AutomationRule, PaymentAccount
from ..rails import FIAT_CURRENCIES, TOKENS
from ..selectors import RULE_CORRELATION_PREFIX, accounts_by_id, transactions_listed
from ..services.approvals import approval_request_rule_change, approval_request_rule_create
from ..services.holds import AccountHeld

PAGE_SIZE = 50


@role_required("view_payments")
@require_GET
def list_automation_rules(request):
    rules = AutomationRule.objects.select_related("customer")
    filterset, page = filtered_page(request, AutomationRuleFilter, rules, ordering=("-id",), size=PAGE_SIZE)
    ends = []
    for rule in page.items:
        rule.trigger_words = trigger_words(rule.terms)
        ends += [rule.terms.source_account_id, rule.terms.destination_account_id]
    template = page_or_partial(request, "payments/rules/list.html")
    return render(request, template, {"filter": filterset, "page": page, "accounts": accounts_by_id(*ends)})


@role_required("view_payments")
@require_GET
def view_automation_rule(request, pk):
    """One rule: what it does, its accounts by name, the transactions it made, its history."""
    rule = get_object_or_404(AutomationRule.objects.select_related("customer"), pk=pk)
    context = {
        "rule": rule,
        "trigger_words": trigger_words(rule.terms),
        "accounts": accounts_by_id(rule.terms.source_account_id, rule.terms.destination_account_id),
        "transactions": transactions_listed().filter(correlation_id=f"{RULE_CORRELATION_PREFIX}{rule.rule_id}")[:20],
        "history": rule.changes.order_by("-recorded_at", "-id")[:50],
    }
    return render(request, "payments/rules/show.html", context)


def _initial_from_source(account_id: str, customer_id: str) -> dict:
    """Prefill the source side from a mirrored account (the "New rule from this account" link)."""
    initial = {"customer_id": customer_id, "source_account_id": account_id, "trigger_type": "CRON"}
    account = PaymentAccount.objects.filter(account_id=account_id).first() if account_id else None
    if account is None:
        return initial
    details = account.details or {}
    chain = (details.get("address") or {}).get("chain")
    currency = details.get("currency") or details.get("bankAccountCurrency") or {}
    initial["customer_id"] = account.customer_upstream_id
    initial["source_payment_method"] = chain or details.get("bankAccountPaymentMethod") or ""
    initial["source_currency"] = currency.get("label", "") if isinstance(currency, dict) else currency
    return initial


def _render_form(request, form, rule=None):
    return render(
        request,
        "payments/rules/form.html",
        {
            "form": form,
            "rule": rule,
            "cron_words": form.cron_words(),
            "next_runs": form.cron_next_runs(),
            "zone": timezone.get_current_timezone_name(),
            "currencies": [*TOKENS, *FIAT_CURRENCIES],
        },
    )


@role_required("manage_rules")
@require_http_methods(["GET", "POST"])
def create_automation_rule(request):
    """The form of a new rule (GET, `source` and `customer` prefill it) and its creation (POST)."""
    if request.method == "POST":
        return _create_automation_rule(request)
    initial = _initial_from_source(request.GET.get("source", ""), request.GET.get("customer", ""))
    return _render_form(request, AutomationRuleForm(initial=initial | _typed(request)))


def _typed(request) -> dict:
    """What was typed before "Update choices" (or the choice of a customer) asked for the form
    again with the chosen customer's accounts."""
    return {name: request.GET[name] for name in AutomationRuleForm.base_fields if request.GET.get(name)}


def _create_automation_rule(request):
    """Rules move money on their own: the rule is written upstream only when another person
    holding manage_rules approves the request made here (payments.services.approvals)."""
    form = AutomationRuleForm(request.POST)

    def ask(**fields):
        return approval_request_rule_create(customer_id=form.cleaned_data["customer_id"].strip(), **fields)

    return _ask_approval(request, form, ask)


def _ask_approval(request, form, ask, rule=None):
    """With `form` valid, the request `ask(actor=, name=, template=, trigger=)` makes (a new rule,
    or the change of `rule`), its page next; else the form again, with its errors or the hold of
    an account that refuses the request."""
    if form.is_valid():
        name = form.cleaned_data["name"]
        try:
            approval = ask(actor=request.user, name=name, template=form.template(), trigger=form.trigger())
        except AccountHeld as exc:
            form.add_error(None, str(exc))
        else:
            what = f"The change to “{rule.name}”" if rule else f"Rule “{name}”"
            messages.success(request, f"{what} waits for approval by another person.")
            return redirect("payments-view-approval-request", pk=approval.pk)
    return _render_form(request, form, rule)


@role_required("manage_rules")
@require_http_methods(["GET", "POST"])
def edit_automation_rule(request, pk):
    """The rule's form (GET) and its update (POST: the API replaces the whole rule)."""
    rule = get_object_or_404(AutomationRule, pk=pk)
    if request.method == "POST":
        return _update_automation_rule(request, rule)
    typed = {name: value for name, value in _typed(request).items() if name != "customer_id"}
    form = AutomationRuleForm(initial=AutomationRuleForm.initial_from(rule) | typed, editing=True)
    return _render_form(request, form, rule)


def _update_automation_rule(request, rule: AutomationRule):
    """As for a new rule, the change waits for another person's approval."""
    form = AutomationRuleForm(request.POST, initial=AutomationRuleForm.initial_from(rule), editing=True)
    return _ask_approval(request, form, functools.partial(approval_request_rule_change, rule=rule), rule)
