from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    name = "payments"

    def ready(self):
        from customers import page_sections

        from .selectors import customer_section, customer_section_version

        page_sections.register(customer_section, version=customer_section_version)
