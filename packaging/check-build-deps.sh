#!/usr/bin/env bash
# Guard against "works here, fails on a fresh machine": every file the configured build found
# under /usr must come from a Debian package that ./dev installs, either listed or pulled in by
# the Depends of a listed one. A package someone installed by hand (it happened:
# libqt6opengl6-dev, needed by qt6-charts-dev's CMake files) keeps our machines green while the
# README's first command fails everywhere else; this makes our machines fail first.
#
#   packaging/check-build-deps.sh BUILD_DIR PACKAGE...
#
# What "found" means: the CMake package configurations (*_DIR in CMakeCache.txt), every other
# path the cache holds under /usr that the build commands use (libraries, headers, programs), and the
# pkg-config files of the modules pkg_check_modules looked up, with the .pc files they require.
# /usr/local is not Debian's (the CUDA toolkit lives there) and is left out.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR PACKAGE..." >&2
  exit 2
fi
build=$1
shift
cache=$build/CMakeCache.txt
if [ ! -f "$cache" ]; then
  echo "check-build-deps: $cache not found: configure first" >&2
  exit 2
fi

strip_arch() { sed 's/:[a-z0-9]*$//'; }

# The set-up's packages and their Depends/Pre-Depends closure, as apt would install them on a
# machine that has none of them (Recommends are not installed: ./dev uses --no-install-recommends),
# plus what every Debian system has before anything is installed: the Essential and
# Priority: required packages (what debootstrap's minbase installs; gzip, say). apt-cache follows
# every alternative of an "a | b" dependency where apt installs only the first, so this closure
# is a little wider than a fresh install; tests/fresh/fresh-machine.sh is the exact check.
base=$(dpkg-query -W -f='${Package} ${Essential} ${Priority}\n' | awk '$2 == "yes" || $3 == "required" {print $1}')
# shellcheck disable=SC2086 # one package name a word
if ! closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
                 --no-replaces --no-enhances "$@" $base 2>/dev/null | grep -vE '^ |^<' | strip_arch | sort -u) ||
   [ -z "$closure" ]; then
  echo "check-build-deps: apt-cache knows none of the set-up's packages (run apt-get update first)" >&2
  exit 2
fi
in_closure() { grep -qxF "$1" <<<"$closure"; }

# Owners of one path, one package per line; merged-/usr files may be registered under /lib.
owners() {
  local p=$1 out
  out=$(dpkg -S "$p" 2>/dev/null | grep -v '^diversion' | head -n1) ||
    out=$(dpkg -S "${p#/usr}" 2>/dev/null | grep -v '^diversion' | head -n1) || true
  [ -n "$out" ] || return 0
  echo "${out%%: /*}" | tr ',' '\n' | sed 's/^ *//' | strip_arch
}

