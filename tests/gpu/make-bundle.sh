#!/usr/bin/env bash
# Builds what tests/gpu/gpu-check.sh runs, here (where the project's packages are), into one folder
# for a GPU machine that has the CUDA driver and Python but not those packages:
#
#   tests/gpu/make-bundle.sh [DIR]      (default build/gpu-bundle)
#   tests/gpu/gpu-check.sh OUTDIR --bundle DIR      (there)
#
# DIR/bin holds the CLI and the two CUDA samples, stripped; DIR/lib/<multiarch>/tensorscope the
# injection library, where the CLI looks for it; DIR/lib/deps the shared libraries they link that
# a machine without the project's packages lacks (never the C library, the C++ runtime or the
# CUDA driver, which the GPU machine's own must provide). Needs nvcc (the CUDA 13 toolkit).
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=${1:-build/gpu-bundle}
BUILD=build/gpu-check
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTSCOPE_BUILD_GUI=OFF \
  -DTSCOPE_BUILD_TESTS=OFF -DTSCOPE_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" --target tensorscope-cli tensorscope_inject pair_add train_loop
inject=$(find "$BUILD/lib" -name libtensorscope_inject.so)
[ -x "$BUILD/samples/cuda/pair_add" ] || { echo "make-bundle: no CUDA samples (nvcc not found)" >&2; exit 1; }
libdir=$(dirname "${inject#"$BUILD"/}")
rm -rf "$DIR"
mkdir -p "$DIR/bin" "$DIR/$libdir" "$DIR/lib/deps"
cp "$BUILD/bin/tensorscope-cli" "$BUILD/samples/cuda/pair_add" "$BUILD/samples/cuda/train_loop" "$DIR/bin/"
cp "$inject" "$DIR/$libdir/"
# What the GPU machine has itself: the C library and its loader, the C++ and GCC runtimes, the
# CUDA driver, CUPTI (the launcher finds the toolkit's; PyTorch brings its own).
system='^(linux-vdso|ld-linux|libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|libcuda|libcupti)\.'
for f in "$DIR"/bin/* "$DIR/$libdir"/*.so; do
  ldd "$f" | awk '$3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ $name =~ $system ]] || cp -L "$path" "$DIR/lib/deps/$name"
done
strip --strip-unneeded "$DIR"/bin/* "$DIR/$libdir"/*.so "$DIR"/lib/deps/*
echo "make-bundle: $(du -sh "$DIR" | cut -f1) in $DIR:"
find "$DIR" -type f | sort
