# syntax=docker/dockerfile:1
# Build stage: compiles better-sqlite3 from source (no prebuilt binaries are downloaded).
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# Runtime stage: production dependencies only, a non-root user, tini for signals.
FROM node:20-bookworm-slim
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends tini espeak-ng && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY packs ./packs
COPY migrations ./migrations
RUN mkdir -p /data && chown node:node /data
USER node
ENV NODE_ENV=production MIVAS_DATA_DIR=/data MIVAS_PORT=8765
VOLUME ["/data"]
EXPOSE 8765
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "bin/mivas.js", "probe", "ws://127.0.0.1:8765/probe", "--timeout-s", "4"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "bin/mivas.js", "serve"]
