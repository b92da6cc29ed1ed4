from django.urls import path

from . import exports, live, views, views_cases, views_profile

urlpatterns = [
    path("", views.list_customers, name="customers-list-customers"),
    path("export.csv", exports.export_customers, name="customers-export-customers"),
    path("next-case", views.claim_next_case, name="customers-claim-next-case"),
    path("escalations", views_cases.list_escalations, name="customers-list-escalations"),
    path("bulk-assign", views_cases.bulk_assign, name="customers-bulk-assign"),
    path("counts/live", live.list_counts_live, name="customers-list-counts-live"),
    path("new", views.create_customer, name="customers-create-customer"),
    path("new/rows", views_profile.add_new_row, name="customers-add-new-row"),
    path("new/remove-row", views_profile.remove_new_row, name="customers-remove-new-row"),
    path("<str:customer_id>/", views.view_customer, name="customers-view-customer"),
    path("<str:customer_id>/live", live.view_customer_live, name="customers-view-customer-live"),
    path("<str:customer_id>/refresh", views.refresh_customer, name="customers-refresh-customer"),
    path("<str:customer_id>/assign", views.assign_customer, name="customers-assign-customer"),
    path("<str:customer_id>/decide", views_cases.decide_customer, name="customers-decide-customer"),
    path("<str:customer_id>/notes", views.add_note, name="customers-add-note"),
    path("<str:customer_id>/hosted-form", views.record_handout, name="customers-record-handout"),
    path("<str:customer_id>/kyc", views_profile.edit_kyc, name="customers-edit-kyc"),
    path("<str:customer_id>/kyb", views_profile.edit_kyb, name="customers-edit-kyb"),
    path("<str:customer_id>/kyb/rows/<str:kind>", views_profile.add_row, name="customers-add-row"),
    path("<str:customer_id>/kyb/remove-row", views_profile.remove_row, name="customers-remove-row"),
]
