# Sluice's entry points.
#
#   make run      build web/app.wasm if stale, serve the playground (ADDR=127.0.0.1:8000)
#   make test     every check CI runs, installing what is missing
#   make bench    benchmarks against the peers, written to BENCHMARKS.md
#   make bench-scale  only BenchmarkScale, rewriting BENCHMARKS.md's Scaling section
#   make wasm     rebuild web/app.wasm and web/app.wasm.gz
#   make static   export the playground as a static site to dist/
#   make perf     report the playground's size, load time and frame time
#   make fuzz     every fuzz target for FUZZTIME each (default 60s)

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.NOTPARALLEL:
.DEFAULT_GOAL := run

GO       ?= go
ADDR     ?= 127.0.0.1:8000
BIN      := $(CURDIR)/.bin
CHROMIUM ?= /usr/bin/chromium
# The broker the rabbitmq tests start (Debian package rabbitmq-server).
RABBITMQ_SERVER := /usr/lib/rabbitmq/bin/rabbitmq-server
# The server the example service's test starts, and promtool (Debian package prometheus).
PROMETHEUS := /usr/bin/prometheus
# Modules of their own that the vet and race steps also cover.
OBSERVE_MODULES := metrics/internal metrics/prom metrics/otel examples/service

# Headless Chromium as root in a container needs these; a fresh profile
# (--user-data-dir) is made per run by the tools that start it.
CHROMIUM_FLAGS := --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run

WASMBROWSERTEST_VERSION := v0.11.0
BENCHSTAT_VERSION       := v0.0.0-20260908200009-22c9c6c9d4da

# timed runs a step of make test and prints how long it took. Its arguments
# (a name, then the shell command) must not contain commas. The step fails
# when the command's exit status is not 0: a shell's -e does not stop at a
# failure inside an && list, so steps end their lists in that status.
define timed
@echo "==> $(1)"; t0=$$(date +%s); { $(2); } || { echo "<== $(1): FAILED"; exit 1; }; \
	echo "<== $(1): ok in $$(( $$(date +%s) - t0 ))s"
endef

.PHONY: run wasm static gzip-tool test bench bench-scale perf fuzz \
	test-tools test-fmt test-vet test-race test-rabbitmq test-wasm test-fuzz test-bench test-e2e

run: gzip-tool
	$(GO) run . -addr $(ADDR)

wasm: gzip-tool
	$(GO) run . -build

static: gzip-tool
	rm -rf dist
	$(GO) run . -export dist

test: test-tools test-fmt test-vet test-race test-rabbitmq test-wasm test-fuzz test-bench test-e2e
	@echo "make test: all checks passed"

# pigz, whose -11 (Zopfli's encoder) the build compresses app.wasm with:
# 4.4% smaller than gzip -9, which the build uses without it (build.go,
# gzipCommands). make test needs it, for the size that TestServedFiles
# checks.
gzip-tool:
	@if ! command -v pigz >/dev/null; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "==> installing pigz (Debian package pigz)"; \
			export DEBIAN_FRONTEND=noninteractive; \
			apt-get update && apt-get install -y pigz; \
		else \
			echo "note: without pigz (sudo apt-get install pigz), app.wasm is compressed with gzip -9, 4% larger" >&2; \
		fi; \
	fi

