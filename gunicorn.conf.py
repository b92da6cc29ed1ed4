"""gunicorn's settings for the back-office; gunicorn reads this file from the directory it
starts in, so `gunicorn backoffice.wsgi` needs nothing more (flags on the command line win).

- Threads: a page that waits on the Payments API (the quote preview, balances) holds one
  thread, not a whole process.
- No keep-alive: behind the load balancer every request goes to whichever process is free.
  A kept-alive connection stays with the process that accepted it, and a process that
  happened to accept many of them queues their requests while the others idle (measured:
  bench/load.py, docs/benchmarks.md "Load").
"""

import os

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "4"))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
keepalive = 0
timeout = 30
