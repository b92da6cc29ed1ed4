"""Automation rules: create, list, read, replace."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from ..api import SandboxApi
from ..serializers.fields import validated
from ..serializers.rules import RuleCreateIn, RuleListOut, RuleListQuery, RuleOut, RuleRunOut, RuleUpdateIn
from ..services import rules as service
from .openapi import error_responses


class RuleListCreateApi(SandboxApi):
    @extend_schema(
        operation_id="createAutomationRule",
        request=RuleCreateIn,
        responses={201: RuleOut, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request):
        rule = service.rule_create(api_key=self.api_key, data=validated(RuleCreateIn, request.data))
        return Response(service.rule_body(rule), status=201)

    @extend_schema(
        operation_id="listAutomationRules",
        parameters=[RuleListQuery],
        responses={200: RuleListOut, **error_responses(400, 401)},
    )
    def get(self, request):
        query = validated(RuleListQuery, request.query_params, location="query")
        rules = service.rule_list(
            api_key=self.api_key,
            customer_id=query.get("customerId"),
            source_account_id=query.get("sourcePaymentAccountId"),
        )
        return Response({"automationRules": [service.rule_body(rule) for rule in rules]})


class RuleGetUpdateApi(SandboxApi):
    @extend_schema(operation_id="getAutomationRule", responses={200: RuleOut, **error_responses(400, 401, 403, 404)})
    def get(self, request, rule_id):
        return Response(service.rule_body(service.rule_for_key(api_key=self.api_key, rule_id=rule_id)))

    @extend_schema(
        operation_id="updateAutomationRule",
        request=RuleUpdateIn,
        responses={200: RuleOut, **error_responses(400, 401, 403, 404)},
    )
    def put(self, request, rule_id):
        data = validated(RuleUpdateIn, request.data)
        rule = service.rule_update(api_key=self.api_key, rule_id=rule_id, data=data)
        return Response(service.rule_body(rule))


# --- the test helpers' views, routed under test-helpers/ by sandbox/urls.py ---------------------


class RulesRunApi(SandboxApi):
    @extend_schema(
        operation_id="testHelperRunAutomationRules",
        summary="Evaluate every automation rule of the organization now, on the sandbox clock",
        tags=["Test helpers"],
        request=None,
        responses={200: RuleRunOut, **error_responses(401, 403)},
    )
    def post(self, request):
        return Response(service.automation_rules_fire_due(api_key=self.api_key))
