"""Old addresses of pages that moved: bookmarks and shared links keep working."""

from django.http import HttpResponseRedirect
from django.urls import path, reverse


class HttpResponsePermanentRedirectKeepMethod(HttpResponseRedirect):
    """308: moved for good, and the method and body go along (a POST stays a POST)."""

    status_code = 308


def moved(old: str, new_name: str):
    """A route for `old` that answers 308 to the URL named `new_name`, with the same URL
    arguments and query string."""

    def redirect(request, **kwargs):
        url = reverse(new_name, kwargs=kwargs)
        query = request.META.get("QUERY_STRING", "")
        return HttpResponsePermanentRedirectKeepMethod(f"{url}?{query}" if query else url)

    return path(old, redirect)
