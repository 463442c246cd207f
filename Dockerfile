# The scanner image the Kubernetes census Job runs (deploy/kubernetes), and
# a way to run mcpvet without Go or a C compiler.
# Build: docker build -t mcpvet .
# Run:   docker run --rm --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#          -v "$PWD:/work" mcpvet probe npm:@modelcontextprotocol/server-everything@2026.1.26
# bwrap inside the container needs user namespaces, which Docker's default
# seccomp and AppArmor profiles deny: without the two options the default
# --sandbox auto stops with "no isolation available" rather than run
# servers unisolated (--sandbox none runs them so, and records it).
# The build stage runs scripts/build.sh, the same script the README uses.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Module downloads get their own layer, reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# cgo stays on: go-sqlite3 needs it.
RUN OUT=/out/mcpvet VERSION=${VERSION} QUIET=1 ./scripts/build.sh

# Runtime: Node/npm to install npm servers, bubblewrap to sandbox them.
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap ca-certificates git \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/mcpvet /usr/local/bin/mcpvet
# The image is usable: the binary runs and bubblewrap is there.
RUN mcpvet version && bwrap --version
# The install cache and results live under /work (mount volumes there).
ENV XDG_CACHE_HOME=/work/cache
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/mcpvet"]
CMD ["--help"]
