"""Forms of the hosted pages: the verification forms of individuals (individual) and businesses
(business), built on api_data, and the bank account form (bank_account); their fields in fields."""
