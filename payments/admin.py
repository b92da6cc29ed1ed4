"""Django admin for superusers: a raw view of the mirror (staff work in the back-office pages)."""

from django.contrib import admin

from .models import Transaction


@admin.register(Transaction)
class TransactionAdmin(admin.ModelAdmin):
    list_display = ("transaction_id", "status", "customer", "source_amount", "source_currency", "created_upstream_at")
    list_filter = ("status",)
    list_select_related = ("customer",)
    search_fields = ("=transaction_id", "=correlation_id")
    date_hierarchy = None
    ordering = ("-created_upstream_at", "-id")
    show_full_result_count = False
    readonly_fields = [f.name for f in Transaction._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
