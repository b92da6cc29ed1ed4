from django.contrib import admin

from .models import Customer


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin):
    """For superusers; staff work in the compliance workspace (customers/views/)."""

    list_display = ["name", "email", "customer_type", "status", "organization_id", "status_since", "assignee"]
    list_filter = ["status", "customer_type"]
    search_fields = ["name__istartswith", "email__istartswith"]
    list_select_related = ["assignee"]
    ordering = ["-upstream_updated_at", "-id"]
    readonly_fields = [f.name for f in Customer._meta.fields if f.name not in ("assignee", "claimed_at")]
