"""The demo's customers: individuals and businesses in every status, with KYC/KYB data that
leads the review simulation to that status."""

import datetime as dt
import itertools
import unicodedata

import phonenumbers

from ..models import Customer, CustomerStatus, CustomerType
from ..serializers.customers import CustomerCreateSerializer, CustomerUpdateSerializer
from ..serializers.fields import validated
from ..services.customers import customer_create, customer_review, customer_update
from ..services.verification import review_outcome
from .accounts import external_wallet, pending_bank_account
from .payments import fill_active_customer
from .seeding import Seeding

INDIVIDUAL, BUSINESS = CustomerType.INDIVIDUAL, CustomerType.BUSINESS
# (status, type, how the KYC/KYB data falls short), cycled over the customers. The first ten
# cover every status; the second ten add the other issue kinds and the refill path.
PROFILES = [
    (CustomerStatus.ACTIVE, INDIVIDUAL, None),
    (CustomerStatus.ACTIVE, BUSINESS, None),
    (CustomerStatus.CREATED, INDIVIDUAL, None),
    (CustomerStatus.UNDER_REVIEW, BUSINESS, None),
    (CustomerStatus.NEEDS_ADDITIONAL_INFORMATION, INDIVIDUAL, "no_back_image"),
    (CustomerStatus.ACTIVE, INDIVIDUAL, None),
    (CustomerStatus.REJECTED, INDIVIDUAL, "sanctioned"),
    (CustomerStatus.NEEDS_ADDITIONAL_INFORMATION, BUSINESS, "no_control_person"),
    (CustomerStatus.DEACTIVATED, INDIVIDUAL, None),
    (CustomerStatus.ACTIVE, BUSINESS, None),
    (CustomerStatus.ACTIVE, INDIVIDUAL, None),
    (CustomerStatus.CREATED, BUSINESS, None),
    (CustomerStatus.UNDER_REVIEW, INDIVIDUAL, "refilled"),
    (CustomerStatus.NEEDS_ADDITIONAL_INFORMATION, INDIVIDUAL, "no_proof_of_address"),
    (CustomerStatus.ACTIVE, BUSINESS, None),
    (CustomerStatus.REJECTED, BUSINESS, "sanctioned"),
    (CustomerStatus.ACTIVE, INDIVIDUAL, None),
    (CustomerStatus.DEACTIVATED, BUSINESS, None),
    (CustomerStatus.NEEDS_ADDITIONAL_INFORMATION, INDIVIDUAL, "no_back_image"),
    (CustomerStatus.ACTIVE, INDIVIDUAL, None),
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


def seed_customers(run: Seeding, count: int) -> None:
    for index in range(count):
        status, customer_type, shortfall = PROFILES[index % len(PROFILES)]
        seed_customer(run, index, status, customer_type, shortfall)


def seed_customer(run: Seeding, index: int, status: str, customer_type: str, shortfall: str | None) -> Customer:
    """One customer brought to `status` with the KYC/KYB data of `shortfall`, and what an ACTIVE
    one holds."""
    country = SANCTIONED if shortfall == "sanctioned" else run.rng.choice(COUNTRIES)
    if customer_type == INDIVIDUAL:
        body = individual_body(run, country, shortfall)
    else:
        body = business_body(run, index, country, shortfall)
    if status == CustomerStatus.CREATED:
        body.pop("kycData", None)
        body.pop("kybData", None)
    data = validated(CustomerCreateSerializer, body)
    customer = customer_create(api_key=run.api_key, data=data)
    if status == CustomerStatus.CREATED:
        if index % 4 == 2:
            # Integrators often register the payout account before verification is done.
            pending_bank_account(run, customer)
        return customer
    if shortfall == "refilled":
        # NEEDS_ADDITIONAL_INFORMATION, then the missing back image arrives by PATCH.
        decide(customer, CustomerStatus.NEEDS_ADDITIONAL_INFORMATION)
        document = {**customer.kyc_data["documents"][0], "backIdImage": IMAGE}
        update = {"kycData": {"documents": [document]}}
        serializer = CustomerUpdateSerializer(data=update, partial=True, context={"customer_type": INDIVIDUAL})
        serializer.is_valid(raise_exception=True)
        customer = customer_update(customer=customer, data=serializer.validated_data)
    if status == CustomerStatus.UNDER_REVIEW:
        # Held for a manual review: no automatic outcome comes (review_due_at null); the
        # review test helper decides it. Without this, the simulation would settle it.
        Customer.objects.filter(pk=customer.pk, status=CustomerStatus.UNDER_REVIEW).update(review_due_at=None)
        return customer
    outcome = CustomerStatus.ACTIVE if status == CustomerStatus.DEACTIVATED else status
    customer = decide(customer, outcome)
    if outcome == CustomerStatus.NEEDS_ADDITIONAL_INFORMATION and index % 3 == 0:
        external_wallet(run, customer)
    if outcome == CustomerStatus.ACTIVE:
        fill_active_customer(run, customer, deactivate=status == CustomerStatus.DEACTIVATED)
    return customer


def decide(customer: Customer, outcome: str) -> Customer:
    """Complete the review now, with the outcome and issues the simulation would reach."""
    status, issues = review_outcome(customer)
    if status != outcome:
        raise AssertionError(f"The demo data of {customer.name} leads to {status}, not {outcome}: {issues}")
    return customer_review(customer=customer, outcome=outcome, issues=issues)


def person(run: Seeding, country: tuple[str, str]) -> dict:
    code, id_type = country
    first, last = run.rng.choice(FIRST_NAMES), run.rng.choice(LAST_NAMES)
    born = run.today - dt.timedelta(days=run.rng.randint(22 * 365, 70 * 365))
    return {
        "legalFirstName": first,
        "legalLastName": last,
        "phoneNumber": phone(run, code),
        "dateOfBirth": born.isoformat(),
        "nationalIdIssuingCountry": code,
        "nationalIdType": id_type,
        "nationalIdNumber": national_id(run, id_type),
        "nationality": code,
    }


def unique_individual(run: Seeding, first: str, last: str) -> tuple[str, str]:
    """(first, last) as drawn, or the next pair of the lists no customer holds yet: staff tell
    customers apart by name. Stepping, not drawing again, leaves the random numbers as they were."""
    start = (FIRST_NAMES.index(first), LAST_NAMES.index(last))
    for step in range(len(FIRST_NAMES) * len(LAST_NAMES)):
        candidate = (
            FIRST_NAMES[(start[0] + step // len(LAST_NAMES)) % len(FIRST_NAMES)],
            LAST_NAMES[(start[1] + step) % len(LAST_NAMES)],
        )
        if f"{candidate[0]} {candidate[1]}" not in run.used_names:
            run.used_names.add(f"{candidate[0]} {candidate[1]}")
            return candidate
    raise ValueError("More individual customers than the demo has distinct names for")


def unique_business(run: Seeding, index: int) -> tuple[str, str, str, str]:
    """The business of this index, or the next one no customer holds yet; once every name is
    taken, a name with a branch ("Helix Analytics West"), then a numbered one ("Helix Analytics 7")."""
    branches = itertools.chain(
        ("", " West", " East", " North", " South", " Central"), (f" {n}" for n in itertools.count(2))
    )
    for branch in branches:
        for step in range(len(BUSINESSES)):
            name, *rest = BUSINESSES[(index + step) % len(BUSINESSES)]
            if f"{name}{branch}" not in run.used_names:
                run.used_names.add(f"{name}{branch}")
                return (f"{name}{branch}", *rest)
    raise AssertionError("unreachable: the numbered branches never end")


def individual_body(run: Seeding, country: tuple[str, str], shortfall: str | None) -> dict:
    kyc = person(run, country)
    first, last = unique_individual(run, kyc["legalFirstName"], kyc["legalLastName"])
    kyc |= {"legalFirstName": first, "legalLastName": last}
    document = {
        "type": "GOVERNMENT_ID",
        "subtype": "NATIONAL_ID" if country[0] != "US" else "DRIVERS_LICENSE",
        "countryCode": country[0],
        "documentIdNumber": f"{run.rng.randint(10**8, 10**9 - 1)}",
        "issuanceDate": (run.today - dt.timedelta(days=run.rng.randint(200, 2500))).isoformat(),
        "expirationDate": (run.today + dt.timedelta(days=run.rng.randint(200, 2500))).isoformat(),
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
        "employmentStatus": run.rng.choice(["EMPLOYED", "EMPLOYED", "SELF_EMPLOYED", "RETIRED"]),
        "mostRecentOccupation": run.rng.choice(["15-1252", "29-1141", "13-2011", "41-3091", "25-2021"]),
        "sourceOfFunds": run.rng.choice(["SALARY", "SALARY", "SAVINGS", "BUSINESS_INCOME"]),
        "accountPurpose": run.rng.choice(["PERSONAL_EXPENSES", "SAVINGS", "PAYMENTS_TO_FRIENDS_OR_FAMILY"]),
        "expectedMonthlyPaymentsUsd": run.rng.choice(["LESS_THAN_10000", "BETWEEN_10000_49999"]),
        "isIntermediary": False,
        "documents": [document],
    }
    return {
        "customerType": INDIVIDUAL,
        "email": email(run, f"{first}.{last}", "example.com"),
        "firstName": first,
        "lastName": last,
        "kycData": kyc,
    }


def business_body(run: Seeding, index: int, country: tuple[str, str], shortfall: str | None) -> dict:
    name, business_type, industry, description = unique_business(run, index)
    code = "CU" if shortfall == "sanctioned" else country[0]
    slug = "".join(c for c in name.lower() if c.isalnum())
    owner = person(run, run.rng.choice(COUNTRIES))
    city, region, postal = CITIES[owner["nationality"]]
    owner |= {
        "email": email(run, f"{owner['legalFirstName']}.{owner['legalLastName']}", f"{slug}.example"),
        "address": {
            "countryCode": owner["nationality"],
            "streetLine1": f"{run.rng.randint(2, 980)} {run.rng.choice(STREETS)}",
            "city": city,
            "stateRegionProvince": region,
            "postalCode": postal,
        },
        "ownershipPercentage": run.rng.choice([0.25, 0.5, 0.6, 1.0]),
        "title": run.rng.choice(["CEO", "Managing Director", "Founder", "President"]),
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
            "formationDate": (run.today - dt.timedelta(days=run.rng.randint(400, 9000))).isoformat(),
            "registrationCountry": code,
            "isDao": False,
        },
        "businessRegistrationNumber": f"{code}-{run.rng.randint(10**6, 10**7 - 1)}",
        "sourceOfFunds": "SALE_OF_GOODS_AND_SERVICES",
        "accountPurpose": run.rng.choice(["PAYMENTS_TO_SUPPLIERS", "RECEIVE_PAYMENTS_FOR_GOODS_AND_SERVICES"]),
        "expectedMonthlyVolumeUsd": run.rng.choice(["LESS_THAN_10000", "BETWEEN_10000_99999"]),
        "estimatedAnnualRevenueUsd": run.rng.choice(["LESS_THAN_100000", "BETWEEN_100000_999999"]),
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
        "customerType": BUSINESS,
        "email": email(run, "finance", f"{slug}.example"),
        "businessName": name,
        "kybData": kyb,
    }


def email(run: Seeding, local: str, domain: str) -> str:
    # ASCII local parts: "Chloé" -> "chloe" (the sandbox accepts no accented addresses).
    ascii_local = unicodedata.normalize("NFKD", local).encode("ascii", "ignore").decode()
    base = ascii_local.lower().replace(" ", "")
    email, n = f"{base}@{domain}", 1
    while email in run.used_emails:
        n += 1
        email = f"{base}{n}@{domain}"
    run.used_emails.add(email)
    return email


def phone(run: Seeding, country: str) -> str:
    if country == "US":
        # 555-0100..0199: reserved for fiction, valid to phonenumbers.
        return f"+1{run.rng.choice(['202', '312', '415', '617'])}55501{run.rng.randint(0, 99):02d}"
    number = phonenumbers.example_number_for_type(country, phonenumbers.PhoneNumberType.MOBILE)
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def national_id(run: Seeding, id_type: str) -> str:
    digits = "".join(str(run.rng.randint(0, 9)) for _ in range(9))
    if id_type == "ssn":
        return f"{digits[:3]}-{digits[3:5]}-{digits[5:]}"
    return digits
