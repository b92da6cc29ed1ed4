"""A real OpenID Connect provider for the single sign-on tests: django-oauth-toolkit with OIDC
on, in its own small Django project (settings.py, urls.py) served on loopback by serve.py in a
process of its own. Nothing of the back-office is imported here."""
