"""The base of every sandbox endpoint: API-key auth, JSON only, the spec's error body."""

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from .auth import ApiKeyAuthentication, HasApiKey
from .errors import exception_handler


class JsonWhateverAccepted(DefaultContentNegotiation):
    """The API has one form, JSON: an Accept header that asks for another gets JSON, not a 406
    the API does not document."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class SandboxApi(APIView):
    content_negotiation_class = JsonWhateverAccepted
    authentication_classes = [ApiKeyAuthentication]
    permission_classes = [HasApiKey]
    parser_classes = [JSONParser]
    renderer_classes = [JSONRenderer]

    def get_exception_handler(self):
        return exception_handler

    @property
    def api_key(self):
        return self.request.auth
