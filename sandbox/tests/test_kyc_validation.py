"""Validation of customer bodies, KYC data and KYB data: each failure is a 400
VALIDATION_ERROR whose details name the exact path."""

import datetime as dt

import pytest

from sandbox.models import Customer
from sandbox.serializers.kyc import choices
from sandbox.serializers.kyc.persons import NATIONAL_ID_FIELDS

from .conftest import KYB_DATA, KYC_DATA, assert_error, customer_body

NATIONAL_ID = {"nationalIdType": "ssn", "nationalIdNumber": "123-45-6789", "nationalIdIssuingCountry": "US"}

FULL_KYC = {
    **KYC_DATA,
    "legalMiddleName": "Augusta",
    "employmentStatus": "EMPLOYED",
    "mostRecentOccupation": "15-1252",
    "sourceOfFunds": "SALARY",
    "accountPurpose": "PERSONAL_EXPENSES",
    "accountPurposeOther": "Travel",
    "expectedMonthlyPaymentsUsd": "BETWEEN_10000_49999",
    "isIntermediary": False,
    "documents": [
        {
            "type": "GOVERNMENT_ID",
            "subtype": "NATIONAL_ID",
            "countryCode": "US",
            "documentIdNumber": "D123",
            "issuanceDate": "2020-01-31",
            "expirationDate": "2030-01-30",
            "frontIdImage": "data:image/png;base64,AAAA",
            "backIdImage": "data:image/png;base64,BBBB",
            "proofOfAddressImage": "data:image/png;base64,CCCC",
            "description": "Driver's licence",
        }
    ],
}
PERSON = {
    "legalFirstName": "Charles",
    "legalMiddleName": "B",
    "legalLastName": "Babbage",
    "email": "charles@engines.example",
    "phoneNumber": "+442079460958",
    "dateOfBirth": "1971-12-26",
    "address": {
        "countryCode": "GB",
        "streetLine1": "1 Dorset Street",
        "streetLine2": "Flat 2",
        "city": "London",
        "stateRegionProvince": "London",
        "postalCode": "W1U 4EG",
        "locale": "en-GB",
    },
    "ownershipPercentage": 0.25,
    "title": "CEO",
    "isControlPerson": True,
    "isSigner": True,
    "isDirector": False,
    **NATIONAL_ID,
    "nationality": "GB",
    "documents": [{"type": "GOVERNMENT_ID", "subtype": "PASSPORT", "frontIdImage": "AAAA"}],
}
FULL_KYB = {
    "businessInfo": {
        "legalBusinessName": "Analytical Engines LLC",
        "dbaName": "Engines",
        "businessType": "LIMITED_LIABILITY_COMPANY",
        "businessIndustries": "541511",
        "businessDescription": "Software",
        "website": "https://engines.example",
        "otherLinks": ["https://social.example/engines"],
        "formationDate": "2015-03-01",
        "registrationCountry": "US",
        "isDao": False,
    },
    "businessRegistrationNumber": "REG-1",
    "sourceOfFunds": "SALE_OF_GOODS_AND_SERVICES",
    "sourceOfFundsDescription": "Sales",
    "accountPurpose": "CHARITABLE_DONATIONS",
    "accountPurposeOther": "Grants",
    "expectedMonthlyVolumeUsd": "LESS_THAN_10000",
    "estimatedAnnualRevenueUsd": "LESS_THAN_100000",
    "conductsMoneyServices": False,
    "conductsMoneyServicesDescription": "None",
    "conductsMoneyServicesThroughService": False,
    "operatesInProhibitedCountries": False,
    "complianceScreeningDescription": "Screened",
    "highRiskActivities": ["ADULT_ENTERTAINMENT", "FOREIGN_EXCHANGE_OR_BROKERAGE"],
    "highRiskActivitiesExplanation": "None really",
    "associatedPersons": [PERSON],
    "businessDocuments": [{"type": "ARTICLES_OF_INCORPORATION", "documentImage": "AAAA", "description": "Articles"}],
}


def post_kyc(api, **kyc_fields):
    return api.post("/customers", customer_body(kycData={**KYC_DATA, **kyc_fields}))


