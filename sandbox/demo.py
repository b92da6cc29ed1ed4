"""The embedded demo: a well-known sandbox API key and the demo data behind it.

The back-office, run with no settings, calls the sandbox mounted in the same server with
DEMO_API_KEY (its PAYMENTS_API_KEY default). `python manage.py sandbox_seed` makes sure the key
exists and fills its organization with customers, payment accounts, balances, quotes,
transactions and automation rules in every state the sandbox can reach.

Everything is made through the sandbox's own validators and services, as an integrator's API
calls would make it, so the data obeys the same rules as data made over HTTP. Where no service
exists (holding a review open, ageing a transaction past its expiry) the seed changes the one
field it must and says so; docs/api-decisions.md ("Seed data") lists those places.
"""

import datetime as dt
import random
import unicodedata
import uuid
from collections import Counter
from decimal import Decimal

import phonenumbers
from django.db import transaction
from django.db.models import Count, F

from . import clock
from .auth import _digest
from .models import (
    ApiKey,
    AutomationRule,
    Balance,
    Customer,
    CustomerStatus,
    CustomerType,
    Delivery,
    DeliveryStatus,
    PaymentAccount,
    Quote,
    Tier,
    Transaction,
    TransactionStatus,
    WebhookEndpoint,
)
from .serializers.accounts import PaymentAccountCreateIn, aba_checksum_ok
from .serializers.customers import CustomerCreateSerializer, CustomerUpdateSerializer
from .serializers.fields import validated
from .serializers.quotes import QuoteCreateIn
from .serializers.rules import RuleCreateIn
from .services.accounts import base58, payment_account_create, payment_account_fund
from .services.customers import customer_create, customer_deactivate, customer_review, customer_update
from .services.quotes import quote_create
from .services.rules import rule_create
from .services.transactions import transaction_advance, transaction_cancel, transaction_create, transaction_for_key
from .services.verification import review_outcome
from .services.webhooks import MAX_ATTEMPTS, backoff, webhook_endpoint_create

# Well known on purpose: it opens only the demo organization of a local sandbox. It has the
# `sbx_<prefix>_<secret>` shape of sandbox.auth; its prefix is not hexadecimal, so no key made
# by create_key can take it.
DEMO_API_KEY = "sbx_demo0000000_embedded-sandbox-key-not-secret"
DEMO_ORGANIZATION_ID = uuid.UUID("de300000-5eed-4000-8000-000000000001")
DEFAULT_CUSTOMERS = 40
# The first MIN_CUSTOMERS profiles hold every customer status (see PROFILES).
MIN_CUSTOMERS = 10
# The demo organization's second webhook endpoint, which nobody answers: port 9 (the "discard"
# service, which no machine runs nowadays) on the loopback refuses connections at once, so its
# deliveries fail fast and show RETRYING and FAILED beside the back-office's SUCCEEDED ones.
UNREACHABLE_WEBHOOK_URL = "http://127.0.0.1:9/unreachable"
# Of its deliveries, the oldest ones gave up and the newest wait for their first attempt.
FAILED_DELIVERIES, PENDING_DELIVERIES, RETRYING_DELIVERIES = 3, 3, 7
PENDING_DELAY = dt.timedelta(hours=1)
UNREACHABLE_ERROR = "Connection failed (ConnectError)"

S = CustomerStatus
IND, BUS = CustomerType.INDIVIDUAL, CustomerType.BUSINESS
# (status, type, how the KYC/KYB data falls short), cycled over the customers. The first ten
# cover every status; the second ten add the other issue kinds and the refill path.
PROFILES = [
    (S.ACTIVE, IND, None),
    (S.ACTIVE, BUS, None),
    (S.CREATED, IND, None),
    (S.UNDER_REVIEW, BUS, None),
    (S.NEEDS_ADDITIONAL_INFORMATION, IND, "no_back_image"),
    (S.ACTIVE, IND, None),
    (S.REJECTED, IND, "sanctioned"),
    (S.NEEDS_ADDITIONAL_INFORMATION, BUS, "no_control_person"),
    (S.DEACTIVATED, IND, None),
    (S.ACTIVE, BUS, None),
    (S.ACTIVE, IND, None),
    (S.CREATED, BUS, None),
    (S.UNDER_REVIEW, IND, "refilled"),
    (S.NEEDS_ADDITIONAL_INFORMATION, IND, "no_proof_of_address"),
    (S.ACTIVE, BUS, None),
    (S.REJECTED, BUS, "sanctioned"),
    (S.ACTIVE, IND, None),
    (S.DEACTIVATED, BUS, None),
    (S.NEEDS_ADDITIONAL_INFORMATION, IND, "no_back_image"),
    (S.ACTIVE, IND, None),
]

