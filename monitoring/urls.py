"""Monitoring's addresses, under /monitoring/."""

from .views import urlpatterns

__all__ = ["urlpatterns"]