def post_kyb(api, **kyb_fields):
    return api.post("/customers", customer_body("BUSINESS", kybData={**KYB_DATA, **kyb_fields}))


def post_person(api, **person_fields):
    return post_kyb(api, associatedPersons=[{**PERSON, **person_fields}])


def details(response) -> dict:
    """{tuple(path): message} of a VALIDATION_ERROR answer."""
    body = assert_error(response, 400, "VALIDATION_ERROR")
    assert body["message"] == "Validation failed"
    for item in body["details"]:
        assert set(item) == {"path", "message", "location"}
        assert item["location"] == "body"
        assert isinstance(item["path"], list)
    return {tuple(item["path"]): item["message"] for item in body["details"]}


# --- Complete bodies --------------------------------------------------------------------------


def test_full_kyc_data_is_accepted_and_kept_as_sent(api):
    response = api.post("/customers", customer_body(kycData=FULL_KYC))

    assert response.status_code == 201, response.json()
    assert Customer.objects.get(pk=response.json()["customerId"]).kyc_data == FULL_KYC


def test_full_kyb_data_is_accepted_and_kept_as_sent(api):
    response = api.post("/customers", customer_body("BUSINESS", kybData=FULL_KYB))

    assert response.status_code == 201, response.json()
    assert Customer.objects.get(pk=response.json()["customerId"]).kyb_data == FULL_KYB


# --- Required fields of the create body -------------------------------------------------------


@pytest.mark.parametrize(
    ("customer_type", "missing"),
    [
        ("INDIVIDUAL", "customerType"),
        ("INDIVIDUAL", "email"),
        ("INDIVIDUAL", "firstName"),
        ("INDIVIDUAL", "lastName"),
        ("BUSINESS", "email"),
        ("BUSINESS", "businessName"),
    ],
)
def test_create_required_fields(api, customer_type, missing):
    body = customer_body(customer_type, with_data=False)
    del body[missing]

    errors = details(api.post("/customers", body))

    assert (missing,) in errors
    assert "required" in errors[(missing,)]
    assert Customer.objects.count() == 0


def test_create_customer_type_lists_the_allowed_values(api):
    errors = details(api.post("/customers", customer_body(customerType="PERSON")))
    assert errors[("customerType",)] == "'PERSON' is not allowed; allowed values: INDIVIDUAL, BUSINESS."


@pytest.mark.parametrize("value", [5, ["INDIVIDUAL"], {"type": "INDIVIDUAL"}, None, True, "individual"])
def test_create_customer_type_must_be_one_of_the_strings(api, value):
    errors = details(api.post("/customers", customer_body(customerType=value)))
    assert list(errors) == [("customerType",)]


@pytest.mark.parametrize("email", ["not-an-email", 42, "", None])
def test_create_email_must_be_an_address(api, email):
    assert ("email",) in details(api.post("/customers", customer_body(email=email)))


@pytest.mark.parametrize(
    ("customer_type", "extra", "message"),
    [
        ("INDIVIDUAL", {"businessName": "X"}, "businessName applies to BUSINESS customers only, not INDIVIDUAL."),
        ("INDIVIDUAL", {"kybData": KYB_DATA}, "kybData applies to BUSINESS customers only, not INDIVIDUAL."),
        ("BUSINESS", {"firstName": "X"}, "firstName applies to INDIVIDUAL customers only, not BUSINESS."),
        ("BUSINESS", {"kycData": KYC_DATA}, "kycData applies to INDIVIDUAL customers only, not BUSINESS."),
    ],
)
def test_create_refuses_the_other_types_fields(api, customer_type, extra, message):
    errors = details(api.post("/customers", customer_body(customer_type, **extra)))
    assert errors[(next(iter(extra)),)] == message


def test_update_refuses_the_other_types_data(api, customer_factory):
    customer = customer_factory("CREATED")

    errors = details(api.patch(f"/customers/{customer['customerId']}", {"kybData": KYB_DATA}))

    assert errors == {("kybData",): "kybData applies to BUSINESS customers only, not INDIVIDUAL."}


