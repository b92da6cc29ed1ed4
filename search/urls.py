from .views import urlpatterns

__all__ = ["urlpatterns"]
