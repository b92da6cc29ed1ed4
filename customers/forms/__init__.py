"""Forms of the compliance workspace, one module per page family."""
