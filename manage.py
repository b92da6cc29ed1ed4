#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backoffice.settings")
    if sys.argv[1:2] != ["runserver"]:
        # A command (sync_mirror, register_webhook...) reaches the mounted sandbox through WSGI
        # in its own process when no server listens at its address (upstream/client.py).
        os.environ.setdefault("PAYMENTS_API_IN_PROCESS_WHEN_UNSERVED", "1")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
