"""Businesses: the KYB data of a BUSINESS customer."""

from rest_framework import serializers

from ..fields import Boolean, Enum, StrictSerializer, Text
from .choices import (
    BUSINESS_TYPES,
    ESTIMATED_ANNUAL_REVENUES_USD,
    EXPECTED_MONTHLY_VOLUMES_USD,
    HIGH_RISK_ACTIVITIES,
    KYB_ACCOUNT_PURPOSES,
    KYB_SOURCES_OF_FUNDS,
)
from .data_fields import Country, PastDateText
from .documents import BusinessDocumentSerializer
from .persons import AssociatedPersonSerializer


class BusinessInfoSerializer(StrictSerializer):
    legalBusinessName = Text(required=False)
    dbaName = Text(required=False)
    businessType = Enum(BUSINESS_TYPES, required=False)
    businessIndustries = Text(required=False, help_text="Industry code")
    businessDescription = Text(required=False)
    website = Text(required=False)
    otherLinks = serializers.ListField(child=Text(), required=False)
    formationDate = PastDateText(required=False)
    registrationCountry = Country(required=False)
    isDao = Boolean(required=False)


class KybDataSerializer(StrictSerializer):
    businessInfo = BusinessInfoSerializer(required=False)
    businessRegistrationNumber = Text(required=False)
    sourceOfFunds = Enum(KYB_SOURCES_OF_FUNDS, required=False)
    sourceOfFundsDescription = Text(required=False)
    accountPurpose = Enum(KYB_ACCOUNT_PURPOSES, required=False)
    accountPurposeOther = Text(required=False)
    expectedMonthlyVolumeUsd = Enum(EXPECTED_MONTHLY_VOLUMES_USD, required=False)
    estimatedAnnualRevenueUsd = Enum(ESTIMATED_ANNUAL_REVENUES_USD, required=False)
    conductsMoneyServices = Boolean(required=False)
    conductsMoneyServicesDescription = Text(required=False)
    conductsMoneyServicesThroughService = Boolean(required=False)
    operatesInProhibitedCountries = Boolean(required=False)
    complianceScreeningDescription = Text(required=False)
    highRiskActivities = serializers.ListField(child=Enum(HIGH_RISK_ACTIVITIES), required=False)
    highRiskActivitiesExplanation = Text(required=False)
    associatedPersons = AssociatedPersonSerializer(many=True, required=False)
    businessDocuments = BusinessDocumentSerializer(many=True, required=False)
