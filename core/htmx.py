def page_or_partial(request, template: str, partial: str = "results") -> str:
    """The page, or only one of its partials when htmx swaps that part (filters, pages)."""
    if request.htmx and not request.htmx.boosted:
        return f"{template}#{partial}"
    return template
