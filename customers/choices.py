"""The API's KYC/KYB enumerations with human names, and what each verification issue code asks.

The spec lists one or two values "seen" per enumeration; the rest are the values the sandbox
documents in docs/decisions/sandbox-customers.md (the back-office may not import the sandbox).
"""

import pycountry


def _named(*values: str, names: dict | None = None) -> list[tuple[str, str]]:
    names = names or {}
    return [(value, names.get(value) or value.replace("_", " ").capitalize()) for value in values]


BUSINESS_TYPES = _named(
    "B_CORPORATION",
    "C_CORPORATION",
    "S_CORPORATION",
    "CLOSE_CORPORATION",
    "COOPERATIVE",
    "NONPROFIT_CORPORATION",
    "GENERAL_PARTNERSHIP",
    "LIMITED_PARTNERSHIP",
    "LIMITED_LIABILITY_PARTNERSHIP",
    "LIMITED_LIABILITY_COMPANY",
    "SOLE_PROPRIETORSHIP",
    "TRUST",
    "OTHER",
    "INDIVIDUAL",
    names={
        "B_CORPORATION": "B corporation",
        "C_CORPORATION": "C corporation",
        "S_CORPORATION": "S corporation",
        "LIMITED_LIABILITY_COMPANY": "Limited liability company (LLC)",
        "LIMITED_LIABILITY_PARTNERSHIP": "Limited liability partnership (LLP)",
        "INDIVIDUAL": "Individual (sole trader)",
    },
)
EMPLOYMENT_STATUSES = _named("EMPLOYED", "SELF_EMPLOYED", "UNEMPLOYED", "RETIRED", "STUDENT", "OTHER")
KYC_SOURCES_OF_FUNDS = _named(
    "SALARY",
    "BUSINESS_INCOME",
    "SAVINGS",
    "INVESTMENTS",
    "PENSION",
    "INHERITANCE",
    "GIFT",
    "SALE_OF_ASSETS",
    "GOVERNMENT_BENEFITS",
    "LOAN",
    "OTHER",
)
KYC_ACCOUNT_PURPOSES = _named(
    "PERSONAL_EXPENSES",
    "SAVINGS",
    "INVESTMENTS",
    "PAYMENTS_TO_FRIENDS_OR_FAMILY",
    "PURCHASE_OF_GOODS_AND_SERVICES",
    "RECEIVE_SALARY",
    "OTHER",
)
EXPECTED_MONTHLY_PAYMENTS_USD = _named(
    "LESS_THAN_10000",
    "BETWEEN_10000_49999",
    "BETWEEN_50000_99999",
    "MORE_THAN_100000",
    names={
        "LESS_THAN_10000": "Less than $10,000",
        "BETWEEN_10000_49999": "$10,000 to $49,999",
        "BETWEEN_50000_99999": "$50,000 to $99,999",
        "MORE_THAN_100000": "More than $100,000",
    },
)
KYB_SOURCES_OF_FUNDS = _named(
    "SALE_OF_GOODS_AND_SERVICES",
    "BUSINESS_LOANS",
    "INVESTMENT_INCOME",
    "EQUITY_FUNDING",
    "GRANTS",
    "DONATIONS",
    "OTHER",
)
KYB_ACCOUNT_PURPOSES = _named(
    "CHARITABLE_DONATIONS",
    "PAYROLL",
    "PAYMENTS_TO_SUPPLIERS",
    "RECEIVE_PAYMENTS_FOR_GOODS_AND_SERVICES",
    "TREASURY_MANAGEMENT",
    "INVESTMENTS",
    "OTHER",
)
EXPECTED_MONTHLY_VOLUMES_USD = _named(
    "LESS_THAN_10000",
    "BETWEEN_10000_99999",
    "BETWEEN_100000_999999",
    "MORE_THAN_1000000",
    names={
        "LESS_THAN_10000": "Less than $10,000",
        "BETWEEN_10000_99999": "$10,000 to $99,999",
        "BETWEEN_100000_999999": "$100,000 to $999,999",
        "MORE_THAN_1000000": "More than $1,000,000",
    },
)
ESTIMATED_ANNUAL_REVENUES_USD = _named(
    "LESS_THAN_100000",
    "BETWEEN_100000_999999",
    "BETWEEN_1000000_9999999",
    "MORE_THAN_10000000",
    names={
        "LESS_THAN_100000": "Less than $100,000",
        "BETWEEN_100000_999999": "$100,000 to $999,999",
        "BETWEEN_1000000_9999999": "$1,000,000 to $9,999,999",
        "MORE_THAN_10000000": "More than $10,000,000",
    },
)
HIGH_RISK_ACTIVITIES = _named(
    "ADULT_ENTERTAINMENT",
    "FOREIGN_EXCHANGE_OR_BROKERAGE",
    "GAMBLING",
    "WEAPONS_OR_FIREARMS",
    "CANNABIS",
    "MONEY_SERVICES",
    "PRECIOUS_METALS_OR_JEWELRY",
    "VIRTUAL_CURRENCIES",
    "NONE_OF_THE_ABOVE",
)
DOCUMENT_TYPES = _named(
    "GOVERNMENT_ID", "PROOF_OF_ADDRESS", "SELFIE", "OTHER", names={"GOVERNMENT_ID": "Government ID"}
)
DOCUMENT_SUBTYPES = _named(
    "NATIONAL_ID",
    "PASSPORT",
    "DRIVERS_LICENSE",
    "RESIDENCE_PERMIT",
    "UTILITY_BILL",
    "BANK_STATEMENT",
    "OTHER",
    names={"NATIONAL_ID": "National ID card", "DRIVERS_LICENSE": "Driver's license"},
)
BUSINESS_DOCUMENT_TYPES = _named(
    "ARTICLES_OF_INCORPORATION",
    "CERTIFICATE_OF_INCORPORATION",
    "CERTIFICATE_OF_GOOD_STANDING",
    "OPERATING_AGREEMENT",
    "PARTNERSHIP_AGREEMENT",
    "SHAREHOLDER_REGISTER",
    "PROOF_OF_ADDRESS",
    "BUSINESS_LICENSE",
    "TRUST_DEED",
    "OTHER",
)
NATIONAL_ID_TYPES = _named(
    "ssn",
    "itin",
    "national_id",
    "passport",
    "drivers_license",
    names={
        "ssn": "SSN (US Social Security number)",
        "itin": "ITIN (US taxpayer number)",
        "national_id": "National ID number",
        "passport": "Passport number",
        "drivers_license": "Driver's license number",
    },
)
COUNTRIES = sorted(((c.alpha_2, c.name) for c in pycountry.countries), key=lambda pair: pair[1])

