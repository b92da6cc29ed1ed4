"""Single sign-on through an OpenID Connect identity provider (allauth's openid_connect).

The IdP says who may come in: a person it vouches for is signed in as the staff member of the
same username, who is made on their first login. When OIDC_GROUPS_CLAIM is set, each login
makes their roles the ones their IdP groups map to (OIDC_GROUP_ROLES, else the same names);
otherwise an admin gives roles on the staff page.
"""

import logging

from allauth.account.utils import user_username
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.shortcuts import render

from audit.records import audit_record
from core.access import Role, roles_of

from .usernames import stored_spelling, validate_new

logger = logging.getLogger(__name__)


def roles_from_claims(claims: dict) -> list[str] | None:
    """The roles an IdP's claims give, or None when no claim maps groups to roles."""
    if not settings.OIDC_GROUPS_CLAIM:
        return None
    groups = claims.get(settings.OIDC_GROUPS_CLAIM) or []
    if isinstance(groups, str):
        groups = [groups]
    mapping = settings.OIDC_GROUP_ROLES or {role.value: role.value for role in Role}
    valid = {role.value for role in Role}
    return sorted({mapping[group] for group in groups if mapping.get(group) in valid})


def _claims(sociallogin) -> dict:
    data = sociallogin.account.extra_data or {}
    return {**data.get("userinfo", {}), **data.get("id_token", {})}


def _new_username(request, username: str) -> str:
    """The IdP's username for a new member, normalised; one that is refused (mixed scripts, a
    look-alike of a member's) stops the sign-in with a page that says why: allauth would
    otherwise make up another username."""
    try:
        return validate_new(username)
    except ValidationError as refused:
        logger.warning("Single sign-on refused a new member's username: %s", refused.messages)
        page = render(request, "account/sso_refused.html", {"reasons": refused.messages}, status=403)
        raise ImmediateHttpResponse(page) from None


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request, sociallogin) -> bool:
        return bool(settings.OIDC_ISSUER)

    def pre_social_login(self, request, sociallogin):
        """Link the IdP's person to the staff member of the same username (in any case), or
        make them one under a username that passes staff.usernames; then apply the roles of
        their groups."""
        if not sociallogin.is_existing:
            username = _claims(sociallogin).get("preferred_username", "")
            existing = get_user_model().objects.filter(username=stored_spelling(username)).first() if username else None
            if existing is not None:
                sociallogin.connect(request, existing)
            elif username:
                user_username(sociallogin.user, _new_username(request, username))
        if sociallogin.is_existing:
            self._apply_roles(sociallogin.user, sociallogin)

    def save_user(self, request, sociallogin, form=None):
        user = super().save_user(request, sociallogin, form)
        with transaction.atomic():
            audit_record(actor=None, action="staff.add_from_sso", target_kind="user", target_id=user.pk)
        self._apply_roles(user, sociallogin)
        return user

    def _apply_roles(self, user, sociallogin) -> None:
        from .services import set_roles_from_sso

        roles = roles_from_claims(_claims(sociallogin))
        if roles is not None and set(roles) != set(roles_of(user)):
            set_roles_from_sso(user, roles)