FIRST_NAMES = [
    "Amelia", "Noah", "Olivia", "Liam", "Sofia", "Mateo", "Hannah", "Lucas", "Priya", "Arjun",
    "Chloé", "Jonas", "Mei", "Daniel", "Fatima", "Tomás", "Grace", "Ethan", "Leonie", "Samuel",
    "Isabel", "Marcus", "Aisha", "Felix", "Nora", "Diego", "Emma", "Kenji", "Zoe", "Oliver",
]  # fmt: skip
LAST_NAMES = [
    "Hartley", "Okafor", "Lindqvist", "Moreau", "Castillo", "Nakamura", "Brennan", "Patel",
    "Schneider", "Alvarez", "Whitfield", "Kowalski", "Sato", "Dubois", "Ferreira", "Mensah",
    "Romero", "Fischer", "Gallagher", "Iyer", "Novak", "Quinn", "Reyes", "Silva", "Thornton",
]  # fmt: skip
BUSINESSES = [
    ("Bluewater Logistics", "LIMITED_LIABILITY_COMPANY", "488510", "Freight forwarding between US and EU ports"),
    ("Northwind Coffee Roasters", "C_CORPORATION", "311920", "Wholesale specialty coffee roasting"),
    ("Cedar & Pine Studio", "SOLE_PROPRIETORSHIP", "541430", "Brand and packaging design studio"),
    ("Helix Analytics", "C_CORPORATION", "541511", "Data platform for retail demand forecasting"),
    ("Harborview Dental Group", "LIMITED_LIABILITY_PARTNERSHIP", "621210", "Group dental practice"),
    ("Meridian Solar Co-op", "COOPERATIVE", "221114", "Community solar installations"),
    ("Quillon Software", "LIMITED_LIABILITY_COMPANY", "541512", "Payroll software for small firms"),
    ("Open Hands Foundation", "NONPROFIT_CORPORATION", "813219", "Grants for literacy programmes"),
    ("Copperline Electrical", "S_CORPORATION", "238210", "Commercial electrical contractor"),
    ("Atlas Field Robotics", "B_CORPORATION", "333111", "Autonomous tools for small farms"),
    ("Silverleaf Trust", "TRUST", "523920", "Family trust managing a bond portfolio"),
    ("Kestrel Travel Partners", "GENERAL_PARTNERSHIP", "561510", "Boutique travel agency"),
]  # fmt: skip
# (country, nationalIdType): the customers' countries, weighted towards the US.
COUNTRIES = [("US", "ssn")] * 5 + [("CA", "sin"), ("GB", "nino"), ("DE", "national_id"), ("IN", "pan"), ("MX", "curp")]
SANCTIONED = ("IR", "national_id")
STREETS = ["Maple Avenue", "Harbor Street", "Station Road", "Elm Court", "Market Street", "Cedar Lane"]
CITIES = {
    "US": ("Springfield", "IL", "62701"),
    "CA": ("Toronto", "ON", "M5V 2T6"),
    "GB": ("Manchester", "Greater Manchester", "M1 1AE"),
    "DE": ("Hamburg", "Hamburg", "20095"),
    "IN": ("Pune", "Maharashtra", "411001"),
    "MX": ("Guadalajara", "Jalisco", "44100"),
    "IR": ("Tehran", "Tehran", "11369"),
    "CU": ("Havana", "La Habana", "10400"),
}
# A tiny stand-in for document images: the sandbox takes any non-blank string.
IMAGE = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def ensure_demo_key() -> ApiKey:
    """The ApiKey row of DEMO_API_KEY (standard tier, read-write, DEMO_ORGANIZATION_ID),
    created if absent and put right if someone changed it."""
    wanted = {
        "key_hash": _digest(DEMO_API_KEY),
        "organization_id": DEMO_ORGANIZATION_ID,
        "tier": Tier.STANDARD,
        "read_only": False,
    }
    key, created = ApiKey.objects.get_or_create(prefix=DEMO_API_KEY.split("_")[1], defaults=wanted)
    if not created and any(getattr(key, name) != value for name, value in wanted.items()):
        for name, value in wanted.items():
            setattr(key, name, value)
        key.save(update_fields=list(wanted))
    return key