@pytest.mark.parametrize("body", ["[]", '"text"', "5", "null"])
def test_body_must_be_an_object(api, body):
    response = api.client.post("/sandbox/customers", body, content_type="application/json")
    errors = details(response)
    assert list(errors) == [()]


def test_several_failures_are_reported_together(api):
    body = customer_body(email="nope", kycData={**KYC_DATA, "nationality": "XX", "isIntermediary": "no"})

    errors = details(api.post("/customers", body))

    assert set(errors) == {("email",), ("kycData", "nationality"), ("kycData", "isIntermediary")}


# --- National ID triple -----------------------------------------------------------------------


@pytest.mark.parametrize("missing", NATIONAL_ID_FIELDS)
def test_create_kyc_needs_the_whole_national_id_triple(api, missing):
    kyc_data = {k: v for k, v in KYC_DATA.items() if k != missing}

    errors = details(api.post("/customers", customer_body(kycData=kyc_data)))

    assert errors == {
        ("kycData", missing): "nationalIdType, nationalIdNumber and nationalIdIssuingCountry must be sent together."
    }


def test_create_kyc_without_any_national_id_names_all_three(api):
    errors = details(api.post("/customers", customer_body(kycData={"legalFirstName": "Ada"})))
    assert set(errors) == {("kycData", name) for name in NATIONAL_ID_FIELDS}


@pytest.mark.parametrize("sent", NATIONAL_ID_FIELDS)
def test_update_with_one_national_id_field_needs_the_other_two(api, customer_factory, sent):
    customer = customer_factory("CREATED")

    errors = details(api.patch(f"/customers/{customer['customerId']}", {"kycData": {sent: NATIONAL_ID[sent]}}))

    assert set(errors) == {("kycData", name) for name in NATIONAL_ID_FIELDS if name != sent}


def test_update_without_national_id_fields_is_fine(api, customer_factory):
    customer = customer_factory("CREATED")

    response = api.patch(f"/customers/{customer['customerId']}", {"kycData": {"legalFirstName": "Ada"}})

    assert response.status_code == 200


def test_update_with_the_whole_triple_is_fine(api, customer_factory):
    customer = customer_factory("CREATED")

    response = api.patch(f"/customers/{customer['customerId']}", {"kycData": NATIONAL_ID})

    assert response.status_code == 200


@pytest.mark.parametrize("missing", NATIONAL_ID_FIELDS)
def test_create_associated_person_needs_the_whole_triple(api, missing):
    person = {k: v for k, v in PERSON.items() if k != missing}

    errors = details(post_kyb(api, associatedPersons=[PERSON, person]))

    assert list(errors) == [("kybData", "associatedPersons", 1, missing)]


def test_update_associated_person_triple_is_all_or_none(api, customer_factory):
    customer = customer_factory("CREATED", "BUSINESS")
    path = f"/customers/{customer['customerId']}"
    no_id = {k: v for k, v in PERSON.items() if k not in NATIONAL_ID_FIELDS}

    errors = details(api.patch(path, {"kybData": {"associatedPersons": [{**no_id, "nationalIdType": "ssn"}]}}))

    assert set(errors) == {
        ("kybData", "associatedPersons", 0, "nationalIdNumber"),
        ("kybData", "associatedPersons", 0, "nationalIdIssuingCountry"),
    }
    assert api.patch(path, {"kybData": {"associatedPersons": [no_id]}}).status_code == 200


# --- Dates --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["1990-13-01", "1990-02-30", "19900101", "01/02/1990", "1990-1-1", 19900101, ""])
def test_dates_must_be_real_yyyy_mm_dd(api, value):
    errors = details(post_kyc(api, dateOfBirth=value))
    assert ("kycData", "dateOfBirth") in errors


def test_date_message(api):
    errors = details(post_kyc(api, dateOfBirth="1990-02-30"))
    assert errors[("kycData", "dateOfBirth")] == "Must be a date written YYYY-MM-DD."


def test_date_of_birth_cannot_be_in_the_future(api):
    tomorrow = (dt.date.today() + dt.timedelta(days=2)).isoformat()
    errors = details(post_kyc(api, dateOfBirth=tomorrow))
    assert errors[("kycData", "dateOfBirth")] == "Must not be in the future."


