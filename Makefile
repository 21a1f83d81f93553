# agentc — the commands a developer and CI run.
#   make test      everything CI checks (installs the pinned Node toolchain and
#                  Debian's postgresql when missing, first)
#   make check     generated/ is up to date and the tree is vetted and formatted
#   make generate  regenerate generated/ from spec/
#   make bench     benchmarks, with peers measured in the same run
#   make fuzz      fuzz targets, FUZZTIME each (default 60s)

GO        ?= go
FUZZTIME  ?= 60s
BIN       := $(CURDIR)/bin
CUE       := $(BIN)/cue
CUE_VERSION := v0.17.1

include gen/testdata/npm/npm.mk
include gen/internal/pgtest/pg.mk

.PHONY: all test check generate bench fuzz vet fmtcheck tools clean

all: check test

# The real cue binary is a peer in benchmarks; install it from the module
# proxy at the version go.mod pins.
$(CUE): go.mod
	GOBIN=$(BIN) $(GO) install cuelang.org/go/cmd/cue@$(CUE_VERSION)

tools: $(CUE)

# vet also type-checks for Windows and macOS: agentc, its tests and the
# generated packages must build where spec authors and gateways run.
vet:
	$(GO) vet ./...
	GOOS=windows $(GO) vet ./...
	GOOS=darwin $(GO) vet ./...

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^generated/')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

generate:
	$(GO) run ./cmd/agentc gen

check: vet fmtcheck
	$(GO) run ./cmd/agentc vet
	@if $(GO) run ./cmd/agentc help check >/dev/null 2>&1; then $(GO) run ./cmd/agentc check; fi

test: npm tools postgres
	$(GO) test -count=1 ./...

# Each benchmark measures agentc against its peer in the same run and
# reports the ratio as a metric: BenchmarkRatios (decoders vs zod in node,
# jsonschema/v6, CUE; its own timing loops), BenchmarkCommands (the agentc
# binary's vet, gen, check and gen after an edit vs the cue binary's vet at 6,
# 100 and 1000 tools: ratios, peak RSS, ms per tool), BenchmarkWatchEdit
# (gen --watch's regeneration after a one-line edit at 100 tools vs CUE's
# evaluation), BenchmarkVet (load in process vs CUE in process),
# BenchmarkRoute (the callback route vs a bare net/http handler,
# alternating rounds), BenchmarkMCP (the MCP route vs the callback route on
# one mux). BenchmarkDecode (per-case ns/op, allocations) is there to run
# by hand.
bench: npm tools postgres
	$(GO) test -run '^$$' -bench '^BenchmarkRatios$$' -benchtime 1x ./gen/conformance
	$(GO) test -run '^$$' -bench '^(BenchmarkCommands|BenchmarkWatchEdit)$$' -benchtime 5x ./gen/cli
	$(GO) test -run '^$$' -bench '^BenchmarkVet$$' -benchtime 3x -benchmem ./gen/load
	$(GO) test -run '^$$' -bench '^BenchmarkRoute$$' -benchmem ./gen/gateway
	$(GO) test -run '^$$' -bench '^BenchmarkMCP$$' -benchmem ./gen/gateway

# FuzzLoad: the loader never panics on mutated specs. FuzzDifferential:
# generated Go and generated zod (a long-lived node process) agree on
# mutated tool arguments (loading its 949 seeds takes ~20 s first).
# FuzzEnvelope: the callback body decoder accepts what encoding/json
# accepts and digests args as their re-encoding. TestSpecFuzz writes specs
# as people do, from seed SPECFUZZ_SEED on (a new one each run), batch
# after batch for FUZZTIME: vet's findings are positioned, and what vet
# accepts generates, go-vets, type-checks and agrees across Go, zod and
# TypeScript (gen/specfuzz; make test runs seeds 1–8).
SPECFUZZ_SEED ?= $(shell date +%s)
fuzz: npm
	$(GO) test -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) ./gen/load
	$(GO) test -run '^$$' -fuzz '^FuzzDifferential$$' -fuzztime $(FUZZTIME) ./gen/conformance
	$(GO) test -run '^$$' -fuzz '^FuzzEnvelope$$' -fuzztime $(FUZZTIME) ./gen/gogen/agentrt
	$(GO) test -count=1 -timeout 0 -run '^TestSpecFuzz$$' ./gen/specfuzz -specfuzz.time=$(FUZZTIME) -specfuzz.seed=$(SPECFUZZ_SEED)

clean:
	rm -rf $(BIN)
