"""Automation rules as the mirror keeps them, and their history."""

from django.db import models
from django.utils.functional import cached_property

from upstream.mirrored import MirroredModel, Source

from ..terms import RuleTerms


class AutomationRule(MirroredModel):
    rule_id = models.CharField(max_length=64, unique=True)
    customer = models.ForeignKey(
        "customers.Customer", null=True, blank=True, on_delete=models.SET_NULL, related_name="automation_rules"
    )
    customer_upstream_id = models.CharField(max_length=64)
    name = models.CharField(max_length=200)
    source_account_id = models.CharField(max_length=64, blank=True, db_index=True)
    transaction_template = models.JSONField(default=dict)
    trigger = models.JSONField(default=dict)
    created_upstream_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return self.name

    @cached_property
    def terms(self) -> RuleTerms:
        """What the rule does, in typed fields (the API's camelCase stays in the JSON columns)."""
        return RuleTerms.from_api(self.transaction_template, self.trigger)


class AutomationRuleChange(models.Model):
    """One change of a rule seen by the mirror: its creation, an edit of its name, template or
    trigger, or its disappearance upstream; the values before and after, and who saw it."""

    rule = models.ForeignKey(AutomationRule, on_delete=models.CASCADE, related_name="changes")
    # The fields that changed ("created" and "vanished" name the two ends of a rule's life).
    fields = models.JSONField(default=list)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    seen_by = models.CharField(max_length=16, choices=Source)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["rule", "-recorded_at"], name="rule_history")]

    def __str__(self):
        return f"{self.rule_id}: {', '.join(self.fields)}"

    @property
    def terms_before(self) -> RuleTerms:
        return RuleTerms.from_api(self.before.get("transaction_template"), self.before.get("trigger"))

    @property
    def terms_after(self) -> RuleTerms:
        return RuleTerms.from_api(self.after.get("transaction_template"), self.after.get("trigger"))
