from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db import transaction
from django.dispatch import receiver

from .audit import audit_record


@receiver(user_logged_in)
def record_login(sender, request, user, **kwargs):
    with transaction.atomic():
        audit_record(actor=user, action="auth.login", target_kind="user", target_id=user.pk)


@receiver(user_logged_out)
def record_logout(sender, request, user, **kwargs):
    if user is not None:
        with transaction.atomic():
            audit_record(actor=user, action="auth.logout", target_kind="user", target_id=user.pk)
