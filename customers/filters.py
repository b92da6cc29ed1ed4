"""The review queue's filters (django-filter), which the queue page, its CSV export, "Next case"
and bench/pages.py share.

Which customers are cases, before any other filter (`QueueFilter.cases`):
- "Needs a person" (`view=queue`, the default without a status; with a status only when asked
  for): the verification cases (selectors.needs_person_q) and the customers with open alerts
  (`kind`), an escalated one left to the escalations view. "All customers" (`view=all`, the
  default once a status is chosen): every customer, `kind` then keeps those with open alerts
  of that kind.
- `kind`: verification (the review of the customer's data), monitoring (open transaction
  monitoring alerts), screening (open watch-list screening alerts). The alert counts are
  columns of the customer that monitoring keeps in the transaction that raises or decides an
  alert (customers never reads monitoring's tables), each with partial indexes in both orders.
- `status`: several at once; in "Needs a person" only those that may need one are read.
- `sla` (breached / due within 2 hours), `decided` (a decision on that UTC day), `type`,
  `organization`, `issue` (an open issue's code), `updated_since` (UTC day), `assignee` (me,
  unassigned, a colleague), `q` (the first SEARCH_CANDIDATES customers whose name or e-mail
  starts with it).
- `sort`: age (oldest in state first, the queue's default) or updated (newest update first,
  the default of "All customers"); both end in the pk, for keyset pages (`ordering`).

An invalid filter leaves the page on the default queue and says which (the form's errors).
"""

import datetime as dt

import django_filters
from django import forms
from django.db.models import Q, QuerySet
from django.utils import timezone

from core import labels
from core.forms import SuggestInput, date_input

from . import choices, selectors
from .forms.casework import colleague_names
from .models import OPEN_ALERT_COLUMNS, CaseKind, CustomerStatus, CustomerType

VIEWS = [("queue", "Needs a person"), ("all", "All customers")]
SORTS = [("age", "Oldest in state first"), ("updated", "Last update first")]
ASSIGNEES = [("", "Anyone"), ("me", "Me"), ("none", "Unassigned")]
SLA = [("breached", "Over SLA"), ("due", "SLA ends within 2 hours")]


def alerts_q(kind: str) -> Q:
    return Q(**{f"{OPEN_ALERT_COLUMNS[kind]}__gt": 0})


def _issue_codes():
    return [(code, labels.label(labels.ISSUE, code)) for code in sorted(choices.ISSUE_EXPLANATIONS)]


