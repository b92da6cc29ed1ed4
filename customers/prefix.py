"""A case-insensitive "starts with" that PostgreSQL answers from a btree range.

`istartswith` compiles to `UPPER(col) LIKE 'X%'`, which two indexes of a customer's name can
serve: its text_pattern_ops btree (customers migration 0002), as a range, and the trigram index
the search box reads for a word inside names (0008). For a prefix the planner took the trigram
one and read every match ("Customer 12" among a million customers), where the btree's range is
several times quicker (docs/benchmarks.md), and the searches then keep only the first thousand.

`starts_with` writes that range out (`>=` the upper-cased text and `<` the same with its last
character's successor, in the pattern operators' byte order, which is exactly the strings that
start with it), which only the btree serves. The upper-casing is PostgreSQL's own, so the
answer is LIKE's in any locale. For text that is not ASCII (whose successor could fall outside
the characters PostgreSQL takes), and on other databases, it is `istartswith` as it was.
"""

from django.db import connection
from django.db.models import Lookup, Q
from django.db.models.functions import Upper


class _PrefixRange(Lookup):
    lookup_name = "prefix_range"

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        text = f"UPPER({rhs})"
        after = f"(LEFT({text}, -1) || CHR(ASCII(RIGHT({text}, 1)) + 1))"
        params = [*lhs_params, *rhs_params, *lhs_params, *rhs_params, *rhs_params]
        return f"({lhs} ~>=~ {text} AND {lhs} ~<~ {after})", params


def starts_with(field: str, text: str) -> Q:
    """`field` starts with `text`, case-insensitively (as `field__istartswith=text`)."""
    if connection.vendor != "postgresql" or not text or not text.isascii():
        return Q(**{f"{field}__istartswith": text})
    return Q(_PrefixRange(Upper(field), text))
