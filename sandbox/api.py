"""The base of every sandbox endpoint: API-key auth, JSON only, the spec's error body."""

from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from .auth import ApiKeyAuthentication, HasApiKey
from .errors import exception_handler


class SandboxApi(APIView):
    authentication_classes = [ApiKeyAuthentication]
    permission_classes = [HasApiKey]
    parser_classes = [JSONParser]
    renderer_classes = [JSONRenderer]

    def get_exception_handler(self):
        return exception_handler

    @property
    def api_key(self):
        return self.request.auth
