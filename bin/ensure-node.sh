#!/usr/bin/env bash
# Puts the Node.js this project needs (the version in .node-version) first on PATH.
#
#   eval "$(bin/ensure-node.sh)"      # then: npm ci && npm test
#
# If the `node` on PATH is already at that major or newer, it prints nothing and changes nothing.
# Otherwise it installs the official binary that the npm registry ships as node-<os>-<arch>@VERSION
# (nodejs.org is not needed) under ${MIVAS_NODE_CACHE:-$HOME/.cache/mivas-node}/VERSION, reuses that
# install on later runs, and prints the shell lines to eval: PATH, and npm_config_nodedir pointing at
# that install's own headers (include/node) so node-gyp builds native addons (better-sqlite3)
# against this Node without downloading headers. Messages go to stderr; exit 1 if it cannot.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${MIVAS_NODE_VERSION:-$(tr -d ' \t\r\nv' < "$root/.node-version")}"
major="${version%%.*}"
log() { echo "ensure-node: $*" >&2; }

current="$(node -p 'process.versions.node' 2>/dev/null || true)"
if [[ -n "$current" && "${current%%.*}" -ge "$major" ]]; then
  log "node v$current on PATH satisfies Node $major; nothing to do"
  exit 0
fi

case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) log "unsupported OS $(uname -s)"; exit 1 ;; esac
case "$(uname -m)" in x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) log "unsupported CPU $(uname -m)"; exit 1 ;; esac
pkg="node-$os-$arch@$version"
cache="${MIVAS_NODE_CACHE:-$HOME/.cache/mivas-node}"
dest="$cache/$version"

if [[ "$("$dest/bin/node" -p 'process.versions.node' 2>/dev/null || true)" == "$version" \
      && -f "$dest/include/node/node_version.h" ]]; then
  log "node ${current:+v$current }on PATH is older than $major; using Node v$version at $dest"
else
  log "node ${current:+v$current }on PATH is older than $major; installing Node v$version ($pkg from the npm registry) into $dest"
  command -v npm >/dev/null || { log "npm is needed to fetch $pkg"; exit 1; }
  mkdir -p "$cache"
  tmp="$(mktemp -d "$cache/.install-$version.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  # npm checks the tarball against the registry's integrity hash; bounded so CI cannot hang here.
  bound=(); command -v timeout >/dev/null && bound=(timeout 600)
  if ! (cd "$tmp" && "${bound[@]}" npm pack --silent --no-audit --no-fund "$pkg" >/dev/null); then
    log "could not fetch $pkg from the npm registry"; exit 1
  fi
  tar -xzf "$tmp"/node-*.tgz -C "$tmp"
  got="$("$tmp/package/bin/node" -p 'process.versions.node' 2>/dev/null || true)"
  if [[ "$got" != "$version" || ! -f "$tmp/package/include/node/node_version.h" ]]; then
    log "$pkg did not unpack to a runnable Node v$version with headers (got '${got:-nothing}')"; exit 1
  fi
  rm -rf "$dest"
  mv "$tmp/package" "$dest"
  log "installed Node v$version at $dest"
fi

printf 'export PATH=%q:"$PATH"\n' "$dest/bin"
printf 'export npm_config_nodedir=%q\n' "$dest"
echo 'hash -r 2>/dev/null || true'
