"""Validation of KYC data (persons) and KYB data (businesses) as customer bodies carry them:
the allowed values (choices), the fields only these data use (data_fields), identity and
business documents (documents), persons (persons) and businesses (businesses). The request
bodies that carry them are in sandbox/serializers/customers.py."""