def seed(*, customers: int = DEFAULT_CUSTOMERS) -> dict | None:
    """Fill the demo organization; None (and nothing done) when it has customers already."""
    if customers < MIN_CUSTOMERS:
        raise ValueError(f"At least {MIN_CUSTOMERS} customers are needed for every status to appear")
    with transaction.atomic():
        # The key's row is the lock: of two seeds at once, the second waits, then finds data.
        api_key = ApiKey.objects.select_for_update().get(pk=ensure_demo_key().pk)
        if Customer.objects.filter(organization_id=DEMO_ORGANIZATION_ID).exists():
            return None
        # One transaction: all or nothing, and the reviews queued on commit find every
        # customer already decided (or held), whatever SANDBOX_REVIEW_DELAY_SECONDS says.
        # The endpoint first, so that the customers' events are delivered to it too.
        endpoint = ensure_unreachable_endpoint()
        _Seeder(api_key).run(customers)
        shape_deliveries(endpoint)
    return summary()


def ensure_unreachable_endpoint() -> WebhookEndpoint:
    """The demo organization's endpoint at UNREACHABLE_WEBHOOK_URL, for customer.update."""
    endpoint = WebhookEndpoint.objects.filter(organization_id=DEMO_ORGANIZATION_ID, url=UNREACHABLE_WEBHOOK_URL).first()
    return endpoint or webhook_endpoint_create(
        organization_id=DEMO_ORGANIZATION_ID, url=UNREACHABLE_WEBHOOK_URL, events=["customer.update"]
    )


def shape_deliveries(endpoint: WebhookEndpoint) -> None:
    """Give the unreachable endpoint's deliveries every state a delivery can be in, whatever
    time has passed. No service moves a delivery without an attempt, and the retries of a
    failing delivery take hours on the sandbox clock, so the seed writes their outcome as the
    retries would have left it (docs/api-decisions.md, "Seed data"):
    - the oldest FAILED_DELIVERIES: FAILED after MAX_ATTEMPTS refused attempts;
    - the next RETRYING_DELIVERIES: RETRYING after 1 to MAX_ATTEMPTS - 1 refused attempts,
      the next one due after its backoff;
    - the newest PENDING_DELIVERIES: PENDING, first attempt due in PENDING_DELAY.
    The others are attempted when the seed commits, as every new delivery is: refused, they
    become RETRYING by the sandbox's own code."""
    now = clock.now()
    ids = list(Delivery.objects.filter(endpoint=endpoint).order_by("created_at", "id").values_list("pk", flat=True))
    failed, retrying = ids[:FAILED_DELIVERIES], ids[FAILED_DELIVERIES : FAILED_DELIVERIES + RETRYING_DELIVERIES]
    pending = ids[FAILED_DELIVERIES + RETRYING_DELIVERIES :][-PENDING_DELIVERIES:]
    Delivery.objects.filter(pk__in=failed).update(
        status=DeliveryStatus.FAILED,
        attempts=MAX_ATTEMPTS,
        last_attempt_at=now,
        next_attempt_at=None,
        response_status=None,
        last_error=UNREACHABLE_ERROR,
    )
    for index, pk in enumerate(retrying):
        attempts = 1 + index % (MAX_ATTEMPTS - 1)
        Delivery.objects.filter(pk=pk).update(
            status=DeliveryStatus.RETRYING,
            attempts=attempts,
            last_attempt_at=now,
            next_attempt_at=now + backoff(attempts),
            response_status=None,
            last_error=UNREACHABLE_ERROR,
        )
    Delivery.objects.filter(pk__in=pending).update(status=DeliveryStatus.PENDING, next_attempt_at=now + PENDING_DELAY)