# Chromium for the wasm and e2e tests, wasmbrowsertest, which runs GOOS=js
# tests in it, RabbitMQ for the broker tests and Prometheus for the example
# service's (only the packages: the tests start their own servers, never
# the system services).
test-tools: $(BIN)/wasmbrowsertest $(BIN)/chromium gzip-tool
	@command -v pigz >/dev/null || { echo "make test needs pigz: install the Debian package pigz" \
		"(sudo apt-get install pigz)" >&2; exit 1; }
	@if [ ! -x "$(RABBITMQ_SERVER)" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "==> installing RabbitMQ (Debian package rabbitmq-server)"; \
			export DEBIAN_FRONTEND=noninteractive; \
			apt-get update && apt-get install -y rabbitmq-server; \
		else \
			echo "make test needs RabbitMQ at $(RABBITMQ_SERVER): install the Debian package" \
				"rabbitmq-server (sudo apt-get install rabbitmq-server)" >&2; \
			exit 1; \
		fi; \
	fi
	@if [ ! -x "$(PROMETHEUS)" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "==> installing Prometheus (Debian package prometheus)"; \
			export DEBIAN_FRONTEND=noninteractive; \
			apt-get update && apt-get install -y prometheus; \
		else \
			echo "make test needs Prometheus at $(PROMETHEUS): install the Debian package" \
				"prometheus (sudo apt-get install prometheus)" >&2; \
			exit 1; \
		fi; \
	fi
	@if [ ! -x "$(CHROMIUM)" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "==> installing Chromium (Debian package chromium)"; \
			export DEBIAN_FRONTEND=noninteractive; \
			apt-get update && apt-get install -y chromium; \
		else \
			echo "make test needs Chromium at $(CHROMIUM): install the Debian package chromium" \
				"(sudo apt-get install chromium), or set CHROMIUM=/path/to/chromium" >&2; \
			exit 1; \
		fi; \
	fi

$(BIN)/wasmbrowsertest:
	GOBIN=$(BIN) $(GO) install github.com/agnivade/wasmbrowsertest@$(WASMBROWSERTEST_VERSION)

# wasmbrowsertest starts the first chromium on PATH with its own flags; this
# wrapper, first on PATH during the wasm tests, adds ours. It is rewritten on
# every run, so that it follows CHROMIUM.
.PHONY: $(BIN)/chromium
$(BIN)/chromium:
	@mkdir -p $(BIN)
	@printf '#!/bin/sh\n# Written by make: Chromium with the flags headless tests need.\nexec %s %s "$$@"\n' \
		'$(CHROMIUM)' '$(CHROMIUM_FLAGS)' > $@
	@chmod +x $@

$(BIN)/benchstat:
	GOBIN=$(BIN) $(GO) install golang.org/x/perf/cmd/benchstat@$(BENCHSTAT_VERSION)

test-fmt:
	$(call timed,gofmt,files=$$(gofmt -l .); \
		if [ -n "$$files" ]; then echo "gofmt: not formatted:"; echo "$$files"; exit 1; fi)

# go vet both ways, in every module (rabbitmq natively only), and core's imports: the standard
# library only, never syscall/js (its tests may use more: goleak, and x/exp's trace reader).
test-vet:
	$(call timed,go vet,$(GO) vet ./... && $(GO) vet -tags e2e ./e2e/ && $(GO) vet -tags 'e2e perf' ./e2e/ && \
		GOOS=js GOARCH=wasm $(GO) vet ./wasm/... && \
		(cd rabbitmq && $(GO) vet ./...) && \
		for m in $(OBSERVE_MODULES); do (cd $$m && $(GO) vet ./...) || exit 1; done && \
		cd core && $(GO) vet ./... && GOOS=js GOARCH=wasm $(GO) vet ./... || exit 1; \
		deps=$$( { $(GO) list -deps ./... | grep -E '^[^/]+\.[^/]+/|^sluice/' | grep -v '^sluice/core'; \
			GOOS=js GOARCH=wasm $(GO) list -f '{{join .Imports "\n"}}' ./... | grep -x syscall/js; } || true); \
		if [ -n "$$deps" ]; then echo "core imports outside the standard library:"; echo "$$deps"; exit 1; fi; \
		mods=$$($(GO) mod edit -json | grep '"Path"' | grep -v -e "\"go.uber.org/goleak\"" -e "\"golang.org/x/exp\"" -e "\"sluice/core\"" || true); \
		if [ -n "$$mods" ]; then echo "core's go.mod requires more than its tests' goleak and x/exp:"; echo "$$mods"; exit 1; fi)

# The root module, the observing modules and core at once: each go test
# leaves cores idle while one long package or a link runs alone, and the
# three together keep them busy. The step fails if any of them fails.
test-race:
	$(call timed,go test -race,pids=; \
		$(GO) test -race -count=1 ./... & pids="$$pids $$!"; \
		(for m in $(OBSERVE_MODULES); do (cd $$m && $(GO) test -race -count=1 ./...) || exit 1; done) & pids="$$pids $$!"; \
		(cd core && $(GO) test -race -count=1 ./...) & pids="$$pids $$!"; \
		st=0; for p in $$pids; do wait $$p || st=1; done; [ $$st = 0 ])

# The rabbitmq module against real brokers: each test binary starts its own
# node on loopback (rabbitmq/rabbittest) and stops it by its process id.
test-rabbitmq: test-tools
	$(call timed,rabbitmq go test -race (real broker),cd rabbitmq && $(GO) test -race -count=1 ./...)

# The test binaries get a minimal environment: wasm_exec.js copies the
# environment into the module's memory, which holds only a few kilobytes.
# Chromium logs "unknown IPAddressSpace value" for events wasmbrowsertest's
# DevTools client predates: noise, dropped. On a loaded machine Chromium
# now and then exits as it starts, before any test ran: a module whose run
# failed that way is run once more.
test-wasm: test-tools
	$(call timed,GOOS=js go test (headless Chromium),for m in core .; do for try in 1 2; do \
		out=$$(cd $$m && GOOS=js GOARCH=wasm $(GO) test -count=1 \
		-exec "env -i 'PATH=$(BIN):$$PATH' 'HOME=$$HOME' $(BIN)/wasmbrowsertest" \
		$$([ $$m = core ] && echo ./... || echo ./wasm/...) 2>&1) && st=0 || st=$$?; \
		echo "$$out" | sed '/unknown IPAddressSpace value/d'; \
		[ $$st = 0 ] && break; \
		if [ $$try = 1 ] && echo "$$out" | grep -q -e 'chrome failed to start' -e 'websocket url timeout'; then \
			echo "--- Chromium did not start: running $$m's wasm tests once more"; continue; fi; \
		exit 1; done; done)

test-bench:
	$(call timed,bench module (each benchmark once),cd bench && $(GO) vet ./... && \
		$(GO) test -count=1 -run . -bench . -benchtime 1x ./... && \
		cd ../core && $(GO) test -count=1 -run '^$$' -bench TraceHooks -benchtime 1x .)

# Every fuzz target, as directory:target (a directory under core/ is run
# inside the core module). The plain test run replays their
# seeds and the inputs kept under testdata/fuzz; these run them for real.
FUZZ_TARGETS := core:FuzzSemaphore core:FuzzWorkQueue core:FuzzProcessor \
	core:FuzzKeyedQueue core:FuzzConsume core/trace:FuzzReadJSON core/trace:FuzzScanMatchesDecoder \
	./wasm/sim:FuzzDecode ./wasm/sim:FuzzDecodeJSON
FUZZTIME ?= 60s
# The fuzzer minimizes each input that finds new coverage before it goes
# on, for up to a minute by default, in a number of runs quadratic in the
# input's size, and counts none of them: a brief run spent its time there
# (a few executions in 4 s) and could end on "context deadline exceeded".
# A bound in runs keeps the minimizing short; crashers are still written.
FUZZMINIMIZETIME ?= 2000x

# fuzz runs each target in turn; -run '^$$' skips the package's other tests.
define fuzz_each
for t in $(FUZZ_TARGETS); do \
	echo "--- $${t#*:} ($$1)"; \
	d=$${t%%:*}; case $$d in core) m=core; p=.; ;; core/*) m=core; p=./$${d#core/}; ;; *) m=.; p=$$d; ;; esac; \
	(cd $$m && $(GO) test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $$1 \
		-fuzzminimizetime $(FUZZMINIMIZETIME) "$$p") || exit 1; \
done
endef

fuzz:
	@set -- $(FUZZTIME); $(fuzz_each)

# A count of executions, not a duration: with a duration, Go's fuzzing
# coordinator can end a clean run on a spurious "context deadline exceeded"
# (go.dev/issue/75804). 15,000 runs take 1-5 s a target here.
test-fuzz:
	$(call timed,fuzz (each target briefly),set -- 15000x; $(fuzz_each))

test-e2e: test-tools
	$(call timed,e2e (real server and Chromium),CHROMIUM=$(CHROMIUM) $(GO) test -tags e2e -count=1 -timeout 30m ./e2e/)

# The perf probe (e2e/perf_test.go) reports, and does not assert: app.wasm
# as served (gzip), navigation to the first interactive frame, the time
# a frame takes with 1,000 tasks live, the time to open a 200,000-task
# JSON trace and a 1,000,000-event Go execution trace (written at test
# time) with the longest task on the page's thread meanwhile, and
# (e2e/perf_rewind_test.go) the time to land on a moment of a 10,000-task run.
perf: test-tools
	CHROMIUM=$(CHROMIUM) $(GO) test -tags 'e2e perf' -count=1 -run '^TestPerf' -v ./e2e/ 2>&1 | \
		sed -e '/^=== RUN/d' -e '/^server:/d' -e '/^sluice: /d'

BENCH_CMD := cd bench && go test -run '^$$' -bench . -benchmem -count 6 ./... | tee bench.txt; \
	cd ../core && go test -run '^$$' -bench TraceHooks -benchmem -count 6 . | tee -a ../bench/bench.txt; cd ../bench; \
	benchstat bench.txt > benchstat.txt

bench: $(BIN)/benchstat
	cd bench && $(GO) test -run '^$$' -bench . -benchmem -count 6 ./... | tee bench.txt
	cd core && $(GO) test -run '^$$' -bench TraceHooks -benchmem -count 6 . | tee -a ../bench/bench.txt
	cd bench && $(BIN)/benchstat bench.txt > benchstat.txt
	cd bench && $(GO) run ./cmd/benchreport -raw bench.txt -stat benchstat.txt \
		-cmd "$(BENCH_CMD)" -out ../BENCHMARKS.md

# BenchmarkScale alone, at each core count the machine has, rewriting only
# the Scaling section of BENCHMARKS.md (with its own date): for a machine
# with more cores than the one of the last make bench, or after an engine
# change.
bench-scale:
	cd bench && $(GO) test -run '^$$' -bench '^BenchmarkScale$$' -benchmem -count 6 . | tee scale.txt
	cd bench && $(GO) run ./cmd/benchreport -scale-only -raw scale.txt -out ../BENCHMARKS.md
