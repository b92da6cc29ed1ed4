from django.contrib.auth.forms import AuthenticationForm


class LoginForm(AuthenticationForm):
    # One message for every failure: no hint whether the user exists.
    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": "Wrong username or password.",
        "inactive": "Wrong username or password.",
    }
