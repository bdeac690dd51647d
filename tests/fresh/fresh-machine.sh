#!/usr/bin/env bash
# The README's two commands on a fresh Debian 12: debootstraps a minimal bookworm (only the
# required packages and apt, less than a base install) into ROOT, adds git, clones this
# repository's committed HEAD into it beside a read-only ../shared, and runs, as root inside it,
#   ./dev test
#   xvfb-run -a ./dev run --screenshot fresh-x11.png        (a real X server)
#   QT_QPA_PLATFORM=offscreen ./dev run --screenshot fresh-offscreen.png
#   ./dev package, apt-get install ./tensorscope_*.deb, and the installed programs
# Nothing installed on this machine can help: the chroot has its own /usr. Needs root, the
# debootstrap package and Debian's archive; takes about 12 minutes on 2 cores (not run by CI).
#   tests/fresh/fresh-machine.sh [ROOT]     (default /var/tmp/tensorscope-fresh, made anew each
#                                            time; TSCOPE_FRESH_REUSE=1 keeps an earlier one)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
root=${1:-/var/tmp/tensorscope-fresh}
mirror=http://deb.debian.org/debian
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine: run as root" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "fresh-machine: apt-get install debootstrap" >&2; exit 1; }

if findmnt -rn -o TARGET | grep -q "^$root/"; then
  echo "fresh-machine: something is still mounted under $root (an interrupted run?): umount it first" >&2
  exit 1
fi
if [ "${TSCOPE_FRESH_REUSE:-}" != 1 ]; then rm -rf "$root"; fi
if [ ! -x "$root/usr/bin/apt-get" ]; then
  debootstrap --variant=minbase bookworm "$root" "$mirror"
fi
cat > "$root/etc/apt/sources.list" <<LIST
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
LIST
cp /etc/resolv.conf "$root/etc/resolv.conf"

mounts=()
mnt() { mount "$@"; mounts+=("${@: -1}"); }
cleanup() { for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" || true; done; }
trap cleanup EXIT
mnt -t proc proc "$root/proc"
mnt -t sysfs sys "$root/sys"
mnt --bind /dev "$root/dev"
mnt -t devpts devpts "$root/dev/pts"
mnt -t tmpfs tmpfs "$root/dev/shm"
mkdir -p "$root/work/shared" "$root/src"
mnt --bind -o ro "$repo/../shared" "$root/work/shared"
mnt --bind -o ro "$repo" "$root/src"

chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root bash -euo pipefail -c '
  export DEBIAN_FRONTEND=noninteractive
  command -v git >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends git ca-certificates; }
  echo "fresh-machine: $(dpkg -l | grep -c ^ii) packages before ./dev"
  rm -rf /work/main && git -c safe.directory=/src clone -q /src /work/main && cd /work/main
  echo "fresh-machine: testing $(git log -1 --format="%h %s")"
  ./dev test
  xvfb-run -a ./dev run --screenshot /work/fresh-x11.png
  QT_QPA_PLATFORM=offscreen ./dev run --screenshot /work/fresh-offscreen.png
  echo "fresh-machine: $(dpkg -l | grep -c ^ii) packages after ./dev"
  # The README'"'"'s install from the .deb, and the installed programs from /usr/bin.
  deb=$(./dev package 2>/dev/null | tail -n1)
  apt-get install -y -qq "$deb" >/dev/null
  cd / && tensorscope-cli info /work/main/samples/sample.tscope
  QT_QPA_PLATFORM=offscreen tensorscope /work/main/samples/sample.tscope --screenshot /work/fresh-installed.png
  dpkg -L tensorscope | grep -E "bin/|\.so$"
'
cp "$root"/work/fresh-*.png "${TMPDIR:-/tmp}/"
echo "fresh-machine: PASS (screenshots in ${TMPDIR:-/tmp}/fresh-{x11,offscreen,installed}.png)"
