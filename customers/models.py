"""The mirror of the Payments API's customers, and the compliance team's own records."""

import datetime as dt

from django.conf import settings
from django.db import models
from django.db.models.functions import Upper

from core import labels
from upstream.mirrored import MirroredModel, StatusChange


class CustomerStatus(models.TextChoices):
    CREATED = "CREATED", "Created"
    UNDER_REVIEW = "UNDER_REVIEW", "Under review"
    NEEDS_ADDITIONAL_INFORMATION = "NEEDS_ADDITIONAL_INFORMATION", "Needs additional information"
    ACTIVE = "ACTIVE", "Active"
    REJECTED = "REJECTED", "Rejected"
    DEACTIVATED = "DEACTIVATED", "Deactivated"


# A case is open while the customer is in one of these states (CREATED counts: it may need a
# nudge); while NEEDS_ADDITIONAL_INFORMATION the case waits on the customer, not on us.
CASE_OPEN_STATUSES = frozenset(
    {
        CustomerStatus.CREATED,
        CustomerStatus.UNDER_REVIEW,
        CustomerStatus.NEEDS_ADDITIONAL_INFORMATION,
        CustomerStatus.REJECTED,
    }
)
WAITING_ON_CUSTOMER = frozenset({CustomerStatus.NEEDS_ADDITIONAL_INFORMATION})


class CustomerType(models.TextChoices):
    INDIVIDUAL = "INDIVIDUAL", "Individual"
    BUSINESS = "BUSINESS", "Business"


class CaseKind(models.TextChoices):
    """What a case in the review queue is about (customers.filters.QueueFilter's `kind`)."""

    VERIFICATION = "verification", "Verification"
    MONITORING = "monitoring", "Transaction monitoring"
    SCREENING = "screening", "Watchlist screening"


# The customer's column counting its open alerts of each kind: monitoring keeps them
# (monitoring.services.refresh_open_alerts), the review queue reads them (customers.filters).
OPEN_ALERT_COLUMNS = {CaseKind.MONITORING: "open_monitoring_alerts", CaseKind.SCREENING: "open_screening_alerts"}
# The open alerts of a customer, per kind, are a case too (customers.filters).
OPEN_ALERTS_MONITORING = models.Q(open_monitoring_alerts__gt=0)
OPEN_ALERTS_SCREENING = models.Q(open_screening_alerts__gt=0)


class Customer(MirroredModel):
    customer_id = models.CharField(max_length=64, unique=True)
    organization_id = models.CharField(max_length=64)
    customer_type = models.CharField(max_length=16)
    # Kept as text: a status the API adds later is stored, not refused.
    status = models.CharField(max_length=40)
    name = models.CharField(max_length=300, blank=True)
    email = models.CharField(max_length=254, blank=True)
    verification_link = models.URLField(max_length=1000, blank=True)
    available_payment_methods = models.JSONField(default=list, blank=True)
    # When the mirror first saw the current status: "how long in this state".
    status_since = models.DateTimeField()
    first_seen_at = models.DateTimeField(auto_now_add=True)
    # Case work of the compliance team; never sent to the API.
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="assigned_customers"
    )
    claimed_at = models.DateTimeField(null=True, blank=True)
    # The open case's "waiting on us" clock, kept by customers_upsert at each status change so
    # that the queue shows it without reading the history: the time banked before
    # `waiting_on_us_since`, plus the running part while that is set (null while the case waits
    # on the customer or is closed). Null seconds: no clock kept yet (see waiting_on_us()).
    waiting_on_us_seconds = models.PositiveIntegerField(null=True, blank=True)
    waiting_on_us_since = models.DateTimeField(null=True, blank=True)
    # The reviewer's decision on the current case (a CaseDecision.Kind; blank: none yet). A
    # decided case leaves "Needs a person" until the customer's status or issues change, when
    # customers_upsert clears it; `escalation_level` counts escalations of the current case.
    case_decision = models.CharField(max_length=32, blank=True, default="")
    case_decided_at = models.DateTimeField(null=True, blank=True)
    escalation_level = models.PositiveSmallIntegerField(default=0)
    # Open alerts of transaction monitoring and of watch-list screening: kept by monitoring
    # (monitoring.services.refresh_open_alerts) in the transaction that raises or decides an
    # alert, so that the queue filters and shows them without reading monitoring's tables.
    # db_default: a row written by code that predates the counts (an older migration state) holds 0.
    open_monitoring_alerts = models.PositiveIntegerField(default=0, db_default=0)
    open_screening_alerts = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        indexes = [
            models.Index(fields=["-upstream_updated_at", "-id"], name="customer_updated_keyset"),
            models.Index(fields=["status", "-upstream_updated_at", "-id"], name="customer_status_updated"),
            models.Index(fields=["status", "status_since", "id"], name="customer_status_age"),
            # The queue's default order across several statuses (oldest first).
            models.Index(fields=["status_since", "id"], name="customer_age"),
            models.Index(fields=["customer_type", "-upstream_updated_at", "-id"], name="customer_type_updated"),
            models.Index(fields=["organization_id", "-upstream_updated_at", "-id"], name="customer_org_updated"),
            models.Index(fields=["assignee", "status", "status_since"], name="customer_assignee"),
            # Prefix search, case-insensitive (istartswith compiles to UPPER(...) LIKE 'X%').
            models.Index(Upper("name"), name="customer_name_upper"),
            models.Index(Upper("email"), name="customer_email_upper"),
            # The escalations view: escalated cases, highest level and oldest first.
            models.Index(
                fields=["case_decision", "-escalation_level", "case_decided_at"], name="customer_case_decision"
            ),
            # The queue by kind of case: the few customers with open alerts, in both orders.
            models.Index(
                fields=["status_since", "id"], condition=OPEN_ALERTS_MONITORING, name="customer_monitoring_age"
            ),
            models.Index(
                fields=["-upstream_updated_at", "-id"], condition=OPEN_ALERTS_MONITORING, name="customer_monitoring_upd"
            ),
            models.Index(fields=["status_since", "id"], condition=OPEN_ALERTS_SCREENING, name="customer_screening_age"),
            models.Index(
                fields=["-upstream_updated_at", "-id"], condition=OPEN_ALERTS_SCREENING, name="customer_screening_upd"
            ),
            # The clocks of the customers a case waits on: the few that may be over the SLA
            # (customers.selectors.with_issue_over_sla), an index range, not every such customer.
            models.Index(
                fields=["waiting_on_us_since", "waiting_on_us_seconds"],
                condition=models.Q(status="NEEDS_ADDITIONAL_INFORMATION"),
                name="customer_waiting_clock",
            ),
        ]

    def __str__(self):
        return f"{self.name or self.customer_id} ({self.status})"

    def get_status_display(self) -> str:
        # The field has no choices (unknown statuses are kept): name the known ones here.
        return labels.label(labels.STATUS, self.status)

    def waiting_on_us(self, now: dt.datetime) -> dt.timedelta:
        """How long the open case has waited on us by `now` (zero once closed).

        A row the upsert never wrote a clock for counts its time in the current state, as the
        customer page does for a customer without history.
        """
        if self.waiting_on_us_seconds is None:
            on_us = self.status in CASE_OPEN_STATUSES and self.status not in WAITING_ON_CUSTOMER
            return max(now - self.status_since, dt.timedelta()) if on_us else dt.timedelta()
        running = max(now - self.waiting_on_us_since, dt.timedelta()) if self.waiting_on_us_since else dt.timedelta()
        return dt.timedelta(seconds=self.waiting_on_us_seconds) + running


