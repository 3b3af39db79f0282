# PEEZ card service: the commands a person runs. `make help` lists them.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# Debian packages the build, the tests and the tools need; `make deps` installs whichever are missing.
DEB_PACKAGES := pkg-config jq tmux openssl libssl-dev libqrencode-dev librsvg2-dev libpng-dev zlib1g-dev libjpeg-dev libzbar-dev libsqlite3-dev zbar-tools tzdata postgresql postgresql-client wrk curl python3-venv dpkg-dev debootstrap systemd systemd-container
# The web counter's browser tests, the check that the committed WebAssembly QR decoder is what Debian's source makes,
# the reverse proxy the service is tested behind (nginx), and the clock the soak steps under each instance (libfaketime).
SOAK_DEB_PACKAGES := libfaketime
TEST_DEB_PACKAGES := chromium chromium-driver python3-selenium python3-pil emscripten poppler-utils nginx hledger beancount $(SOAK_DEB_PACKAGES)
SWIFT_BUILD_FLAGS ?=
SWIFT_SOURCES := Sources Tests Benchmarks Fuzz Package.swift
FUZZ_RUNS ?= 3000000
DEV_KEY := Keys/development/signing-key.pem
# make serve's ledger (SQLite): DB=var/other.sqlite make serve
DB ?= var/peez.sqlite
# make serve and make demo share one release build, so a fresh clone compiles once.
PEEZ := .build/release/peez

SEEDS ?= 1,2,3
STORES ?= sqlite,postgres
MINUTES ?= 1

.PHONY: soak help deps deps-test counter-decoder counter-decoder-check bench-counter-web build release serve demo format lint test snapshots static dist test-dist bench bench-static bench-http bench-compare bench-verify bench-counter bench-remind bench-scans bench-console bench-panels bench-accounts fuzz vectors clean

help: ## List the commands
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

# Installs whichever of the Debian packages $(1) are missing.
define install_missing
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing:" $$missing; \
		sudo=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

deps: ## Install the missing Debian packages (idempotent; needs root or sudo)
	$(call install_missing,$(DEB_PACKAGES))

deps-test: deps ## Install what only the tests need: Chromium and its driver, Selenium, Pillow, emscripten (the QR decoder's check), nginx
	$(call install_missing,$(TEST_DEB_PACKAGES))

build: deps ## Build the peez command line (debug)
	swift build $(SWIFT_BUILD_FLAGS)

release: deps ## Build the peez command line in release mode (.build/release/peez)
	swift build -c release --product peez $(SWIFT_BUILD_FLAGS)

serve: release ## Start the card service on SQLite (DB, default var/peez.sqlite) with the development key and demo data
	@chmod 600 $(DEV_KEY)  # git does not keep file modes; the key is refused unless 0600
	@echo "peez is at $(CURDIR)/.build/release/peez (export PATH=\"$(CURDIR)/.build/release:\$$PATH\" to type just peez)"
	@echo "listening on $${HOST:-127.0.0.1}:$${PORT:-8080}; change with: HOST=0.0.0.0 PORT=9090 make serve"
	@echo "the web counter for a shop's phone: http://$${HOST:-127.0.0.1}:$${PORT:-8080}/counter/ (with the vendor secret below)"
	@echo "the team's console: http://$${HOST:-127.0.0.1}:$${PORT:-8080}/console/ (sign in: $(PEEZ) admin console-link --database $(DB))"
	$(PEEZ) serve --development --database $(DB) --host $${HOST:-127.0.0.1} --port $${PORT:-8080}

demo: release ## Issue a card for the demo member of make serve with the development key, write its QR PNG and verify it
	@chmod 600 $(DEV_KEY)  # git does not keep file modes; the key is refused unless 0600
	@mkdir -p out
	@echo "== peez keys show $(DEV_KEY)   (DEVELOPMENT KEY: never sign real cards with it)"
	@$(PEEZ) keys show $(DEV_KEY)
	@echo "== peez card issue ... --png out/card.png --terminal"
	@$(PEEZ) card issue --key $(DEV_KEY) --member PEEZ-20251103-00001 --name "Ahmed Mohamed" \
		--expires "$$(date -u -d '+30 days' +%Y-%m-%d)" --png out/card.png --svg out/card.svg --terminal > out/card.txt
	@cat out/card.txt
	@echo "== zbarimg out/card.png   (a real QR decoder reads the picture back)"
	@zbarimg --nodbus --quiet --raw out/card.png > out/scanned.txt && cmp -s out/card.txt out/scanned.txt && echo "QR decodes to exactly the token"
	@echo "== peez verify --keys Keys/public  (offline, with the published key set)"
	@$(PEEZ) verify --keys Keys/public - < out/scanned.txt

format: ## Reformat the Swift sources with the repository's .swift-format (swift format, from the toolchain)
	swift format format -i -r $(SWIFT_SOURCES)

lint: ## Check that the Swift sources are formatted as .swift-format says (part of make test)
	swift format lint --strict -r $(SWIFT_SOURCES)

