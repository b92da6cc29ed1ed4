"""Run the test identity provider on 127.0.0.1 (a free port, printed first):

python -m tests.oidc_provider.serve CLIENT_ID CLIENT_SECRET REDIRECT_URI USERNAME PASSWORD GROUP...
"""

import os
import signal
import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


class ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def main(client_id, client_secret, redirect_uri, username, password, *groups):
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.oidc_provider.settings"
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application
    from oauth2_provider.models import Application

    call_command("migrate", verbosity=0)
    user = User.objects.create_user(username=username, password=password, email=f"{username}@idp.example")
    for name in groups:
        user.groups.add(Group.objects.get_or_create(name=name)[0])
    Application.objects.create(
        name="back-office",
        client_id=client_id,
        client_secret=client_secret,
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=redirect_uri,
        algorithm=Application.RS256_ALGORITHM,
        skip_authorization=True,
    )
    server = make_server(
        "127.0.0.1", 0, get_wsgi_application(), server_class=ThreadingServer, handler_class=QuietHandler
    )
    print(server.server_port, flush=True)
    # The test stops this process with SIGTERM: exit through the `finally` that removes the database.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    finally:
        os.unlink(django.conf.settings.DATABASES["default"]["NAME"])


if __name__ == "__main__":
    main(*sys.argv[1:])
