"""The back-office's URLs with a `monitoring` namespace, as a monitoring app would add one."""

from django.http import HttpResponse
from django.urls import include, path

from backoffice.urls import urlpatterns as backoffice

monitoring = ([path("", lambda request: HttpResponse("monitoring"), name="index")], "monitoring")

urlpatterns = [path("monitoring/", include(monitoring)), *backoffice]
