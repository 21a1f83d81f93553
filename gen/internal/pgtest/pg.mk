# PostgreSQL for the tests that start a real server (gen/internal/pgtest):
# Debian's postgresql package, whose binaries land in
# /usr/lib/postgresql/<version>/bin. Include this file from the top Makefile.
#
#   make postgres   install the package unless a server binary is there
#
# The tests run initdb and postgres themselves (as the postgres system user
# when run as root) in temporary directories, on loopback; the cluster and
# service the package sets up are not used.

PG_SERVER_GLOB := /usr/lib/postgresql/*/bin/postgres

# Root installs directly; anyone else goes through sudo.
PG_SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: postgres

postgres:
	@if ls $(PG_SERVER_GLOB) >/dev/null 2>&1; then \
		echo "postgres: $$(ls $(PG_SERVER_GLOB) | tail -n 1) is installed"; \
	else \
		set -e; \
		$(PG_SUDO) apt-get update; \
		$(PG_SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql; \
		ls $(PG_SERVER_GLOB); \
	fi
