"""The query of every list: pageToken (the codec is sandbox.pagination's) and pageSize."""

from rest_framework import serializers

from ..pagination import UNKNOWN_PAGE, decode_page_token
from .fields import QueryInteger, Text


class PageTokenField(Text):
    def to_internal_value(self, data):
        try:
            return decode_page_token(super().to_internal_value(data))
        except ValueError:
            raise serializers.ValidationError(UNKNOWN_PAGE) from None


class PageQuery(serializers.Serializer):
    pageToken = PageTokenField(required=False, help_text="nextPageToken of the previous page")
    pageSize = QueryInteger(required=False, default=10, min_value=1, max_value=100)
