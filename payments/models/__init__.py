"""The mirror of payment accounts, quotes, transactions and automation rules, and the four-eyes
requests: a module per record, every name importable from payments.models."""

from .accounts import ACCOUNT_TYPE_LABELS, MONEY, NO_NEW_ACCOUNT_STATUSES, PaymentAccount, PaymentAccountStatus
from .approvals import ApprovalKind, ApprovalRequest, ApprovalStatus
from .quotes import Quote
from .rules import AutomationRule, AutomationRuleChange
from .transactions import (
    STATUS_LABELS,
    TERMINAL_TRANSACTION_STATUSES,
    Transaction,
    TransactionStatus,
    TransactionStatusChange,
)

__all__ = [
    "ACCOUNT_TYPE_LABELS",
    "MONEY",
    "NO_NEW_ACCOUNT_STATUSES",
    "STATUS_LABELS",
    "TERMINAL_TRANSACTION_STATUSES",
    "ApprovalKind",
    "ApprovalRequest",
    "ApprovalStatus",
    "AutomationRule",
    "AutomationRuleChange",
    "PaymentAccount",
    "PaymentAccountStatus",
    "Quote",
    "Transaction",
    "TransactionStatus",
    "TransactionStatusChange",
]
