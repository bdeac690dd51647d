#!/usr/bin/env bash
# test-layers-guard.sh SOURCE_DIR: the build's layering check (cmake/check-layers.sh) refuses an
# include against the module graph and a Qt header in core, naming file and line, and passes
# what the graph allows. (The real modules pass it on every build.)
set -euo pipefail
check=$1/cmake/check-layers.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/session"
printf '#pragma once\n#include <vector>\n#include "util/format.h"\n#include "session/track.h"\n' \
  >"$tmp/session/good.h"
printf '// a header\n\n#include "memsim/plan.h"\n' >"$tmp/session/up.h"
printf '#include <QString>\n' >"$tmp/session/qt.h"
printf '#include <memsim/plan.h>\n' >"$tmp/session/angle.h"
printf '#include "../memsim/plan.h"\n' >"$tmp/session/relative.h"

"$check" session "util" "util session memsim" ON "$tmp/ok" "$tmp/session/good.h"
[ -f "$tmp/ok" ] || { echo "FAIL: allowed includes did not pass"; exit 1; }

if "$check" session "util" "util session memsim" ON "$tmp/bad" "$tmp/session/up.h" 2>"$tmp/err"; then
  echo "FAIL: an include of a higher module passed"; exit 1
fi
grep -q "session/up.h:3: session may not include \"memsim/plan.h\"" "$tmp/err" ||
  { echo "FAIL: message does not name file and line:"; cat "$tmp/err"; exit 1; }
[ ! -f "$tmp/bad" ] || { echo "FAIL: the stamp was written for a failed check"; exit 1; }

if "$check" session "util" "util session memsim" ON "$tmp/bad" "$tmp/session/qt.h" 2>"$tmp/err"; then
  echo "FAIL: a Qt header in core passed"; exit 1
fi
grep -q "session/qt.h:1: session is Qt-free" "$tmp/err" || { cat "$tmp/err"; exit 1; }
# Angle brackets and relative paths do not step around it.
if "$check" session "util" "util session memsim" ON "$tmp/bad" "$tmp/session/angle.h" 2>"$tmp/err"; then
  echo "FAIL: an include in angle brackets passed"; exit 1
fi
grep -q "session/angle.h:1: session may not include" "$tmp/err" || { cat "$tmp/err"; exit 1; }
if "$check" session "util" "util session memsim" ON "$tmp/bad" "$tmp/session/relative.h" 2>"$tmp/err"; then
  echo "FAIL: an include by a relative path passed"; exit 1
fi
grep -q "session/relative.h:1: include by a relative path" "$tmp/err" || { cat "$tmp/err"; exit 1; }
if "$check" session "util" "util session memsim" ON "$tmp/bad" "$tmp/session/missing.h" 2>"$tmp/err"; then
  echo "FAIL: a file that cannot be read passed"; exit 1
fi
echo "layers guard: allowed includes pass; upward includes (quoted, angled, relative), a Qt header and an unreadable file fail, named"
