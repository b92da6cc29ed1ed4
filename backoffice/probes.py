"""/healthz, /readyz and /metrics answer on the internal network as they are asked there.

A load balancer's or Kubernetes' probe and Prometheus' service discovery reach a web process
by its address, over plain HTTP and without X-Forwarded-Proto: the host check (ALLOWED_HOSTS,
400 and an error line) and the SSL redirect (301) are for pages. This middleware sits before
SecurityMiddleware and CommonMiddleware and answers these three paths itself, so neither
check runs for them and nothing about pages is weakened: every other path goes on down the
chain. /metrics still asks for its bearer token.
"""

from django.urls import resolve

PROBE_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


class ProbeMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info not in PROBE_PATHS:
            return self.get_response(request)
        match = resolve(request.path_info)
        # The request metrics name the view as for any other request.
        request.resolver_match = match
        return match.func(request, *match.args, **match.kwargs)