def test_leap_day_is_a_date(api):
    assert post_kyc(api, dateOfBirth="2000-02-29").status_code == 201


@pytest.mark.parametrize(
    ("field", "path"),
    [
        ("issuanceDate", ("kycData", "documents", 0, "issuanceDate")),
        ("expirationDate", ("kycData", "documents", 0, "expirationDate")),
    ],
)
def test_document_dates(api, field, path):
    errors = details(post_kyc(api, documents=[{"type": "GOVERNMENT_ID", field: "2020-02-31"}]))
    assert path in errors


def test_business_dates(api):
    errors = details(post_kyb(api, businessInfo={"formationDate": "2015/03/01"}))
    assert ("kybData", "businessInfo", "formationDate") in errors


# --- Country codes ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["us", "XX", "USA", "U", 1, ""])
def test_country_codes_must_exist(api, value):
    errors = details(post_kyc(api, nationality=value))
    assert ("kycData", "nationality") in errors


def test_country_code_message(api):
    errors = details(post_kyc(api, nationalIdIssuingCountry="XX"))
    assert errors[("kycData", "nationalIdIssuingCountry")] == (
        "Must be an existing two-letter (ISO 3166-1 alpha-2) country code, upper-case."
    )


@pytest.mark.parametrize(
    ("kyb", "path"),
    [
        ({"businessInfo": {"registrationCountry": "ZZ"}}, ("kybData", "businessInfo", "registrationCountry")),
        (
            {"associatedPersons": [{**PERSON, "address": {"countryCode": "uk"}}]},
            ("kybData", "associatedPersons", 0, "address", "countryCode"),
        ),
        ({"associatedPersons": [{**PERSON, "nationality": "EU"}]}, ("kybData", "associatedPersons", 0, "nationality")),
    ],
)
def test_nested_country_codes(api, kyb, path):
    assert path in details(post_kyb(api, **kyb))


# --- Phone numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["+12025550123", "+44 20 7946 0958", "+33612345678"])
def test_international_phone_numbers_are_accepted(api, value):
    assert post_kyc(api, phoneNumber=value).status_code == 201


@pytest.mark.parametrize("value", ["2025550123", "+1202", "+999123456789", "phone", 12025550123, ""])
def test_phone_numbers_must_be_international_and_valid(api, value):
    errors = details(post_kyc(api, phoneNumber=value))
    assert ("kycData", "phoneNumber") in errors


def test_phone_message(api):
    errors = details(post_person(api, phoneNumber="020 7946 0958"))
    assert errors[("kybData", "associatedPersons", 0, "phoneNumber")] == (
        "Must be a valid phone number in international format, e.g. +12025550123."
    )


# --- businessType -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", choices.BUSINESS_TYPES)
def test_the_14_canonical_business_types_are_accepted(api, value):
    assert post_kyb(api, businessInfo={"businessType": value}).status_code == 201


def test_there_are_14_business_types():
    assert len(choices.BUSINESS_TYPES) == 14


@pytest.mark.parametrize("value", ["LLC", "CORPORATION", "PARTNERSHIP", "limited_liability_company", "NONPROFIT"])
def test_business_type_aliases_are_refused_listing_the_allowed_values(api, value):
    errors = details(post_kyb(api, businessInfo={"businessType": value}))

    message = errors[("kybData", "businessInfo", "businessType")]
    assert message.startswith(f"'{value}' is not allowed; allowed values: B_CORPORATION, C_CORPORATION,")
    assert all(name in message for name in choices.BUSINESS_TYPES)


# --- ownershipPercentage ------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 0.25, 1, 1.0])
def test_ownership_is_a_fraction(api, value):
    assert post_person(api, ownershipPercentage=value).status_code == 201


@pytest.mark.parametrize("value", [25, 1.01, -0.1, "0.25", True, None])
def test_ownership_outside_0_to_1_or_not_a_number_is_refused(api, value):
    errors = details(post_person(api, ownershipPercentage=value))
    assert ("kybData", "associatedPersons", 0, "ownershipPercentage") in errors


