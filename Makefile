# Tracecraft. `make run` starts the service on :8080; `make test` runs everything CI runs.
GO        ?= go
BIN       := bin
PLUGINDIR := $(BIN)/plugins
ENGINES   := $(patsubst plugins/%/main.go,%,$(wildcard plugins/*/main.go))
TOOLS     := $(CURDIR)/$(BIN)/tools
# One build configuration for everything: the binaries, go vet, staticcheck, the test
# binaries and the binaries the tests build (internal/testbin). Pure Go throughout, so
# cgo is off, and no -trimpath: either setting differing between two of them changes
# every package's build ID, and a fresh machine would compile the whole dependency
# graph once per configuration (make test used three: the binaries with -trimpath, the
# tests with cgo, the tests' binaries without either).
export CGO_ENABLED := 0
PROTOC_GEN_GO_VERSION      := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
STATICCHECK_VERSION        := v0.8.2
# The client generators the OpenAPI document is tested with (host/clients_test.go).
OAPI_CODEGEN_VERSION       := v2.8.2
OPENAPI_TYPESCRIPT_VERSION := 7.13.0
TYPESCRIPT_VERSION         := 5.9.3
PROTO_OUT := sdk/internal/tracev1
# TEMPLATE is the example engine, a Go module of its own as a third party's engine is.
TEMPLATE  := examples/engine-template

.PHONY: build run test prepare-go node-tools bench proto proto-check tools lint clean chromium fidelity-tools clienttools npm

VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN)/tracecraft ./host
	@mkdir -p $(PLUGINDIR)
	@for e in $(ENGINES); do \
		echo "  engine $$e"; \
		$(GO) build -o $(PLUGINDIR)/tracecraft-engine-$$e ./plugins/$$e || exit 1; \
	done

run: build
	./$(BIN)/tracecraft serve --addr :8080 --plugins-dir $(PLUGINDIR) --data-dir ./data

# protoc generates the Go code of sdk/proto into folder $(1) (see proto).
protoc = PATH="$(TOOLS):$$PATH" protoc -I sdk/proto \
		--go_out=$(1) --go_opt=paths=source_relative \
		--go-grpc_out=$(1) --go-grpc_opt=paths=source_relative \
		trace/v1/trace.proto && \
	mv $(1)/trace/v1/*.go $(1)/ && rm -r $(1)/trace

proto: tools
	$(call protoc,$(PROTO_OUT))

tools:
	@mkdir -p $(TOOLS)
	@test -x $(TOOLS)/protoc-gen-go || GOBIN=$(TOOLS) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	@test -x $(TOOLS)/protoc-gen-go-grpc || GOBIN=$(TOOLS) $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	@test -x $(TOOLS)/staticcheck || GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# proto-check fails when the committed generated code differs from what `make proto` makes.
# It generates into a temporary folder, leaving the tree alone, so it can run beside the
# other steps. Without protoc it is skipped with a note, except under CI (.ci/run
# installs protoc).
proto-check: tools
	@if ! command -v protoc >/dev/null; then \
		if [ -n "$$CI" ]; then echo "protoc is not installed"; exit 1; fi; \
		echo "protoc is not installed: skipping the generated-code check (apt-get install protobuf-compiler; CI runs it)"; \
	else \
		tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		{ $(call protoc,$$tmp); } >/dev/null && \
		{ diff -r $$tmp $(PROTO_OUT) || { echo "generated protocol code is stale: run make proto and commit"; exit 1; }; }; \
	fi

lint: tools
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...
	$(TOOLS)/staticcheck ./...
	cd $(TEMPLATE) && $(GO) vet ./... && $(TOOLS)/staticcheck ./...

# chromium installs Debian's Chromium headless shell for the browser test
# (host/web_test.go) when there is no Chromium, with sudo when not root, without the
# recommended packages: the headless test needs no desktop parts (the full browser brings
# 165 packages, the headless shell 104). Outside CI a failed install only skips that test.
chromium:
	@if ! command -v chromium >/dev/null && [ ! -x /usr/bin/chromium ] && [ ! -x /usr/bin/chromium-headless-shell ]; then \
		sudo=""; if [ "$$(id -u)" != 0 ]; then sudo="sudo"; fi; \
		echo "installing Chromium for the browser test"; \
		{ $$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium-headless-shell; } || \
		{ if [ -n "$$CI" ]; then echo "Chromium could not be installed"; exit 1; fi; \
		  echo "Chromium could not be installed: the browser test will be skipped"; }; \
	fi

# npm: the machine's when it has one; otherwise npm $(NPM_VERSION) fetched from the npm
# registry with the machine's Node.js, checked against the integrity the registry
# publishes for it, unpacked into bin/tools/npm. A machine then needs Debian's nodejs
# package only, not its npm package, which brings some 330 node-* packages (3m45s to
# install on the CI machine against 17 s for nodejs). Outside CI a missing Node.js only
# skips the tests that need npm's packages.
NPM_VERSION   := 10.9.3
NPM_INTEGRITY := sha512-6Eh1u5Q+kIVXeA8e7l2c/HpnFFcwrkt37xDMujD5be1gloWa9p6j3Fsv3mByXXmqJHy+2cElRMML8opNT7xIJQ==
NPM           := $(if $(shell command -v npm 2>/dev/null),npm,node $(TOOLS)/npm/bin/npm-cli.js)
npm:
	@if ! command -v npm >/dev/null && [ ! -f $(TOOLS)/npm/bin/npm-cli.js ]; then \
		if ! command -v node >/dev/null; then \
			if [ -n "$$CI" ]; then echo "Node.js is not installed (apt-get install nodejs)"; exit 1; fi; \
			echo "Node.js is not installed: the tests that need npm packages will be skipped"; exit 0; \
		fi; \
		echo "fetching npm $(NPM_VERSION) from the npm registry"; mkdir -p $(TOOLS)/npm && \
		{ node scripts/fetch-checked.mjs https://registry.npmjs.org/npm/-/npm-$(NPM_VERSION).tgz $(NPM_INTEGRITY) $(TOOLS)/npm.tgz && \
		  tar -xzf $(TOOLS)/npm.tgz -C $(TOOLS)/npm --strip-components=1 && rm $(TOOLS)/npm.tgz; } || \
		{ rm -rf $(TOOLS)/npm $(TOOLS)/npm.tgz; if [ -n "$$CI" ]; then echo "npm could not be fetched"; exit 1; fi; \
		  echo "npm could not be fetched: the tests that need npm packages will be skipped"; }; \
	fi

# fidelity-tools installs the real readers of the output-format fidelity tests
# (host/internal/vector/fidelity_test.go): Ghostscript and ezdxf from Debian, resvg (the
# reference SVG renderer) from npm into bin/tools/resvg. Outside CI a failed install only
# skips those tests.
RESVG_VERSION := 2.6.2
fidelity-tools: npm
	@if ! command -v gs >/dev/null || ! /usr/bin/python3 -c 'import ezdxf' 2>/dev/null; then \
		sudo=""; if [ "$$(id -u)" != 0 ]; then sudo="sudo"; fi; \
		echo "installing Ghostscript and ezdxf for the fidelity tests"; \
		{ $$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends ghostscript python3-ezdxf; } || \
		{ if [ -n "$$CI" ]; then echo "Ghostscript or ezdxf could not be installed"; exit 1; fi; \
		  echo "Ghostscript or ezdxf could not be installed: the fidelity tests will be skipped"; }; \
	fi
	@if [ ! -d $(TOOLS)/resvg/node_modules/@resvg/resvg-js ]; then \
		echo "installing resvg for the fidelity tests"; mkdir -p $(TOOLS)/resvg; \
		(cd $(TOOLS)/resvg && $(NPM) install --no-audit --no-fund --silent @resvg/resvg-js@$(RESVG_VERSION)) || \
		{ if [ -n "$$CI" ]; then echo "resvg could not be installed"; exit 1; fi; \
		  echo "resvg could not be installed: the fidelity tests will be skipped"; }; \
	fi

# clienttools installs the client generators the OpenAPI document is tested with
# (host/clients_test.go): oapi-codegen into bin/tools, openapi-typescript and TypeScript
# from npm into bin/tools/node. Outside CI a failed install only skips that test.
clienttools: npm
	@mkdir -p $(TOOLS)
	@test -x $(TOOLS)/oapi-codegen || GOBIN=$(TOOLS) $(GO) install github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$(OAPI_CODEGEN_VERSION)
	@test -x $(TOOLS)/node/node_modules/.bin/openapi-typescript -a -x $(TOOLS)/node/node_modules/.bin/tsc || \
		$(NPM) install --silent --no-audit --no-fund --prefix $(TOOLS)/node \
			openapi-typescript@$(OPENAPI_TYPESCRIPT_VERSION) typescript@$(TYPESCRIPT_VERSION) || \
		{ if [ -n "$$CI" ]; then echo "openapi-typescript could not be installed"; exit 1; fi; \
		  echo "openapi-typescript could not be installed: the TypeScript client test will be skipped"; }

# test first prepares in parallel strands: the Go one (lint, the generated-code check and
# the build, one after another: they compile the same packages, and two go commands
# compiling at once would both do the work) beside the installs, which mostly wait on
# the network; then it runs the tests. pgcheck says whether the PostgreSQL tests will run,
# and against which server, or why they are skipped (under CI they fail instead). Each step
# ends with a line of its wall and CPU seconds (scripts/timed).
#
# TESTFLAGS: -vet=off because lint has just run go vet over the same packages and their
# test files with every analyzer, a superset of the few go test runs; go test's own vet,
# a different set of analyzers, found nothing in its cache on a fresh machine and
# analysed every package and dependency again. -ldflags=-w links the test binaries
# without DWARF debugging information, which nothing in a test run reads (stack traces
# come from the runtime's own tables), and a third less link work for each of the some 60 test
# binaries (the host's: 5.0 -> 3.3 CPU s). The binaries the tests run (internal/testbin)
# are built as make build builds them. -parallel 4: the tests that start real processes
# (t.Parallel, each with its own ports, folders and database) spend much of their time
# waiting for those processes, so on a 2-core machine two at a time (the default,
# GOMAXPROCS) left the cores idle while the host's package, the longest, ran on. -p 3 for
# the same reason between packages: three test binaries at once instead of two, so the
# packages that mostly wait (the host's, enginemem, sdk/enginetest's 10 s deadline test)
# do not hold a core each.
TIMED     := scripts/timed
TESTFLAGS := -count=1 -vet=off -ldflags=-w -parallel 4 -p 3
# CHECKPTR: the packages that use unsafe (the centre-line tracer's views of []bool rows as
# bytes, read eight at a time, and its thinning's neighbourhood reads without bounds tests):
# their tests run again with the compiler's pointer checks, which fail a test whose
# unsafe.Add leaves its allocation.
CHECKPTR := ./plugins/centerline/distance ./plugins/centerline/fill ./plugins/centerline/skeleton
test:
	@$(MAKE) --no-print-directory -j3 --output-sync=line timed-prepare-go timed-chromium timed-node-tools
	@$(GO) run ./host/internal/store/postgres/pgtest/pgcheck
	$(TIMED) "go test" $(GO) test $(TESTFLAGS) -timeout 25m ./...
	$(TIMED) "go test (checkptr)" $(GO) test $(TESTFLAGS) -gcflags=-d=checkptr $(CHECKPTR)
	cd $(TEMPLATE) && ../../$(TIMED) "go test ($(TEMPLATE))" $(GO) test $(TESTFLAGS) ./...

prepare-go:
	@$(MAKE) --no-print-directory timed-lint && $(MAKE) --no-print-directory timed-proto-check && $(MAKE) --no-print-directory timed-build

# node-tools: what the tests need from npm (fidelity-tools and clienttools share the npm
# they may fetch, so they are one make's prerequisites).
node-tools: fidelity-tools clienttools

# timed-X makes X and then prints its wall and CPU seconds.
timed-%:
	@$(TIMED) $* $(MAKE) --no-print-directory $*

# bench: the host's overhead, load, 429 latency and peak memory (real processes, default
# bench time for stable percentiles), then each engine's algorithm on the corpus.
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./host/
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./sdk/... ./plugins/...

clean:
	rm -rf $(BIN)
