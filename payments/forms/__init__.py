"""Forms of the payments pages, one module per page family."""
