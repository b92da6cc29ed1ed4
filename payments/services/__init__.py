"""Staff actions on payments, one module per kind of record: accounts, rules, quotes (and their
execution), transactions. Each writes through the API (core.write_through); the mirror's own
writes are payments.upserts."""
