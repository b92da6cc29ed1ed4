"""Customers: the record, its verification issues, and the KYC (individual) and KYB (business) data."""

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any

from pydantic import Field, PlainSerializer

from ._base import ApiModel, JsonNumber, OpenEnum


class CustomerStatus(OpenEnum):
    CREATED = "CREATED"
    UNDER_REVIEW = "UNDER_REVIEW"
    NEEDS_ADDITIONAL_INFORMATION = "NEEDS_ADDITIONAL_INFORMATION"
    ACTIVE = "ACTIVE"
    REJECTED = "REJECTED"
    DEACTIVATED = "DEACTIVATED"


class CustomerType(OpenEnum):
    INDIVIDUAL = "INDIVIDUAL"
    BUSINESS = "BUSINESS"


class VerificationIssue(ApiModel):
    code: str
    message: str | None = None
    timestamp: datetime | None = None


class Customer(ApiModel):
    customer_id: str
    customer_status: CustomerStatus
    customer_type: CustomerType | None = None
    name: str | None = None
    email: str | None = None
    verification_link: str | None = None
    updated_at: datetime | None = None
    organization_id: str | None = None
    # None when the API did not send it (single read without include_payment_methods).
    available_payment_methods: list[str] | None = None
    verification_issues: list[VerificationIssue] = Field(default_factory=list)


class Address(ApiModel):
    country_code: str | None = None
    street_line1: str | None = Field(default=None, alias="streetLine1")
    street_line2: str | None = Field(default=None, alias="streetLine2")
    city: str | None = None
    state_region_province: str | None = None
    postal_code: str | None = None
    locale: str | None = None


class Document(ApiModel):
    type: str | None = None
    subtype: str | None = None
    country_code: str | None = None
    document_id_number: str | None = None
    issuance_date: date | None = None
    expiration_date: date | None = None
    front_id_image: str | None = None
    back_id_image: str | None = None
    proof_of_address_image: str | None = None
    description: str | None = None


class Person(ApiModel):
    """Who a person is, as the KYC of an individual and a business's associated persons both
    give it. Request parts: send only what is set (the client drops None fields)."""

    legal_first_name: str | None = None
    legal_middle_name: str | None = None
    legal_last_name: str | None = None
    phone_number: str | None = None
    date_of_birth: date | None = None
    national_id_issuing_country: str | None = None
    national_id_type: str | None = None
    national_id_number: str | None = None
    nationality: str | None = None
    documents: list[Document] | None = None


class KycData(Person):
    employment_status: str | None = None
    most_recent_occupation: str | None = None
    source_of_funds: str | None = None
    account_purpose: str | None = None
    account_purpose_other: str | None = None
    expected_monthly_payments_usd: str | None = None
    is_intermediary: bool | None = None


class BusinessInfo(ApiModel):
    legal_business_name: str | None = None
    dba_name: str | None = None
    business_type: str | None = None
    business_industries: str | None = None
    business_description: str | None = None
    website: str | None = None
    other_links: list[str] | None = None
    formation_date: date | None = None
    registration_country: str | None = None
    is_dao: bool | None = None


class AssociatedPerson(Person):
    email: str | None = None
    address: Address | None = None
    # A fraction (a quarter is 0.25). Unlike amounts, the wire wants a JSON number here.
    ownership_percentage: Annotated[Decimal, PlainSerializer(JsonNumber, return_type=Any)] | None = None
    title: str | None = None
    is_control_person: bool | None = None
    is_signer: bool | None = None
    is_director: bool | None = None


class BusinessDocument(ApiModel):
    type: str | None = None
    document_image: str | None = None
    description: str | None = None


class KybData(ApiModel):
    business_info: BusinessInfo | None = None
    business_registration_number: str | None = None
    source_of_funds: str | None = None
    source_of_funds_description: str | None = None
    account_purpose: str | None = None
    account_purpose_other: str | None = None
    expected_monthly_volume_usd: str | None = None
    estimated_annual_revenue_usd: str | None = None
    conducts_money_services: bool | None = None
    conducts_money_services_description: str | None = None
    conducts_money_services_through_service: bool | None = None
    operates_in_prohibited_countries: bool | None = None
    compliance_screening_description: str | None = None
    high_risk_activities: list[str] | None = None
    high_risk_activities_explanation: str | None = None
    associated_persons: list[AssociatedPerson] | None = None
    business_documents: list[BusinessDocument] | None = None
