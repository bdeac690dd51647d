#!/usr/bin/env bash
# check-layers.sh MODULE "ALLOWED..." "KNOWN..." QT_FREE(ON|OFF) STAMP FILE...
# Fails, naming file and line, where a file of MODULE includes a header of a known module that
# MODULE does not depend on (itself, or one in ALLOWED: the transitive dependencies), or, when
# QT_FREE is ON, any Qt header. The modules and their dependencies are declared once, in
# core/CMakeLists.txt (ts_module); the build runs this for each module, so a stray include is a
# build error rather than a quiet cycle.
set -euo pipefail
module=$1 allowed=" $2 " known=" $3 " qtfree=$4 stamp=$5
shift 5
status=0
[ $# -gt 0 ] || { echo "check-layers: no files given for $module" >&2; exit 1; }
includes=$(grep -HnE '^[[:space:]]*#[[:space:]]*include' "$@") || [ $? -eq 1 ] ||
  { echo "check-layers: cannot read the files of $module" >&2; exit 1; }
while IFS=: read -r file line text; do
  [ -n "$file" ] || continue
  if [[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"\<]([^\"\>]*) ]]; then
    path=${BASH_REMATCH[1]}
  else
    continue
  fi
  # A relative path would step around the check: every include names its module.
  if [[ $path == ./* || $path == ../* || $path == */../* || $path == */./* ]]; then
    echo "$file:$line: include by a relative path (${text#*#include }): name its module" >&2
    status=1
    continue
  fi
  dep=${path%%/*}
  if [[ $path == */* && $known == *" $dep "* && $dep != "$module" && $allowed != *" $dep "* ]]; then
    echo "$file:$line: $module may not include ${text#*#include }: $module depends only on" \
         "${allowed:- (nothing)} (core/CMakeLists.txt)" >&2
    status=1
  elif [[ $qtfree == ON && $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\<Q ]]; then
    echo "$file:$line: $module is Qt-free, but includes ${text#*#include }" >&2
    status=1
  fi
done <<< "$includes"
[ $status -eq 0 ] && touch "$stamp"
exit $status