def test_ownership_message(api):
    errors = details(post_person(api, ownershipPercentage=25))
    assert errors[("kybData", "associatedPersons", 0, "ownershipPercentage")] == (
        "Must be from 0 to 1 (a quarter is 0.25)."
    )


# --- Address lines ----------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["streetLine1", "streetLine2"])
def test_street_lines_need_4_characters(api, field):
    errors = details(post_person(api, address={**PERSON["address"], field: "1 A"}))
    assert errors[("kybData", "associatedPersons", 0, "address", field)] == "Must be at least 4 characters."


def test_street_line_of_4_characters_is_enough(api):
    assert post_person(api, address={"streetLine1": "1 Ab", "streetLine2": "Ab 2"}).status_code == 201


# --- Removed and unknown fields ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("middleName", "middleName was removed; send legalMiddleName"),
        ("taxIdNumber", "taxIdNumber was removed; send nationalIdType, nationalIdNumber and nationalIdIssuingCountry"),
        ("title", "title was removed from KYC data"),
    ],
)
def test_removed_kyc_fields_are_refused_by_name(api, field, message):
    errors = details(post_kyc(api, **{field: "x"}))
    assert errors == {("kycData", field): message}


def test_kyc_link_is_refused_by_name(api):
    errors = details(api.post("/customers", customer_body(kycLink="https://old.example")))
    assert errors == {("kycLink",): "kycLink was removed; the customer's verificationLink replaces it"}


def test_removed_fields_are_refused_on_update_too(api, customer_factory):
    customer = customer_factory("CREATED")

    errors = details(api.patch(f"/customers/{customer['customerId']}", {"kycData": {"middleName": "A"}}))

    assert errors == {("kycData", "middleName"): "middleName was removed; send legalMiddleName"}


def test_associated_person_keeps_title_but_not_middle_name(api):
    assert post_person(api, title="Director").status_code == 201
    errors = details(post_person(api, middleName="B"))
    assert errors == {("kybData", "associatedPersons", 0, "middleName"): "middleName was removed; send legalMiddleName"}


@pytest.mark.parametrize(
    ("body", "path"),
    [
        (customer_body(nickname="x"), ("nickname",)),
        (customer_body(kycData={**KYC_DATA, "favouriteColour": "x"}), ("kycData", "favouriteColour")),
        (customer_body(kycData={**KYC_DATA, "documents": [{"colour": "x"}]}), ("kycData", "documents", 0, "colour")),
        (customer_body("BUSINESS", kybData={"businessInfo": {"ein": "1"}}), ("kybData", "businessInfo", "ein")),
    ],
)
def test_unknown_fields_are_refused(api, body, path):
    errors = details(api.post("/customers", body))
    assert errors[path].startswith(f"Unknown field '{path[-1]}'; allowed fields here: ")


def test_update_accepts_only_kyc_and_kyb_data(api, customer_factory):
    customer = customer_factory("CREATED")

    errors = details(api.patch(f"/customers/{customer['customerId']}", {"email": "new@example.com"}))

    assert errors == {("email",): "Unknown field 'email'; allowed fields here: kycData, kybData."}


# --- Enumerations -------------------------------------------------------------------------------

KYC_ENUMS = [
    ("employmentStatus", choices.EMPLOYMENT_STATUSES, "EMPLOYED"),
    ("sourceOfFunds", choices.KYC_SOURCES_OF_FUNDS, "SALARY"),
    ("accountPurpose", choices.KYC_ACCOUNT_PURPOSES, "PERSONAL_EXPENSES"),
    ("expectedMonthlyPaymentsUsd", choices.EXPECTED_MONTHLY_PAYMENTS_USD, "BETWEEN_10000_49999"),
]
KYB_ENUMS = [
    ("sourceOfFunds", choices.KYB_SOURCES_OF_FUNDS, "SALE_OF_GOODS_AND_SERVICES"),
    ("accountPurpose", choices.KYB_ACCOUNT_PURPOSES, "CHARITABLE_DONATIONS"),
    ("expectedMonthlyVolumeUsd", choices.EXPECTED_MONTHLY_VOLUMES_USD, "LESS_THAN_10000"),
    ("estimatedAnnualRevenueUsd", choices.ESTIMATED_ANNUAL_REVENUES_USD, "LESS_THAN_100000"),
]


