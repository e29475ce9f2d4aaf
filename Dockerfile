# syntax=docker/dockerfile:1
# mivas: one container, one port (8765). Build: docker build -t mivas .
# Needs a registry that serves node:24-bookworm-slim (see docs/deploy.md).

# ---- build stage: the only place with a compiler (better-sqlite3 13 ships prebuilt N-API binaries for
# linux x64/arm64; the compiler is the fallback for other platforms).
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Production dependencies only (node strips the TypeScript types itself; there is no compile step).
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# ---- runtime stage: no compiler, no dev dependencies, non-root, tini as PID 1.
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    MIVAS_PORT=8765 \
    MIVAS_DATA_DIR=/data
WORKDIR /app
# tini forwards SIGTERM to node so the drain runs; espeak-ng gives the scripted harness real speech.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini espeak-ng \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY bin ./bin
COPY src ./src
COPY packs ./packs
COPY migrations ./migrations
# Spool, per-call databases, templates and the Bluejay link ledger live on this volume.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8765
STOPSIGNAL SIGTERM
# The 101 WebSocket probe against this container's own server, with its own credentials.
HEALTHCHECK --interval=30s --timeout=8s --start-period=60s --retries=3 \
  CMD ["node", "bin/mivas.js", "probe", "--local", "--timeout-s", "5"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# The node flags: see src/server/node-flags.ts (fewer full GCs, smoother pacing).
CMD ["node", "--initial-old-space-size=256", "--max-semi-space-size=16", "--no-memory-reducer", "bin/mivas.js", "serve"]
