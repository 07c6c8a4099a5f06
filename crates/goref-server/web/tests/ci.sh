#!/usr/bin/env bash
# CI step for goref serve's page: installs what the browser test needs when it is missing
# (Debian's chromium and chromium-driver, the npm packages of package-lock.json), checks that
# the embedded bundle in dist/ is what the sources build, then runs the browser test against
# the goref binary. Idempotent; takes well under a minute once installed.
set -euo pipefail
web="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$web/../../.." && pwd)"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
fi
cd "$web"
if [ ! -x node_modules/.bin/esbuild ] || [ ! -d node_modules/playwright-core ] \
   || [ ! -d node_modules/@sabaki/shudan ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
# The embedded bundle must be exactly what the sources build.
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
node build.mjs --out "$out" >/dev/null
if ! diff -r "$web/dist" "$out" >/dev/null; then
  echo "crates/goref-server/web/dist is not what the sources build: run 'npm run build' in crates/goref-server/web" >&2
  diff -r "$web/dist" "$out" | head -20 >&2 || true
  exit 1
fi
# The goref binary as `cargo test --workspace` builds it (.ci/run has just run it): building it with
# `cargo build -p goref` would select other features of the dependencies and rebuild them all.
(cd "$repo" && cargo test -q --workspace --no-run)
GOREF_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/goref" node --test tests/