class VerificationIssue(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="issues")
    code = models.CharField(max_length=64)
    message = models.CharField(max_length=1000, blank=True)
    timestamp = models.DateTimeField(null=True, blank=True)
    # The status of its customer, kept by customers_upsert: the queue's issue filter reads the
    # issues of a code and status from one index range (customers.selectors.with_issue).
    customer_status = models.CharField(max_length=40, blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["code", "customer_status", "customer"], name="issue_code")]

    def __str__(self):
        return self.code


class CustomerStatusChange(StatusChange):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="status_changes")

    class Meta:
        indexes = [
            models.Index(fields=["customer", "-changed_at"], name="customer_history"),
            # Decisions per day (the compliance home page's roll-up reads a few days at a time).
            models.Index(fields=["new_status", "changed_at"], name="customer_change_status_day"),
        ]


class CustomerNote(models.Model):
    """A reviewer's internal note: stays in the back-office, never sent to the API."""

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    author_username = models.CharField(max_length=150)
    body = models.TextField(max_length=5000)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["customer", "-created_at"], name="note_customer")]

    def __str__(self):
        return f"Note by {self.author_username}"


class StaffAct(models.Model):
    """A staff member's act on a customer's case (a handout, a decision): its `kind`, who did it
    (under the name they had then) and when."""

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    actor_username = models.CharField(max_length=150)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True

    def __str__(self):
        return f"{self.get_kind_display()} by {self.actor_username}"


class HostedLinkHandout(StaffAct):
    """Who copied or opened a customer's hosted verification link, and when: so that a
    reviewer sees whether the customer was already asked."""

    class Kind(models.TextChoices):
        COPIED = "copied", "Copied the link"
        OPENED = "opened", "Opened the hosted form"
        REFILL = "refill", "Opened the form to refill"

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="link_handouts")
    kind = models.CharField(max_length=16, choices=Kind)
    status_at_handout = models.CharField(max_length=40)

    class Meta:
        indexes = [models.Index(fields=["customer", "-created_at"], name="handout_customer")]


class CaseDecision(StaffAct):
    """A reviewer's decision on a customer's case, with the reason: the case history."""

    class Kind(models.TextChoices):
        APPROVED = "approved", "Approved as is"
        ESCALATED = "escalated", "Escalated"
        OFFBOARDED = "offboarded", "Offboarded"
        WAITING = "waiting_on_customer", "Waiting on the customer"
        # Only once escalated: a compliance lead sends the case back to the queue.
        RETURNED = "returned", "Returned to the queue"

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="decisions")
    kind = models.CharField(max_length=32, choices=Kind)
    reason = models.TextField(max_length=2000)
    status_at_decision = models.CharField(max_length=40)
    escalation_level = models.PositiveSmallIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["customer", "-created_at"], name="decision_customer")]
