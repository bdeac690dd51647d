#!/usr/bin/env bash
# The Debian package, installed as a user would get it: extracts the .deb into a temporary
# directory (dpkg-deb -x) and runs what it holds from there, far from the build tree: the CLI on
# the bundled sample (info, stats), the GUI rendering it offscreen, the capture library found
# beside the installed CLI. Then checks that nothing in the package points into the build tree,
# that its Depends came from the binaries, and that its metadata validates (lintian without
# errors, appstreamcli).
#   tests/package/test-package.sh DEB SAMPLE BUILD_DIR [FAKE_TARGET]
# FAKE_TARGET (capture builds): a program that loads CUDA_INJECTION64_PATH as the driver does.
set -euo pipefail
deb=$1 sample=$2 build=$3 fake=${4:-}
fail() { echo "test-package: FAIL: $*" >&2; exit 1; }
[ -f "$deb" ] || fail "$deb not found"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
echo "test-package: $deb extracted into $root"

# What the package must hold.
for f in usr/bin/tensorscope usr/bin/tensorscope-cli \
         usr/share/man/man1/tensorscope.1.gz usr/share/man/man1/tensorscope-cli.1.gz \
         usr/share/applications/org.tensorscope.Tensorscope.desktop \
         usr/share/metainfo/org.tensorscope.Tensorscope.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/tensorscope.svg \
         usr/share/mime/packages/tensorscope.xml \
         usr/share/doc/tensorscope/copyright usr/share/doc/tensorscope/changelog.gz; do
  [ -e "$root/$f" ] || fail "the package lacks /$f"
done
capture=no
if [ -n "$fake" ]; then
  capture=yes
  inject=$(ls "$root"/usr/lib/*/tensorscope/libtensorscope_inject.so 2>/dev/null || true)
  [ -n "$inject" ] ||
    fail "capture is built but the package lacks /usr/lib/<multiarch>/tensorscope/libtensorscope_inject.so"
fi

# Depends computed from the ELF files, so Qt and the format libraries are there.
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libqt6widgets6 libqt6charts6 libsqlite3 libprotobuf libzstd; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done

# Nothing points into the build tree: no path to it in any file, and no library resolved there.
abs_build=$(cd "$build" && pwd -P)
if hits=$(grep -rlF "$abs_build" "$root"); then fail "files name the build tree $abs_build: $hits"; fi
for elf in "$root"/usr/bin/* "$root"/usr/lib/*/tensorscope/*.so; do
  [ -f "$elf" ] || continue
  if ldd "$elf" | grep -F "$abs_build"; then fail "$elf loads libraries from the build tree"; fi
done

# Run it from there, with a clean environment: no build paths, no library overrides.
cli=$root/usr/bin/tensorscope-cli
run() { env -i PATH=/usr/bin:/bin HOME="$root/home" XDG_RUNTIME_DIR="$root/xdg" "$@"; }
mkdir -p "$root/home" "$root/xdg" && chmod 700 "$root/xdg"
run "$cli" --version
info=$(run "$cli" info "$sample") || fail "installed CLI: info failed"
grep -q "kernel" <<<"$info" || fail "installed CLI: info shows no kernels: $info"
stats=$(run "$cli" stats "$sample") || fail "installed CLI: stats failed"
[ -n "$stats" ] || fail "installed CLI: stats printed nothing"
# export lives in a module the CLI opens from the package's private library folder.
ls "$root"/usr/lib/*/tensorscope/libtensorscope_export.so >/dev/null 2>&1 ||
  fail "the package lacks /usr/lib/<multiarch>/tensorscope/libtensorscope_export.so"
run "$cli" export "$sample" --chart gpu_util --format png -o "$root/chart.png" ||
  fail "installed CLI: export failed"
[ "$(head -c 8 "$root/chart.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  fail "installed CLI: the exported chart is not a PNG"
run QT_QPA_PLATFORM=offscreen "$root/usr/bin/tensorscope" "$sample" --screenshot "$root/shot.png" ||
  fail "installed GUI: --screenshot failed"
[ "$(head -c 8 "$root/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  fail "installed GUI: the screenshot is not a PNG"
[ "$(stat -c %s "$root/shot.png")" -gt 20000 ] || fail "installed GUI: the screenshot is nearly empty"

if [ "$capture" = yes ]; then
  # The installed launcher finds its library beside itself (TSCOPE_INJECTION_LIBRARY unset), and
  # the program it starts loads that library and connects back.
  # A CUPTI that cannot load makes the library report so over its connection, GPU or not: that
  # message proves the installed library was loaded and reached the launcher.
  run "$cli" capture -o "$root/capture.tscope" --env TSCOPE_CUPTI_LIBRARY="$root/no-libcupti.so" \
    -- "$fake" 0 2> "$root/capture.log" || { cat "$root/capture.log" >&2; fail "installed CLI: capture failed"; }
  grep -qE "process [0-9]+: CUPTI could not start: the CUPTI library $root/no-libcupti.so" "$root/capture.log" ||
    { cat "$root/capture.log" >&2; fail "installed CLI: the captured program's library did not connect"; }
fi

# Metadata: AppStream, then lintian (errors fail, warnings are printed). ./dev installs both.
for tool in appstreamcli lintian; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (./dev installs it)"
done
appstreamcli validate --no-net "$root/usr/share/metainfo/org.tensorscope.Tensorscope.metainfo.xml" ||
  fail "appstreamcli validate failed"
lintian --fail-on error "$deb" || fail "lintian reports errors"
echo "test-package: PASS ($(stat -c %s "$deb") bytes, capture: $capture)"
