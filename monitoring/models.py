"""Transaction monitoring and watch-list screening: rules and their versions, watch lists and
their entries, and the alerts both raise on a customer."""

from django.conf import settings
from django.db import models

from customers.models import CaseKind


class RuleKind(models.TextChoices):
    LARGE_TRANSFER = "large_transfer", "Large transfer"
    VELOCITY = "velocity", "Velocity"
    STRUCTURING = "structuring", "Structuring"
    RAPID_IN_OUT = "rapid_in_out", "Rapid in-and-out"
    MANY_COUNTERPARTIES = "many_counterparties", "Many new counterparties"
    NEW_ACCOUNT_PAYOUT = "new_account_payout", "New account then large payout"
    WATCHED = "watched", "Watched rails, chains or currencies"


class RuleStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    WAITING = "waiting", "Waiting for approval"
    LIVE = "live", "Live"
    PAUSED = "paused", "Paused"


class MonitoringRule(models.Model):
    """A detection scenario. What it looks for is its versions' parameters: the live version
    (`live_version`) evaluates transactions; the newest one (`current_version`) is the one
    being drafted, waiting or live."""

    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=32, choices=RuleKind)
    status = models.CharField(max_length=12, choices=RuleStatus, default=RuleStatus.DRAFT)
    current_version = models.ForeignKey(
        "RuleVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The approved version that evaluates transactions while the rule is live (an edit drafts
    # a new version; the approved one keeps running until the new one is approved).
    live_version = models.ForeignKey("RuleVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["status", "kind"], name="monitoring_rule_status")]

    def __str__(self):
        return self.name


class RuleVersion(models.Model):
    """One version of a rule's parameters: never changed once written (an edit writes the next)."""

    rule = models.ForeignKey(MonitoringRule, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    params = models.JSONField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    approved_at = models.DateTimeField(null=True, blank=True)
    # The four-eyes request (payments' "Waiting for approval") that makes it live once approved.
    approval = models.ForeignKey(
        "payments.ApprovalRequest", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["rule", "number"], name="rule_version_number")]

    def __str__(self):
        return f"{self.rule.name} v{self.number}"


class Backtest(models.Model):
    """A run of one version over the mirror's history: how many alerts it would have raised."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    version = models.ForeignKey(RuleVersion, on_delete=models.CASCADE, related_name="backtests")
    status = models.CharField(max_length=10, choices=Status, default=Status.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0)  # percent
    transactions = models.BigIntegerField(default=0)
    hits = models.BigIntegerField(default=0)
    customers = models.BigIntegerField(default=0)
    # A sample of the hits: [{"customer_id", "customer", "transaction_ids", "sentence"}].
    sample = models.JSONField(default=list)
    seconds = models.FloatField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"backtest {self.pk} of {self.version}"


class WatchList(models.Model):
    class Format(models.TextChoices):
        OFAC_SDN = "ofac_sdn", "OFAC SDN CSV (sdn.csv, alt.csv, add.csv)"
        OPENSANCTIONS = "opensanctions", "OpenSanctions targets.simple.csv"

    name = models.CharField(max_length=200, unique=True)
    format = models.CharField(max_length=20, choices=Format)
    # A name matches at this score (0-100, rapidfuzz over normalised names) or above.
    match_threshold = models.PositiveSmallIntegerField(default=90)
    entry_count = models.PositiveIntegerField(default=0)
    address_count = models.PositiveIntegerField(default=0)
    imported_at = models.DateTimeField(null=True, blank=True)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The last re-screening of the mirror after an import.
    screening_status = models.CharField(max_length=10, blank=True)
    screening_done = models.BigIntegerField(default=0)
    screening_total = models.BigIntegerField(default=0)
    screening_hits = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.name

    @property
    def screening_percent(self) -> int:
        return int(100 * self.screening_done / self.screening_total) if self.screening_total else 0


class WatchListEntry(models.Model):
    watchlist = models.ForeignKey(WatchList, on_delete=models.CASCADE, related_name="entries")
    source_id = models.CharField(max_length=100)  # the list's own id (OFAC ent_num, OpenSanctions id)
    name = models.CharField(max_length=500)
    # The normalised name and aliases (monitoring/screening.py), matched against.
    names = models.JSONField(default=list)
    aliases = models.JSONField(default=list)
    postal_addresses = models.JSONField(default=list, blank=True)
    schema = models.CharField(max_length=40, blank=True)  # individual, entity, vessel, CryptoWallet...
    program = models.CharField(max_length=300, blank=True)
    source = models.CharField(max_length=100, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["watchlist", "source_id"], name="watchlist_entry_source_id")]
        verbose_name_plural = "watch list entries"

    def __str__(self):
        return self.name


class WatchListAddress(models.Model):
    """A digital currency address of an entry, per chain; EVM addresses are kept lower-case."""

    entry = models.ForeignKey(WatchListEntry, on_delete=models.CASCADE, related_name="addresses")
    chain = models.CharField(max_length=20)  # the API's chain (ETHEREUM, SOLANA...) or the list's code
    address = models.CharField(max_length=200)

    class Meta:
        indexes = [models.Index(fields=["address", "chain"], name="watchlist_address")]

    def __str__(self):
        return f"{self.chain}:{self.address}"


class AlertKind(models.TextChoices):
    """An alert's kind is the kind of case it opens in the review queue: its codes and words are
    the queue's (customers.models.CaseKind, the `case_kind` vocabulary of core.labels)."""

    MONITORING = CaseKind.MONITORING.value, CaseKind.MONITORING.label
    SCREENING = CaseKind.SCREENING.value, CaseKind.SCREENING.label


class AlertStatus(models.TextChoices):
    OPEN = "open", "Open"
    DECIDED = "decided", "Decided"


class AlertDecision(models.TextChoices):
    TRUE_MATCH = "true_match", "True match"
    FALSE_POSITIVE = "false_positive", "False positive"
    NEEDS_MORE = "needs_more", "Needs more information"


class Alert(models.Model):
    """A hit of a rule version or a watch-list entry on a customer, said in words with its
    figures. `dedupe_key` makes a hit raised twice (a transaction seen by its webhook and by a
    sync, a list imported again) one alert."""

    kind = models.CharField(max_length=12, choices=AlertKind)
    customer = models.ForeignKey(
        "customers.Customer", null=True, blank=True, on_delete=models.SET_NULL, related_name="monitoring_alerts"
    )
    rule = models.ForeignKey(MonitoringRule, null=True, blank=True, on_delete=models.PROTECT, related_name="alerts")
    rule_version = models.ForeignKey(
        RuleVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="alerts"
    )
    entry = models.ForeignKey(WatchListEntry, null=True, blank=True, on_delete=models.SET_NULL, related_name="alerts")
    dedupe_key = models.CharField(max_length=200, unique=True)
    sentence = models.CharField(max_length=500)
    figures = models.JSONField(default=dict, blank=True)
    transaction_ids = models.JSONField(default=list, blank=True)
    account_ids = models.JSONField(default=list, blank=True)
    # For a screening hit: what matched (a name, an address) and its score.
    matched = models.CharField(max_length=300, blank=True)
    score = models.PositiveSmallIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=AlertStatus, default=AlertStatus.OPEN)
    decision = models.CharField(max_length=16, choices=AlertDecision, blank=True)
    reason = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(fields=["-created_at", "-id"], name="alert_keyset"),
            models.Index(fields=["status", "-created_at", "-id"], name="alert_status_keyset"),
            models.Index(fields=["kind", "-created_at", "-id"], name="alert_kind_keyset"),
            models.Index(fields=["kind", "status", "-created_at", "-id"], name="alert_kind_status_keyset"),
            models.Index(fields=["rule", "-created_at", "-id"], name="alert_rule_keyset"),
            models.Index(fields=["customer", "-created_at", "-id"], name="alert_customer_keyset"),
            # The rules list's 30 days of hits per rule, read from the index alone.
            models.Index(
                fields=["created_at"],
                include=["rule", "decision"],
                condition=models.Q(rule__isnull=False),
                name="alert_recent_hits",
            ),
            # The newest decision, part of the version the rules list's hits are kept under.
            models.Index(fields=["decided_at"], condition=models.Q(decided_at__isnull=False), name="alert_decided"),
        ]

    def __str__(self):
        return f"alert {self.pk} ({self.kind})"
