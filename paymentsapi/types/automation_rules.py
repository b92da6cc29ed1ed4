"""Automation rules: a transaction template run on a schedule or past a balance threshold."""

from datetime import datetime
from decimal import Decimal

from ._base import ApiModel, OpenEnum
from .shared import Currency, DeveloperFee


class AmountType(OpenEnum):
    FLAT = "FLAT"


class TriggerType(OpenEnum):
    THRESHOLD_BASED = "THRESHOLD_BASED"


class TemplateSource(ApiModel):
    source_payment_account_id: str
    source_payment_method: str | None = None
    # A plain string in requests, a currency object in responses.
    source_currency: Currency | str | None = None


class TemplateDestination(ApiModel):
    destination_payment_account_id: str
    destination_payment_method: str | None = None
    destination_currency: Currency | str | None = None


class RuleAmount(ApiModel):
    value: Decimal
    type: AmountType | None = None


class TransactionTemplate(ApiModel):
    source: TemplateSource
    destination: TemplateDestination
    amount: RuleAmount
    developer_fee: DeveloperFee | None = None


class Trigger(ApiModel):
    cron_schedule: str | None = None
    threshold_amount: Decimal | None = None
    type: TriggerType | None = None


class AutomationRule(ApiModel):
    id: str
    name: str | None = None
    customer_id: str | None = None
    transaction_template: TransactionTemplate | None = None
    trigger: Trigger | None = None
    created_at: datetime | None = None
