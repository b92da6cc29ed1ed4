"""The embedded demo: a well-known sandbox API key and the demo data behind it.

The back-office, run with no settings, calls the sandbox mounted in the same server with
DEMO_API_KEY (keys.py; its PAYMENTS_API_KEY default). `python manage.py sandbox_seed` makes sure
the key exists and fills its organization (seed.py) with customers (customers.py), payment
accounts and balances (accounts.py), quotes, transactions and automation rules (payments.py) and
webhook deliveries (webhooks.py) in every state the sandbox can reach.

Everything is made through the sandbox's own validators and services, as an integrator's API
calls would make it, so the data obeys the same rules as data made over HTTP. Where no service
exists (holding a review open, ageing a transaction past its expiry) the seed changes the one
field it must and says so; docs/api-decisions.md ("Seed data") lists those places.
"""