def summary() -> dict:
    """Counts of the demo organization's records, per status where they have one."""
    org = DEMO_ORGANIZATION_ID

    def by(queryset, *fields):
        rows = queryset.values(*fields).annotate(n=Count("pk")).order_by(*fields)
        return {" ".join(str(row[f]) for f in fields): row["n"] for row in rows}

    quotes = Quote.objects.filter(customer__organization_id=org)
    rules = AutomationRule.objects.filter(customer__organization_id=org)
    return {
        "customers": by(Customer.objects.filter(organization_id=org), "status"),
        "customer types": by(Customer.objects.filter(organization_id=org), "customer_type"),
        "payment accounts": by(PaymentAccount.objects.filter(organization_id=org), "account_type", "status"),
        "funded balances": Balance.objects.filter(account__organization_id=org, amount__gt=0).count(),
        "quotes": {"used": quotes.filter(used_at__isnull=False).count(), "unused": quotes.filter(used_at=None).count()},
        "transactions": by(Transaction.objects.filter(customer__organization_id=org), "status"),
        "webhook deliveries": by(Delivery.objects.filter(endpoint__organization_id=org), "status"),
        "automation rules": dict(
            Counter("threshold" if "thresholdAmount" in r.trigger else "cron" for r in rules.only("trigger"))
        ),
    }