test: deps-test lint ## Run the whole test suite (a throwaway PostgreSQL server for the store tests), schemathesis against the API, nginx in front, the web counter and the console in Chromium
	chmod 600 $(DEV_KEY)
	@# The Python stand-ins' packages (APNs, Google Wallet), installed once before the tests that start them.
	@[ -f .build/apns-venv/.installed-hypercorn==0.18.0-cryptography ] || { python3 -m venv .build/apns-venv && \
	  .build/apns-venv/bin/pip install --quiet --disable-pip-version-check hypercorn==0.18.0 cryptography && \
	  touch .build/apns-venv/.installed-hypercorn==0.18.0-cryptography; }
	@url=$${PEEZ_TEST_DATABASE_URL:-$$(scripts/test-postgres start)}; \
	PEEZ_TEST_DATABASE_URL=$$url swift test $(SWIFT_BUILD_FLAGS); status=$$?; \
	[ -n "$$PEEZ_TEST_DATABASE_URL" ] || scripts/test-postgres stop; [ $$status -eq 0 ] || exit $$status
	Tests/API/run
	Tests/Proxy/run
	$(MAKE) --no-print-directory counter-decoder-check
	Tests/Browser/run
	Tests/Browser/console
	$(MAKE) --no-print-directory test-dist

counter-decoder: deps-test ## Rebuild the web counter's QR decoder (ZBar from Debian's source, emscripten) into Sources/CounterAssets/site
	scripts/zbar-wasm/build

counter-decoder-check: deps-test ## Check that the committed zbar.js and zbar.wasm are exactly what scripts/zbar-wasm/build makes
	rm -rf .build/zbar-check && scripts/zbar-wasm/build .build/zbar-check
	cmp Sources/CounterAssets/site/zbar.wasm .build/zbar-check/zbar.wasm && cmp Sources/CounterAssets/site/zbar.js .build/zbar-check/zbar.js
	@echo "the committed decoder is what Debian's ZBar source and emscripten make"

bench-counter-web: deps-test build ## The web counter's figures in Chromium: first-load size, scan-to-verdict over 1,000 scans, verifications/s vs openssl
	BENCH=1 Tests/Browser/run

static: deps ## Build the self-contained peez (Swift runtime linked in, stripped) at .build-static/release/peez
	swift build -c release --product peez --static-swift-stdlib --scratch-path .build-static -Xlinker -s $(SWIFT_BUILD_FLAGS)
	@ls -l .build-static/release/peez | awk '{ printf "%s: %.1f MB\n", $$NF, $$5 / 1048576 }'

dist: static ## Build the Debian package dist/out/peez_VERSION_amd64.deb (binary, completions, systemd units)
	scripts/make-deb

test-dist: dist ## Install the package in a clean Debian 12 root (debootstrap), run peez there without Swift, and its units under systemd
	Tests/Dist/run

snapshots: build ## Rewrite the stored --help snapshots (Fixtures/help) after a meant change to a command's help
	PEEZ_UPDATE_SNAPSHOTS=1 swift test $(SWIFT_BUILD_FLAGS) --filter helpMatchesItsSnapshot

bench: deps ## Benchmark signing, verifying, QR rendering and image scanning on one core (release build)
	swift build -c release --product peez-bench
	taskset -c 0 .build/release/peez-bench

bench-static: static ## make bench's figures from the static binary beside today's dynamic one, in the same run
	Benchmarks/static/run

bench-verify: deps ## Batch verification (peez verify --jobs) on one core and all cores, beside openssl speed ed25519
	Benchmarks/verify/run

bench-counter: deps ## Counter figures: sync with 100,000 revocations (whole, then a delta of 100), scan → verdict p50/p99
	Benchmarks/counter/run

bench-remind: deps ## Reminders over 1,000,000 members (SQLite, PostgreSQL): seed, select + record, JSONL and webhook rates, peak memory
	Benchmarks/remind/run

bench-accounts: deps ## The shops' accounts at 200 shops, 1,000,000 members, three years of sales (STORES=sqlite,postgres): statements, balances, the console's panel, p50/p99
	STORES=$(STORES) Benchmarks/accounts/run

bench-console: deps-test ## The console's panels at 1,000,000 members and 10,000,000 scans (SQLite, PostgreSQL): p50/p99, the page's first load
	Benchmarks/console/run

bench-panels: deps ## Sales and /health alone, then beside console clients refreshing the heaviest panels (100,000 members, 1,000,000 scans; SQLite, PostgreSQL)
	Benchmarks/panels/run

bench-scans: deps ## The shared-cards report over 100,000 scans (SQLite, PostgreSQL): its time, and /health's while it runs
	Benchmarks/scans/run

bench-http: deps ## Load-test the HTTP service with wrk on SQLite and PostgreSQL (release build)
	Benchmarks/http/run

soak: deps ## Seeded runs of the service under faults, checked against the ledger's guarantees (STORES=sqlite,postgres SEEDS=1,2,3 MINUTES=1)
	$(call install_missing,$(SOAK_DEB_PACKAGES))
	swift build -c release --product peez
	swift build -c release --product peez-soak
	.build/release/peez-soak --stores $(STORES) --seeds $(SEEDS) --minutes $(MINUTES) --peez .build/release/peez

bench-compare: deps ## The HTTP benchmark of BASE=<commit> beside the working tree's, in turns in one run: medians and ratios
	Benchmarks/compare/run

fuzz: deps ## Fuzz the token decoder with libFuzzer for FUZZ_RUNS inputs (default 3 million)
	cd Fuzz && swift build -c release --sanitize=fuzzer --sanitize=address
	python3 Fuzz/seed-corpus.py
	cd Fuzz && ./.build/release/FuzzCardToken corpus -runs=$(FUZZ_RUNS) -max_len=4096 -print_final_stats=1

vectors: ## Regenerate Fixtures/vectors from the independent Python implementation
	python3 Fixtures/vectors/generate.py

clean: ## Remove build outputs
	rm -rf .build .build-static Fuzz/.build Fuzz/corpus out dist/out
