# The scanner image the Kubernetes census Job runs (deploy/kubernetes).
# Build: docker build -t mcpvet .
# The build stage runs scripts/build.sh, the same script the README uses.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Module downloads get their own layer, reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# cgo stays on: go-sqlite3 needs it.
RUN OUT=/out/mcpvet VERSION=${VERSION} ./scripts/build.sh

# Runtime: Node/npm to install npm servers, bubblewrap to sandbox them.
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap ca-certificates git \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/mcpvet /usr/local/bin/mcpvet
# The install cache and results live under /work (mount volumes there).
ENV XDG_CACHE_HOME=/work/cache
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/mcpvet"]
CMD ["--help"]
