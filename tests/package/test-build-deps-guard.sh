#!/usr/bin/env bash
# The fresh-machine guard must catch the mistake it exists for: with libqt6opengl6-dev taken out
# of ./dev's PACKAGES (qt6-charts-dev needs its CMake files but does not depend on it), it fails
# and names both the Debian package and the CMake package; with the full list it passes.
#   tests/package/test-build-deps-guard.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
fail() { echo "test-build-deps-guard: FAIL: $*" >&2; exit 1; }
# shellcheck source=/dev/null
source <(sed -n '/^PACKAGES=(/,/)/p' "$src/dev")
[ ${#PACKAGES[@]} -gt 5 ] || fail "could not read PACKAGES from $src/dev"
"$src/packaging/check-build-deps.sh" "$build" "${PACKAGES[@]}" || fail "the guard fails with ./dev's own list"
without=()
for p in "${PACKAGES[@]}"; do [ "$p" = libqt6opengl6-dev ] || without+=("$p"); done
set +e
out=$("$src/packaging/check-build-deps.sh" "$build" "${without[@]}" 2>&1)
rc=$?
set -e
echo "$out"
[ "$rc" -eq 1 ] || fail "without libqt6opengl6-dev the guard exited $rc, not 1"
grep -q "CMake package Qt6OpenGL needs Debian package libqt6opengl6-dev" <<<"$out" ||
  fail "the guard did not name libqt6opengl6-dev and Qt6OpenGL"
echo "test-build-deps-guard: PASS"
