# The back-office's production image: one image for every process of the Procfile.
#   docker build -t backoffice .
#   docker run backoffice web      (or release, worker, beat: see deploy/run and docs/operations.md)
# Two stages: the first builds a virtualenv of the runtime dependencies (no dev extras, no
# compiler in the final image); the second holds that virtualenv, the code and the collected
# static files, and runs as an unprivileged user.

# Base images by digest: a tag can be moved to other content, a digest cannot. The tag it was
# read from stands beside it. To update (docs/operations.md, "Upgrading"):
#   docker buildx imagetools inspect python:3.13-slim     # the "Digest:" line
# and replace the digest here (another Python: --build-arg PYTHON_IMAGE=python:3.12-slim@sha256:...).
# python:3.13-slim
ARG PYTHON_IMAGE=python:3.13-slim@sha256:7c61056e61ac89e852de05f3dc6fa51a6dd2181797bceed46aa725dd7cb2cd3b

FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
RUN python -m venv /venv
COPY pyproject.toml /src/
# The runtime dependencies of pyproject.toml only: the project installs no package of its own.
RUN /venv/bin/pip install /src

FROM ${PYTHON_IMAGE} AS runtime
ENV PATH=/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DEBUG=0 \
    GUNICORN_BIND=0.0.0.0:8000 \
    LOG_FORMAT=json \
    BEAT_SCHEDULE_FILE=/tmp/celerybeat-schedule
RUN groupadd --system --gid 10001 backoffice \
 && useradd --system --uid 10001 --gid backoffice --home-dir /app --shell /usr/sbin/nologin backoffice
COPY --from=build /venv /venv
WORKDIR /app
COPY --chown=root:root . /app
# Static files collected and compressed at build time (whitenoise serves them); the build's
# SECRET_KEY exists only for this command and is never in the image's environment.
RUN SECRET_KEY=collectstatic-only-not-a-secret-000000000000000000000 \
    python manage.py collectstatic --noinput -v 0 \
 && python -m compileall -q /app
# By number, not name (hadolint DL3066): a platform that runs images as non-root checks the uid.
USER 10001:10001
EXPOSE 8000
# Liveness of the web process (/healthz); deploy/compose.yaml checks worker and beat by their
# heartbeats (deploy/healthcheck.py).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["python", "deploy/healthcheck.py", "web"]
ENTRYPOINT ["/app/deploy/run"]
CMD ["web"]
