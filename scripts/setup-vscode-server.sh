#!/usr/bin/env bash
# Prepares the VS Code server build (code-server, which embeds VS Code) used to run the
# integration and end-to-end tests and the browser demo offline. Everything comes from the npm
# registry; the result is cached outside the checkout, keyed by version, so only the first run pays.
#
# Prints the path of the ready `entry.js` on its last line.
set -euo pipefail

VERSION="${CODE_SERVER_VERSION:-4.100.3}"
CACHE_ROOT="${GATEWAY_AI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gateway-ai}"
DEST="$CACHE_ROOT/code-server-$VERSION"
ENTRY="$DEST/package/out/node/entry.js"

log() { printf '[vscode-server] %s\n' "$*" >&2; }
fail() { printf '[vscode-server] error: %s\n' "$*" >&2; exit 1; }

if [ -f "$DEST/.ready" ] && [ -f "$ENTRY" ]; then
  echo "$ENTRY"
  exit 0
fi

command -v node >/dev/null || fail "node is not on PATH"
command -v npm >/dev/null || fail "npm is not on PATH"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" = "20" ] || log "warning: code-server $VERSION expects Node 20, this is Node $(node --version)"

# Native modules of the VS Code server need Kerberos headers (Debian: libkrb5-dev).
if ! [ -f /usr/include/krb5.h ] && ! [ -f /usr/include/gssapi/gssapi.h ]; then
  fail "Kerberos headers are missing. Install them first: sudo apt-get install -y libkrb5-dev"
fi
for tool in python3 make g++; do
  command -v "$tool" >/dev/null || fail "$tool is needed to build native modules (Debian: sudo apt-get install -y python3 make g++)"
done

log "preparing code-server $VERSION in $DEST (first run only, a few minutes)"
rm -rf "$DEST.tmp"
mkdir -p "$DEST.tmp"
cd "$DEST.tmp"

export npm_config_yes=true
export npm_config_fund=false
export npm_config_audit=false
export npm_config_update_notifier=false

npm pack "code-server@$VERSION" --silent >/dev/null
tar -xzf "code-server-$VERSION.tgz"
rm -f "code-server-$VERSION.tgz"

(
  cd package
  log "installing code-server dependencies"
  npm install --omit=dev --ignore-scripts --no-package-lock --loglevel=error >/dev/null
  npm rebuild argon2 --loglevel=error >/dev/null
)
(
  cd package/lib/vscode
  log "installing VS Code server dependencies"
  npm install --omit=dev --ignore-scripts --no-package-lock --loglevel=error >/dev/null
  log "building native modules"
  npm rebuild @parcel/watcher @vscode/spdlog kerberos native-watchdog node-pty @vscode/deviceid --loglevel=error >/dev/null
  ln -sfn node_modules node_modules.asar
  if command -v rg >/dev/null; then
    mkdir -p node_modules/@vscode/ripgrep/bin
    ln -sfn "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
  fi
)
(
  cd package/lib/vscode/extensions
  log "installing built-in extensions' dependencies"
  npm install --omit=dev --ignore-scripts --no-package-lock --loglevel=error >/dev/null
  node postinstall.mjs >/dev/null
)

node package/out/node/entry.js --version >/dev/null || fail "the server does not start: see the output above"
touch .ready
cd "$CACHE_ROOT"
rm -rf "$DEST"
mv "$DEST.tmp" "$DEST"
log "ready: $(node "$ENTRY" --version | head -n 1)"
echo "$ENTRY"