failures=0
checked=0
# check WHAT PATH: WHAT names the CMake or pkg-config package that needed PATH.
check() {
  local what=$1 path=$2 real pkgs p
  case "$path" in /usr/local/*) return 0 ;; /usr/*) ;; *) return 0 ;; esac
  # Files only: a directory such as /usr/include belongs to dozens of packages, so it would
  # always pass (a missing -dev package shows in its library or CMake file instead).
  [ -f "$path" ] || return 0
  real=$(readlink -f "$path")
  case "$real" in /usr/local/*) return 0 ;; esac
  checked=$((checked + 1))
  [ -z "${CHECK_BUILD_DEPS_VERBOSE:-}" ] || echo "  $what: $path"
  # The path itself first (libfoo.so belongs to libfoo-dev, its target to libfoo1), then what it
  # links to (alternatives such as /usr/bin/c++ belong to nobody).
  pkgs=$(owners "$path")
  [ -n "$pkgs" ] || pkgs=$(owners "$real")
  if [ -z "$pkgs" ]; then
    echo "check-build-deps: $what uses $path, which no Debian package owns (installed by hand?)" >&2
    failures=$((failures + 1))
    return 0
  fi
  for p in $pkgs; do in_closure "$p" && return 0; done
  p=$(head -n1 <<<"$pkgs")
  echo "check-build-deps: $what needs Debian package $p ($path), which ./dev does not install:" \
       "add $p to PACKAGES in ./dev" >&2
  failures=$((failures + 1))
}

# 1. CMake package configurations: judge the config file itself, since a directory such as
#    lib/cmake/Qt6 is shared by many packages.
declare -A is_config=()
while IFS= read -r line; do
  name=${line%%:*}
  dir=${line#*=}
  pkg=${name%_DIR}
  config=
  for c in "$dir/${pkg}Config.cmake" "$dir/$(tr '[:upper:]' '[:lower:]' <<<"$pkg")-config.cmake"; do
    [ -f "$c" ] && config=$c && break
  done
  [ -n "$config" ] || config=$(ls "$dir"/*Config.cmake "$dir"/*-config.cmake 2>/dev/null | head -n1 || true)
  [ -n "$config" ] || continue  # an include directory such as ZLIB_INCLUDE_DIR: step 2
  is_config[$name]=1
  check "CMake package $pkg" "$config"
done < <(grep -E '^[A-Za-z0-9_.+-]+_DIR:(PATH|FILEPATH|STRING)=/usr/' "$cache")

# 2. Every other path the cache found that the build commands use: libraries, include
#    directories, tools. (Find modules also record what they found but nothing links, such as
#    FindOpenGL's GLU; a fresh machine just leaves those NOTFOUND.)
ninja=$build/build.ninja
while IFS= read -r line; do
  name=${line%%:*}
  value=${line#*=}
  [ -z "${is_config[$name]:-}" ] || continue
  # CUDA is optional and may come from anywhere (NVIDIA's /usr/local/cuda, Debian's non-free
  # nvidia-cuda-toolkit): ./dev does not install it, so it is not held to the list.
  case "$name" in CMAKE_INSTALL_* | CMAKE_CUDA_* | CUDA_* | CUDAToolkit_*) continue ;; esac
  case "$value" in *-NOTFOUND) continue ;; esac
  if [ -f "$ninja" ] && ! grep -qF -- "$value" "$ninja" "$build/CMakeFiles/rules.ninja" 2>/dev/null; then continue; fi
  check "$name" "$value"
done < <(grep -E '^[A-Za-z0-9_.+-]+:(PATH|FILEPATH)=/usr/' "$cache")

# 3. pkg-config modules, with the modules they require.
mapfile -t modules < <(sed -n 's/^__pkg_config_arguments_[A-Za-z0-9_]*:INTERNAL=//p' "$cache" |
  tr ';' '\n' | grep -vE '^(REQUIRED|QUIET|IMPORTED_TARGET|GLOBAL|NO_CMAKE_PATH|NO_CMAKE_ENVIRONMENT_PATH)$' |
  sed 's/[<>=].*//' | sort -u)
declare -A seen=()
while [ ${#modules[@]} -gt 0 ]; do
  m=${modules[0]}
  modules=("${modules[@]:1}")
  [ -n "$m" ] && [ -z "${seen[$m]:-}" ] || continue
  seen[$m]=1
  pc=$(pkg-config --path "$m" 2>/dev/null || true)
  [ -n "$pc" ] || continue
  check "pkg-config module $m" "$pc"
  mapfile -t -O "${#modules[@]}" modules < <(pkg-config --print-requires --print-requires-private "$m" \
    2>/dev/null | awk '{print $1}')
done

if [ "$checked" -eq 0 ]; then
  echo "check-build-deps: found nothing under /usr in $cache to check: is this a configured build?" >&2
  exit 1
fi
if [ "$failures" -gt 0 ]; then
  echo "check-build-deps: $failures of $checked paths the build uses come from packages ./dev does not" \
       "install; a fresh machine would fail to configure or build" >&2
  exit 1
fi
echo "check-build-deps: all $checked paths the build found under /usr come from packages ./dev installs"
