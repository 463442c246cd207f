# Development shortcuts. The README's two commands need none of this.

.PHONY: help build install release test race lint mutate mutate-summary bench-probe bench-scan bench-census bench-sandbox

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

build: ## build bin/mcpvet with the version from git
	scripts/build.sh

install: ## build into $(GOBIN) (default $(go env GOPATH)/bin) with the same flags and build cache as build
	OUT="$${GOBIN:-$$(go env GOPATH)/bin}/mcpvet" scripts/build.sh

release: ## dist/mcpvet-VERSION-linux-{amd64,arm64} with cgo SQLite and .sha256 sums (arm64 needs aarch64-linux-gnu-gcc)
	scripts/release.sh

test: ## the README's test command
	go test -race -timeout 30m ./...

lint: ## gofmt, go vet, staticcheck (go install honnef.co/go/tools/cmd/staticcheck@latest), go mod tidy -diff
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	go vet ./...
	staticcheck ./...
	go mod tidy -diff

mutate: ## mutation testing: gremlins' mutants of every file of the seven packages, one resumable shard per file, each judged by the tests covering it (internal/mutantrun; RUNNER=gremlins: every test), then the hand mutants (docs/testing.md); PKGS=./scoring or FILES='scoring/verdict.go ...' narrow it, HAND=only|0
	scripts/mutate.sh $(PKGS)

mutate-summary: ## the per-file efficacy table of the shards run so far
	scripts/mutate.sh -summary

bench-probe: ## probe speed vs the bare handshake and the Inspector CLI (needs hyperfine)
	bench/probe.sh

bench-scan: ## scan throughput and peak memory over 1,000 fixture targets
	N=1000 FIXTURE=oldversion bench/scan.sh

bench-census: ## a 200-plan registry sample, cold and warm, side by side with an older binary (OLD=path)
	bench/census.sh

bench-sandbox: ## sandbox start overhead and warm npm launches
	bench/sandbox.sh