@pytest.mark.parametrize(("field", "values", "seen"), KYC_ENUMS)
def test_kyc_enums_accept_their_values_and_refuse_others(api, field, values, seen):
    assert seen in values
    for value in values:
        assert post_kyc(api, **{field: value}).status_code == 201
    errors = details(post_kyc(api, **{field: "SOMETHING_ELSE"}))
    assert errors[("kycData", field)] == f"'SOMETHING_ELSE' is not allowed; allowed values: {', '.join(values)}."


@pytest.mark.parametrize(("field", "values", "seen"), KYB_ENUMS)
def test_kyb_enums_accept_their_values_and_refuse_others(api, field, values, seen):
    assert seen in values
    for value in values:
        assert post_kyb(api, **{field: value}).status_code == 201
    assert ("kybData", field) in details(post_kyb(api, **{field: "SOMETHING_ELSE"}))


def test_high_risk_activities_are_checked_item_by_item(api):
    errors = details(post_kyb(api, highRiskActivities=["ADULT_ENTERTAINMENT", "PIRACY"]))
    assert list(errors) == [("kybData", "highRiskActivities", 1)]


def test_high_risk_activities_is_an_array(api):
    assert ("kybData", "highRiskActivities") in details(post_kyb(api, highRiskActivities="GAMBLING"))


@pytest.mark.parametrize(
    ("kyc_fields", "path"),
    [
        ({"documents": [{"type": "PHOTO"}]}, ("kycData", "documents", 0, "type")),
        ({"documents": [{"subtype": "ID"}]}, ("kycData", "documents", 0, "subtype")),
    ],
)
def test_document_enums(api, kyc_fields, path):
    assert path in details(post_kyc(api, **kyc_fields))


def test_business_document_type(api):
    errors = details(post_kyb(api, businessDocuments=[{"type": "BYLAWS"}]))
    assert ("kybData", "businessDocuments", 0, "type") in errors


@pytest.mark.parametrize("value", ["SSN", "Passport", "social security", 123])
def test_national_id_type_is_lower_case(api, value):
    assert ("kycData", "nationalIdType") in details(post_kyc(api, nationalIdType=value))


# --- Strict JSON types --------------------------------------------------------------------------


@pytest.mark.parametrize("value", [5, 1.5, True, ["Ada"], {"a": 1}, None, ""])
def test_strings_must_be_strings(api, value):
    assert ("kycData", "legalFirstName") in details(post_kyc(api, legalFirstName=value))


@pytest.mark.parametrize("value", ["true", 1, 0, "yes", None])
def test_booleans_must_be_booleans(api, value):
    errors = details(post_kyc(api, isIntermediary=value))
    assert ("kycData", "isIntermediary") in errors


def test_boolean_message(api):
    errors = details(post_kyb(api, businessInfo={"isDao": "false"}))
    assert errors[("kybData", "businessInfo", "isDao")] == "Must be a boolean (true or false)."


def test_document_image_must_be_a_string_at_its_exact_path(api):
    errors = details(post_kyc(api, documents=[{"type": "GOVERNMENT_ID"}, {"backIdImage": 5}]))
    assert errors == {("kycData", "documents", 1, "backIdImage"): "Must be a string."}


@pytest.mark.parametrize(("field", "value"), [("documents", {"type": "GOVERNMENT_ID"}), ("documents", "x")])
def test_arrays_must_be_arrays(api, field, value):
    assert ("kycData", field) in details(post_kyc(api, **{field: value}))


@pytest.mark.parametrize("value", ["text", [], 5, None])
def test_kyc_data_must_be_an_object(api, value):
    errors = details(api.post("/customers", customer_body(kycData=value)))
    assert list(errors) == [("kycData",)]


def test_other_links_are_strings(api):
    errors = details(post_kyb(api, businessInfo={"otherLinks": ["https://a.example", 7]}))
    assert list(errors) == [("kybData", "businessInfo", "otherLinks", 1)]