# What each issue code the API produces means for the customer, in plain words
# (codes from docs/decisions/sandbox-verification.md).
ISSUE_EXPLANATIONS = {
    "DOCUMENT_MISSING": (
        "No identity document was received.",
        "Upload a government ID: front and back of an ID card or driver's license, or the photo page of a passport.",
    ),
    "DOCUMENT_MISSING_FRONT": (
        "The front of the identity document is missing.",
        "Upload a clear photo or scan of the front of the same ID.",
    ),
    "DOCUMENT_MISSING_BACK": (
        "The back of the identity document is missing.",
        "Upload a clear photo or scan of the back of the same ID (a passport needs only its photo page).",
    ),
    "PROOF_OF_ADDRESS_MISSING": (
        "No proof of address was received.",
        "Upload a utility bill or bank statement from the last 3 months showing the customer's name and address.",
    ),
    "CONTROL_PERSON_MISSING": (
        "Nobody is named as controlling the business.",
        "Add an associated person who directs the business (such as the CEO) and tick 'Control person'.",
    ),
    "BUSINESS_DOCUMENT_MISSING": (
        "No company document was received.",
        "Upload a company document such as the articles of incorporation.",
    ),
    "SANCTIONED_COUNTRY": (
        "A country linked to the customer is under sanctions.",
        "Nothing: the provider cannot serve this customer and the decision is final.",
    ),
}

# The staff word for each issue code (the code itself goes in a title attribute).
ISSUE_LABELS = {
    "DOCUMENT_MISSING": "Identity document missing",
    "DOCUMENT_MISSING_FRONT": "Front of ID missing",
    "DOCUMENT_MISSING_BACK": "Back of ID missing",
    "PROOF_OF_ADDRESS_MISSING": "Proof of address missing",
    "CONTROL_PERSON_MISSING": "Control person missing",
    "BUSINESS_DOCUMENT_MISSING": "Company document missing",
    "SANCTIONED_COUNTRY": "Sanctioned country",
}


# What staff did to a customer, in staff words (audit actions of this app).
ACTION_LABELS = {
    "customer.create": "Created the customer",
    "customer.refresh": "Refreshed from the API",
    "customer.update_kyc": "Updated the KYC profile",
    "customer.update_kyb": "Updated the KYB profile",
    "customer.assign": "Assigned the case",
    "customer.release": "Released the case",
    "customer.note_add": "Added a note",
    "customer.hosted_link": "Handed out the hosted form",
    "customer.decide": "Decided the case",
}


def action_label(action: str) -> str:
    return ACTION_LABELS.get(action) or action.replace("customer.", "").replace("_", " ").capitalize()