class QueueForm(forms.Form):
    """The queue's form: the colleagues read once for the assignee select and its validation."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.colleague_choices = [(str(pk), name) for pk, name in colleague_names()]
        self.fields["assignee"].choices = [*ASSIGNEES, ("Colleagues", self.colleague_choices)]
        self.fields["q"].help_text = (
            f"Looks at the first {selectors.SEARCH_CANDIDATES:,} customers whose name or e-mail starts with it: "
            "type more to narrow."
        )

    def clean_issue(self):
        return self.cleaned_data["issue"].strip().upper()

    def clean_q(self):
        return self.cleaned_data["q"].strip()

    def clean_organization(self):
        return self.cleaned_data["organization"].strip()


class QueueFilter(django_filters.FilterSet):
    # Applied together by `cases` (each depends on the others), not one by one.
    CASE_FILTERS = ("view", "kind", "status", "sort")

    view = django_filters.ChoiceFilter(label="Show", choices=VIEWS, empty_label=None)
    q = django_filters.CharFilter(
        label="Name or e-mail starts with",
        method="filter_q",
        max_length=254,
        widget=forms.TextInput(attrs={"type": "search", "autocomplete": "off"}),
    )
    kind = django_filters.ChoiceFilter(label="Case", choices=CaseKind.choices, empty_label="Any case")
    status = django_filters.MultipleChoiceFilter(
        label="Status", choices=CustomerStatus.choices, widget=forms.CheckboxSelectMultiple
    )
    type = django_filters.ChoiceFilter(
        label="Type", field_name="customer_type", choices=CustomerType.choices, empty_label="Any type"
    )
    organization = django_filters.CharFilter(label="Organization id", field_name="organization_id", max_length=64)
    issue = django_filters.CharFilter(
        label="Issue code", method="filter_issue", max_length=64, widget=SuggestInput(_issue_codes)
    )
    updated_since = django_filters.DateFilter(label="Updated since", method="filter_updated_since", widget=date_input())
    assignee = django_filters.ChoiceFilter(label="Assignee", method="filter_assignee", choices=ASSIGNEES[1:])
    sla = django_filters.ChoiceFilter(label="SLA", method="filter_sla", choices=SLA, empty_label="Any")
    decided = django_filters.DateFilter(label="Decision on", method="filter_decided", widget=date_input())
    sort = django_filters.ChoiceFilter(label="Sort", choices=SORTS, empty_label="Default")

    class Meta:
        model = selectors.Customer
        fields = []
        form = QueueForm

    def __init__(self, data=None, queryset=None, *, request=None, user=None, **kwargs):
        super().__init__(data, queryset=selectors.queue_rows() if queryset is None else queryset, request=request)
        self.user = user if user is not None else getattr(request, "user", None)

    def get_form_class(self):
        # django-filter makes a form class and a field per filter for every filter set; these
        # fields depend on nothing of the request (QueueForm sets the colleagues on its own
        # copies), so the class is made once and each form copies its fields, as any form does.
        made = type(self).__dict__.get("_made_form_class")
        if made is None:
            made = type(self)._made_form_class = super().get_form_class()
        return made

    @property
    def data_used(self) -> dict:
        """The valid filters (none when one is refused: the page shows the default queue)."""
        return self.form.cleaned_data if self.form.is_valid() else {}

    @property
    def ordering(self) -> tuple[str, ...]:
        data = self.data_used
        return selectors.ORDERINGS[data.get("sort") or ("updated" if data.get("view") == "all" else "age")]

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        data = self.data_used
        queryset = self.cases(queryset, data)
        for name, value in data.items():
            if name not in self.CASE_FILTERS:
                queryset = self.filters[name].filter(queryset, value)
        if self.ordering == selectors.ORDERINGS["updated"]:
            # Mirror rows always carry the API's updatedAt; a row without one sorts under "age".
            queryset = queryset.filter(upstream_updated_at__isnull=False)
        return queryset

    @staticmethod
    def cases(queryset: QuerySet, data: dict) -> QuerySet:
        statuses, kind = data.get("status"), data.get("kind")
        queue = data.get("view") == "queue" if statuses else data.get("view") != "all"
        if statuses:
            queryset = queryset.filter(status__in=statuses)
        if not queue:
            return queryset.filter(alerts_q(kind)) if kind in OPEN_ALERT_COLUMNS else queryset
        # Verification: only the statuses that may need a person are read (a CREATED customer
        # once it waited too long), as the home page counts them; ACTIVE or DEACTIVATED chosen
        # alone leave it out before the query rather than find it empty reading them all.
        verification = selectors.needs_person_q()
        if statuses:
            needing = [s for s in statuses if s in selectors.NEEDS_PERSON or s == CustomerStatus.CREATED]
            verification = verification & Q(status__in=needing) if needing else None
        alerts = {k: alerts_q(k) & ~selectors.escalated_q() for k in OPEN_ALERT_COLUMNS}
        if kind == CaseKind.VERIFICATION:
            wanted = [verification]
        elif kind:
            wanted = [alerts[kind]]
        else:
            wanted = [verification, *alerts.values()]
        wanted = [q for q in wanted if q is not None]
        if not wanted:
            return queryset.none()
        either = wanted[0]
        for q in wanted[1:]:
            either |= q
        return queryset.filter(either)

    def filter_q(self, queryset, name, value):
        return queryset.filter(pk__in=selectors.search_candidates(value))

    def filter_issue(self, queryset, name, value):
        statuses = self.data_used.get("status")
        if self.data_used.get("sla") == "breached":
            # filter_sla decides; these are the few that may be over (not every one with the issue).
            return queryset.filter(pk__in=selectors.with_issue_over_sla(value, statuses=statuses))
        return queryset.filter(pk__in=selectors.with_issue(value, statuses=statuses))

    def filter_updated_since(self, queryset, name, value):
        return queryset.filter(upstream_updated_at__gte=dt.datetime.combine(value, dt.time.min, tzinfo=dt.UTC))

    def filter_assignee(self, queryset, name, value):
        if value == "me":
            return queryset.filter(assignee=self.user)
        if value == "none":
            return queryset.filter(assignee__isnull=True)
        # A colleague's pk (the form accepts only those who work on customers).
        return queryset.filter(assignee_id=int(value))

    def filter_sla(self, queryset, name, value):
        return queryset.filter(selectors.sla_q(value, timezone.now()))

    def filter_decided(self, queryset, name, value):
        return queryset.filter(selectors.decided_on_q(value))