class _Seeder:
    """Makes the data with a random.Random(42): the same names, amounts and choices every run."""

    # Transaction outcomes handed out to ACTIVE customers in turn, three each.
    SCENARIOS = [
        TransactionStatus.AWAITING_TRANSFER,
        TransactionStatus.PROCESSING,
        TransactionStatus.COMPLETED,
        TransactionStatus.FAILED,
        TransactionStatus.CANCELLED,
        TransactionStatus.EXPIRED,
        "OFFRAMP_COMPLETED",
    ]

    def __init__(self, api_key: ApiKey):
        self.api_key = api_key
        self.rng = random.Random(42)
        self.today = clock.now().date()
        self.active_count = 0
        self.transaction_count = 0
        self.used_emails: set[str] = set()

    # --- customers -------------------------------------------------------------------------

    def run(self, count: int) -> None:
        for index in range(count):
            status, customer_type, shortfall = PROFILES[index % len(PROFILES)]
            self.customer(index, status, customer_type, shortfall)

    def customer(self, index: int, status: str, customer_type: str, shortfall: str | None) -> Customer:
        country = SANCTIONED if shortfall == "sanctioned" else self.rng.choice(COUNTRIES)
        if customer_type == IND:
            body = self.individual_body(country, shortfall)
        else:
            body = self.business_body(index, country, shortfall)
        if status == S.CREATED:
            body.pop("kycData", None)
            body.pop("kybData", None)
        data = validated(CustomerCreateSerializer, body)
        customer = customer_create(api_key=self.api_key, data=data)
        if status == S.CREATED:
            if index % 4 == 2:
                # Integrators often register the payout account before verification is done.
                self.pending_bank_account(customer)
            return customer
        if shortfall == "refilled":
            # NEEDS_ADDITIONAL_INFORMATION, then the missing back image arrives by PATCH.
            self.decide(customer, S.NEEDS_ADDITIONAL_INFORMATION)
            document = {**customer.kyc_data["documents"][0], "backIdImage": IMAGE}
            update = {"kycData": {"documents": [document]}}
            serializer = CustomerUpdateSerializer(data=update, partial=True, context={"customer_type": IND})
            serializer.is_valid(raise_exception=True)
            customer = customer_update(customer=customer, data=serializer.validated_data)
        if status == S.UNDER_REVIEW:
            # Held for a manual review: no automatic outcome comes (review_due_at null); the
            # review test helper decides it. Without this, the simulation would settle it.
            Customer.objects.filter(pk=customer.pk, status=S.UNDER_REVIEW).update(review_due_at=None)
            return customer
        outcome = S.ACTIVE if status == S.DEACTIVATED else status
        customer = self.decide(customer, outcome)
        if outcome == S.NEEDS_ADDITIONAL_INFORMATION and index % 3 == 0:
            self.external_wallet(customer)
        if outcome == S.ACTIVE:
            self.active_customer(customer, deactivate=status == S.DEACTIVATED)
        return customer

    def decide(self, customer: Customer, outcome: str) -> Customer:
        """Complete the review now, with the outcome and issues the simulation would reach."""
        status, issues = review_outcome(customer)
        if status != outcome:
            raise AssertionError(f"The demo data of {customer.name} leads to {status}, not {outcome}: {issues}")
        return customer_review(customer=customer, outcome=outcome, issues=issues)

    def person(self, country: tuple[str, str]) -> dict:
        code, id_type = country
        first, last = self.rng.choice(FIRST_NAMES), self.rng.choice(LAST_NAMES)
        born = self.today - dt.timedelta(days=self.rng.randint(22 * 365, 70 * 365))
        return {
            "legalFirstName": first,
            "legalLastName": last,
            "phoneNumber": self.phone(code),
            "dateOfBirth": born.isoformat(),
            "nationalIdIssuingCountry": code,
            "nationalIdType": id_type,
            "nationalIdNumber": self.national_id(id_type),
            "nationality": code,
        }

    def individual_body(self, country: tuple[str, str], shortfall: str | None) -> dict:
        kyc = self.person(country)
        first, last = kyc["legalFirstName"], kyc["legalLastName"]
        document = {
            "type": "GOVERNMENT_ID",
            "subtype": "NATIONAL_ID" if country[0] != "US" else "DRIVERS_LICENSE",
            "countryCode": country[0],
            "documentIdNumber": f"{self.rng.randint(10**8, 10**9 - 1)}",
            "issuanceDate": (self.today - dt.timedelta(days=self.rng.randint(200, 2500))).isoformat(),
            "expirationDate": (self.today + dt.timedelta(days=self.rng.randint(200, 2500))).isoformat(),
            "frontIdImage": IMAGE,
            "backIdImage": IMAGE,
            "proofOfAddressImage": IMAGE,
            "description": "Scanned at onboarding",
        }
        if shortfall in ("no_back_image", "refilled"):
            del document["backIdImage"]
        if shortfall == "no_proof_of_address":
            del document["proofOfAddressImage"]
        kyc |= {
            "employmentStatus": self.rng.choice(["EMPLOYED", "EMPLOYED", "SELF_EMPLOYED", "RETIRED"]),
            "mostRecentOccupation": self.rng.choice(["15-1252", "29-1141", "13-2011", "41-3091", "25-2021"]),
            "sourceOfFunds": self.rng.choice(["SALARY", "SALARY", "SAVINGS", "BUSINESS_INCOME"]),
            "accountPurpose": self.rng.choice(["PERSONAL_EXPENSES", "SAVINGS", "PAYMENTS_TO_FRIENDS_OR_FAMILY"]),
            "expectedMonthlyPaymentsUsd": self.rng.choice(["LESS_THAN_10000", "BETWEEN_10000_49999"]),
            "isIntermediary": False,
            "documents": [document],
        }
        return {
            "customerType": IND,
            "email": self.email(f"{first}.{last}", "example.com"),
            "firstName": first,
            "lastName": last,
            "kycData": kyc,
        }

    def business_body(self, index: int, country: tuple[str, str], shortfall: str | None) -> dict:
        name, business_type, industry, description = BUSINESSES[index % len(BUSINESSES)]
        code = "CU" if shortfall == "sanctioned" else country[0]
        slug = "".join(c for c in name.lower() if c.isalnum())
        owner = self.person(self.rng.choice(COUNTRIES))
        city, region, postal = CITIES[owner["nationality"]]
        owner |= {
            "email": self.email(f"{owner['legalFirstName']}.{owner['legalLastName']}", f"{slug}.example"),
            "address": {
                "countryCode": owner["nationality"],
                "streetLine1": f"{self.rng.randint(2, 980)} {self.rng.choice(STREETS)}",
                "city": city,
                "stateRegionProvince": region,
                "postalCode": postal,
            },
            "ownershipPercentage": self.rng.choice([0.25, 0.5, 0.6, 1.0]),
            "title": self.rng.choice(["CEO", "Managing Director", "Founder", "President"]),
            "isControlPerson": shortfall != "no_control_person",
            "isSigner": True,
            "isDirector": True,
        }
        kyb = {
            "businessInfo": {
                "legalBusinessName": f"{name} {'LLC' if business_type == 'LIMITED_LIABILITY_COMPANY' else 'Inc.'}",
                "dbaName": name,
                "businessType": business_type,
                "businessIndustries": industry,
                "businessDescription": description,
                "website": f"https://www.{slug}.example",
                "formationDate": (self.today - dt.timedelta(days=self.rng.randint(400, 9000))).isoformat(),
                "registrationCountry": code,
                "isDao": False,
            },
            "businessRegistrationNumber": f"{code}-{self.rng.randint(10**6, 10**7 - 1)}",
            "sourceOfFunds": "SALE_OF_GOODS_AND_SERVICES",
            "accountPurpose": self.rng.choice(["PAYMENTS_TO_SUPPLIERS", "RECEIVE_PAYMENTS_FOR_GOODS_AND_SERVICES"]),
            "expectedMonthlyVolumeUsd": self.rng.choice(["LESS_THAN_10000", "BETWEEN_10000_99999"]),
            "estimatedAnnualRevenueUsd": self.rng.choice(["LESS_THAN_100000", "BETWEEN_100000_999999"]),
            "conductsMoneyServices": False,
            "operatesInProhibitedCountries": False,
            "highRiskActivities": ["NONE_OF_THE_ABOVE"],
            "associatedPersons": [owner],
        }
        if shortfall != "no_control_person":
            kyb["businessDocuments"] = [
                {"type": "ARTICLES_OF_INCORPORATION", "documentImage": IMAGE, "description": "Filed articles"}
            ]
        return {
            "customerType": BUS,
            "email": self.email("finance", f"{slug}.example"),
            "businessName": name,
            "kybData": kyb,
        }

    def email(self, local: str, domain: str) -> str:
        # ASCII local parts: "Chloé" -> "chloe" (the sandbox accepts no accented addresses).
        ascii_local = unicodedata.normalize("NFKD", local).encode("ascii", "ignore").decode()
        base = ascii_local.lower().replace(" ", "")
        email, n = f"{base}@{domain}", 1
        while email in self.used_emails:
            n += 1
            email = f"{base}{n}@{domain}"
        self.used_emails.add(email)
        return email

    def phone(self, country: str) -> str:
        if country == "US":
            # 555-0100..0199: reserved for fiction, valid to phonenumbers.
            return f"+1{self.rng.choice(['202', '312', '415', '617'])}55501{self.rng.randint(0, 99):02d}"
        number = phonenumbers.example_number_for_type(country, phonenumbers.PhoneNumberType.MOBILE)
        return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)

    def national_id(self, id_type: str) -> str:
        digits = "".join(str(self.rng.randint(0, 9)) for _ in range(9))
        if id_type == "ssn":
            return f"{digits[:3]}-{digits[3:5]}-{digits[5:]}"
        return digits

    # --- payment accounts and money --------------------------------------------------------

    def account(self, customer: Customer, body: dict) -> PaymentAccount:
        data = validated(PaymentAccountCreateIn, {"customerId": str(customer.pk), **body})
        return payment_account_create(api_key=self.api_key, data=data)

    def bank_account(self, customer: Customer, method: str = "ACH") -> PaymentAccount:
        number = "".join(str(self.rng.randint(0, 9)) for _ in range(self.rng.randint(10, 12)))
        return self.account(
            customer,
            {
                "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
                "nickname": self.rng.choice(["Operating account", "Main checking", "Payroll", "Savings"]),
                "externalBankAccount": {
                    "bankAccountType": "CHECKING",
                    "bankAccountOwnerName": customer.name,
                    "bankAccountOwnerEmail": customer.email,
                    "bankName": self.rng.choice(["First Harbor Bank", "Prairie National Bank", "Summit Credit Union"]),
                    "bankAccountCurrency": "USD",
                    "bankAccountPaymentMethod": method,
                    "bankAccountNumber": number,
                    "bankRoutingNumber": self.routing_number(),
                },
            },
        )

    def pending_bank_account(self, customer: Customer) -> PaymentAccount:
        """Without numbers: PENDING, waiting for its hosted bank-account form."""
        return self.account(
            customer,
            {
                "paymentAccountType": "EXTERNAL_BANK_ACCOUNT",
                "nickname": "Payout account (form sent)",
                "externalBankAccount": {
                    "bankAccountType": "CHECKING",
                    "bankAccountOwnerName": customer.name,
                    "bankAccountCurrency": "USD",
                    "bankAccountPaymentMethod": "WIRE",
                },
            },
        )

    def routing_number(self) -> str:
        """Eight random digits and the ABA check digit: valid in form, no real bank's number."""
        head = "0" + "".join(str(self.rng.randint(0, 9)) for _ in range(7))
        check = next(str(d) for d in range(10) if aba_checksum_ok(head + str(d)))
        return head + check

    def external_wallet(self, customer: Customer, chain: str | None = None) -> PaymentAccount:
        chain = chain or self.rng.choice(["BASE", "BASE", "POLYGON", "SOLANA"])
        address = base58(self.rng.randbytes(32)) if chain == "SOLANA" else "0x" + self.rng.randbytes(20).hex()
        return self.account(
            customer,
            {
                "paymentAccountType": "EXTERNAL_CRYPTO_WALLET",
                "nickname": f"{chain.title()} wallet",
                "externalCryptoWallet": {"currency": "USDC", "address": {"address": address, "chain": chain}},
            },
        )

    def active_customer(self, customer: Customer, *, deactivate: bool) -> None:
        """Accounts of every type, funded balances, quotes, transactions and a rule."""
        k = self.active_count
        self.active_count += 1
        bank = self.bank_account(customer)
        wallet = self.external_wallet(customer)
        fiat = self.account(
            customer,
            {
                "paymentAccountType": "SERVICE_FIAT_ACCOUNT",
                "nickname": "USD balance",
                "serviceFiatAccount": {"currency": "USD"},
            },
        )
        service_wallet = self.account(
            customer,
            {
                "paymentAccountType": "SERVICE_CRYPTO_WALLET",
                "nickname": "Treasury wallet",
                "serviceCryptoWallet": {"cryptoWalletType": "EVM", "chain": "BASE"},
            },
        )
        if k % 3 == 1:
            auto = self.account(
                customer,
                {
                    "paymentAccountType": "SERVICE_AUTO_FIAT_ACCOUNT",
                    "nickname": "EUR collections",
                    "serviceAutoFiatAccount": {"currency": "EUR", "supportedDestinationCurrencies": ["USDC", "EURC"]},
                },
            )
            payment_account_fund(account=auto, chain=None, currency="EUR", amount=self.amount(500, 4000))
        if k % 3 == 0:
            self.pending_bank_account(customer)

        payment_account_fund(account=fiat, chain=None, currency="USD", amount=self.amount(8000, 25000))
        payment_account_fund(account=service_wallet, chain="BASE", currency="USDC", amount=self.amount(3000, 12000))

        onramp = {"source": (bank, "ACH", "USD"), "destination": (wallet, self.chain(wallet), "USDC")}
        funded = {"source": (fiat, "ACH", "USD"), "destination": (wallet, self.chain(wallet), "USDC")}
        offramp = {"source": (service_wallet, "BASE", "USDC"), "destination": (bank, "ACH", "USD")}
        for j in range(3):
            scenario = self.SCENARIOS[(3 * k + j) % len(self.SCENARIOS)]
            self.transaction(customer, scenario, onramp=onramp, funded=funded, offramp=offramp)
        # An open quote, as if the customer were looking at a price (expires in 5 minutes).
        self.quote(customer, **onramp, guarantee=k % 2 == 0)

        if k % 2 == 0:
            self.rule(customer, f"Sweep USD above threshold ({customer.name})", funded, {"thresholdAmount": "5000.00"})
        else:
            self.rule(customer, f"Weekly USDC top-up ({customer.name})", onramp, {"cronSchedule": "0 9 * * 1"})
        if deactivate:
            customer_deactivate(customer=customer)

    def chain(self, wallet: PaymentAccount) -> str:
        return wallet.details["address"]["chain"]

    def amount(self, low: int, high: int) -> Decimal:
        return Decimal(self.rng.randint(low * 100, high * 100)) / 100

    # --- quotes, transactions, rules -------------------------------------------------------

    def quote(self, customer: Customer, *, source, destination, amount=None, guarantee=False) -> Quote:
        src, src_method, src_currency = source
        dst, dst_method, dst_currency = destination
        body = {
            "customerId": str(customer.pk),
            "source": {
                "sourceCurrency": src_currency,
                "sourcePaymentMethod": src_method,
                "sourceAmount": str(amount or self.amount(50, 900)),
                "sourcePaymentAccountId": str(src.account_id),
            },
            "destination": {
                "destinationPaymentAccountId": str(dst.account_id),
                "destinationPaymentMethod": dst_method,
                "destinationCurrency": dst_currency,
            },
            "guaranteeQuote": guarantee,
        }
        if self.rng.random() < 0.3:
            body["developerFee"] = {"developerFeeType": "USD", "developerFeeAmount": "1.50"}
        return quote_create(api_key=self.api_key, data=validated(QuoteCreateIn, body))

    def transaction(self, customer: Customer, scenario: str, *, onramp, funded, offramp) -> Transaction:
        """One transaction brought to `scenario` by the services an integrator and the test
        helpers would use. An external source waits for its transfer (AWAITING_TRANSFER); a
        funded SERVICE_* source starts PROCESSING."""
        S_ = TransactionStatus
        route = {
            S_.AWAITING_TRANSFER: onramp,
            S_.CANCELLED: onramp,
            S_.EXPIRED: onramp,
            "OFFRAMP_COMPLETED": offramp,
        }.get(scenario, funded)
        quote = self.quote(customer, **route)
        self.transaction_count += 1
        correlation = f"INV-{self.today.year}-{self.transaction_count:04d}"
        tx = transaction_create(api_key=self.api_key, quote_id=quote.pk, correlation_id=correlation)
        if scenario == S_.CANCELLED:
            tx = transaction_cancel(api_key=self.api_key, transaction_id=tx.pk)
        elif scenario == S_.EXPIRED:
            tx = self.expire(tx)
        elif scenario in (S_.COMPLETED, S_.FAILED, "OFFRAMP_COMPLETED"):
            to = S_.FAILED if scenario == S_.FAILED else S_.COMPLETED
            tx = transaction_advance(api_key=self.api_key, transaction_id=tx.pk, to=to)
        expected = S_.COMPLETED if scenario == "OFFRAMP_COMPLETED" else scenario
        if tx.status != expected:
            raise AssertionError(f"Demo transaction {tx.pk} is {tx.status}, not {expected}")
        return tx

    def expire(self, tx: Transaction) -> Transaction:
        """No service ages one transaction (clock/advance would move the whole sandbox: every
        organization's open quotes, transfers and reviews), so the transaction and its quote
        are dated two hours back; the sandbox's own expiry-on-read then makes it EXPIRED at
        its expiresAt."""
        back = dt.timedelta(hours=2)
        Quote.objects.filter(pk=tx.quote_id).update(
            created_at=F("created_at") - back, expires_at=F("expires_at") - back, used_at=F("used_at") - back
        )
        Transaction.objects.filter(pk=tx.pk).update(
            created_at=F("created_at") - back, updated_at=F("updated_at") - back, expires_at=F("expires_at") - back
        )
        return transaction_for_key(api_key=self.api_key, transaction_id=tx.pk)

    def rule(self, customer: Customer, name: str, route: dict, trigger: dict) -> AutomationRule:
        (src, src_method, src_currency), (dst, dst_method, dst_currency) = route["source"], route["destination"]
        body = {
            "name": name[:200],
            "customerId": str(customer.pk),
            "transactionTemplate": {
                "source": {
                    "sourcePaymentAccountId": str(src.account_id),
                    "sourcePaymentMethod": src_method,
                    "sourceCurrency": src_currency,
                },
                "destination": {
                    "destinationPaymentAccountId": str(dst.account_id),
                    "destinationPaymentMethod": dst_method,
                    "destinationCurrency": dst_currency,
                },
                "amount": {"type": "FLAT", "value": "500.00"},
            },
            "trigger": trigger,
        }
        return rule_create(api_key=self.api_key, data=validated(RuleCreateIn, body))
