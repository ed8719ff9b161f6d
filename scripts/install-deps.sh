#!/bin/sh
# Installs what faultline needs to build and test, from Debian 12 packages only.
# Does nothing when everything is already there. Run as root (or with sudo available).
set -eu

arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
case "$arch" in
  amd64) hs=libhyperscan-dev ;;
  *) hs=libvectorscan-dev ;;   # API-compatible fork for arm64 (Ascend hosts are often aarch64)
esac

pkgs="build-essential cmake ninja-build ccache pkg-config $hs libzstd-dev libarchive-dev libsqlite3-dev libcli11-dev
catch2 libyaml-cpp-dev libpcre2-dev nlohmann-json3-dev libssl-dev zstd xz-utils gzip tar zip libarchive-tools
python3 sqlite3 libcpp-httplib-dev python3-jsonschema"
# python3-jsonschema: tests/report/schema_test.py validates the json reports against schema/*.json
# The Debian package (scripts/package.sh, docs/packaging.md): dpkg-shlibdeps (dpkg-dev) computes
# its Depends; its test installs it into a fresh Debian 12 root made by mmdebstrap; zsh runs the
# test of the zsh completion.
pkgs="$pkgs dpkg-dev mmdebstrap zsh"
# The browser test of `faultline serve` (tests/serve/browser_test.sh) needs headless chromium; it
# skips without it. Heavy, so only on request: FAULTLINE_BROWSER_TESTS=1 scripts/install-deps.sh
if [ "${FAULTLINE_BROWSER_TESTS:-0}" = 1 ]; then
  pkgs="$pkgs chromium"
fi

# arm64 cross build and qemu tests (scripts/test-arm64.sh, docs/arm64.md) install their own
# toolchain and unpack the arm64 packages into a private sysroot; nothing here for them.

# fuzzing only (fuzz/, docs/fuzzing.md): `scripts/install-deps.sh --fuzz` adds clang and its
# libFuzzer/sanitizer runtimes. The normal build and tests do not need them.
if [ "${1:-}" = "--fuzz" ]; then
  pkgs="$pkgs clang-14 libclang-rt-14-dev"
fi

missing=""
for p in $pkgs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -n "$missing" ]; then
  echo "faultline: installing:$missing" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
