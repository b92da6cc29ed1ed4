from django.urls import path

from .views import cases, customers, exports, live, profile

urlpatterns = [
    path("", customers.list_customers, name="customers-list-customers"),
    path("export.csv", exports.export_customers, name="customers-export-customers"),
    path("next-case", customers.claim_next_case, name="customers-claim-next-case"),
    path("escalations", cases.list_escalations, name="customers-list-escalations"),
    path("bulk-assign", cases.bulk_assign, name="customers-bulk-assign"),
    path("counts/live", live.list_counts_live, name="customers-list-counts-live"),
    path("new", customers.create_customer, name="customers-create-customer"),
    path("new/rows", profile.add_new_row, name="customers-add-new-row"),
    path("new/remove-row", profile.remove_new_row, name="customers-remove-new-row"),
    path("<str:customer_id>/", customers.view_customer, name="customers-view-customer"),
    path("<str:customer_id>/live", live.view_customer_live, name="customers-view-customer-live"),
    path("<str:customer_id>/refresh", customers.refresh_customer, name="customers-refresh-customer"),
    path("<str:customer_id>/assign", customers.assign_customer, name="customers-assign-customer"),
    path("<str:customer_id>/decide", cases.decide_customer, name="customers-decide-customer"),
    path("<str:customer_id>/notes", customers.add_note, name="customers-add-note"),
    path("<str:customer_id>/hosted-form", customers.record_handout, name="customers-record-handout"),
    path("<str:customer_id>/kyc", profile.edit_kyc, name="customers-edit-kyc"),
    path("<str:customer_id>/kyb", profile.edit_kyb, name="customers-edit-kyb"),
    path("<str:customer_id>/kyb/rows/<str:kind>", profile.add_row, name="customers-add-row"),
    path("<str:customer_id>/kyb/remove-row", profile.remove_row, name="customers-remove-row"),
]
