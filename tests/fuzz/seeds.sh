#!/usr/bin/env bash
# Seeds for a fuzz target's corpus: small real inputs (../shared/data, Debian's libonnx-testdata,
# the bundled sample, the CLI's own outputs) written into DIR.
#   tests/fuzz/seeds.sh TARGET DIR
set -euo pipefail
target=$1 dir=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=$root/../shared/data
cli=$root/build/default/bin/tensorscope-cli
mkdir -p "$dir"
cut=$'\n=====\n'
case "$target" in
  chrome_json)
    for f in "$shared"/kineto/hta-{amd_trace,critical_path--cuda_event_sync,triton_example}*.json.gz; do
      zcat "$f" > "$dir/$(basename "$f" .gz)"
    done
    cp "$root"/tests/fuzz/regressions/chrome_json/* "$dir/"
    ;;
  open_file)
    cp "$shared"/kineto/hta-{amd_trace,critical_path--cuda_event_sync,triton_example}*.json.gz "$dir/"
    cp "$root/samples/sample.tscope" "$dir/"
    sqlite3 "$dir/nsys.sqlite" < "$root/tests/data/nsys_fixture.sql"
    ;;
  onnx)
    for t in node/test_relu node/test_conv_with_strides_padding node/test_gemm_default_matrix_bias \
             node/test_batchnorm_example node/test_matmul_2d node/test_reshape_extended_dims \
             pytorch-converted/test_AvgPool2d simple/test_sign_model; do
      [ -f "/usr/share/libonnx-testdata/data/$t/model.onnx" ] &&
        cp "/usr/share/libonnx-testdata/data/$t/model.onnx" "$dir/$(basename "$t").onnx"
    done
    cp "$shared/crashers/onnx-shape-inference-segv.onnx" "$dir/"
    ;;
  g10_workload)
    g=$shared/g10/BERT-256
    { head -n 60 "$g/tensors.config"; printf '%s' "$cut"; zcat "$g/kernels.config.gz" | sed -n 1,30p; } \
      > "$dir/bert-256-head"
    c=$shared/crashers/g10-stoi-out-of-range
    { cat "$c/tensors.config"; printf '%s' "$cut"; cat "$c/kernels.config"; } > "$dir/stoi-crasher"
    ;;
  g10_inputs)
    # The first byte picks the model (0 BERT, 1 VIT, 2 Inceptionv3, 3 ResNet152, 4 SENet154), then
    # the net file and the four traces at batch 8. Small nets with traces of the right length:
    # a ResNet stem and one bottleneck, an InceptionA, a SENet unit and BERT's first 40 op records,
    # with traces of as many kernels as each has.
    traces() {  # N kernels: times, PF, InputPF, workspaces
      local n=$1 i
      for kind in ms pf ipf; do
        printf '%s' "$cut"
        for ((i = 0; i < n; i++)); do printf '%04d 0.%d ms\n' "$i" "$((i % 7 + 1))"; done
      done
      printf '%s' "$cut"
      for ((i = 0; i < n; i++)); do printf '%04d %d B\n' "$i" "$(( i % 5 == 0 ? 4096 : 0 ))"; done
    }
    nets=$shared/g10-inputs/frontend/Nets
    { printf '\x03'; sed -n 1,4p "$nets/ResNet152.txt"; sed -n 6,19p "$nets/ResNet152.txt"
      printf '  )\n)\n'; traces 43; } > "$dir/resnet-bottleneck"
    { printf '\x02'; sed -n 1,6p "$nets/Inceptionv3.txt" | sed 's/(3, 32,/(3, 192,/; s/(32,/(192,/'
      sed -n 29,65p "$nets/Inceptionv3.txt"; printf ')\n'; traces 79; } > "$dir/inception-a"
    { printf '\x04'; sed -n 1,51p "$nets/SENet154.txt"; printf '    )\n  )\n)\n'
      traces 83; } > "$dir/senet-unit"
    { printf '\x00'; awk '{print} /^-+$/ && ++n == 40 {exit}' "$nets/BERT_Base.txt"
      traces 106; } > "$dir/bert-head"
    ;;
  text_configs)
    # The first byte picks the reader: 0 tier config, 1 sweep CSV, 2 corrections, 3 published.
    printf '\x00preset = g10-default\ngpu-mem = 16GB\nhost-mem = 128GiB\npcie-bw = 15.754GB/s\nssd-read-latency = 12us\npage = 4KiB\n' > "$dir/tier"
    printf '\x00{"preset": "a100-40gb", "gpu-mem": "8GB", "ssd-bw": "3.2GB/s"}' > "$dir/tier-json"
    printf '\x01gpu-mem,policy,feasible,iteration_ns,ideal_ns,slowdown,stall_ns\n8589934592,g10,yes,1000,900,1.11,100\n8589934592,lru,no,,900,,\n' > "$dir/sweep"
    printf '\x02# kernel\tgroup\nvolta_sgemm_128x64_nn\tforward/conv1\nelementwise_kernel\t\n' > "$dir/corrections"
    { printf '\x03'; cat "$shared/g10/published.txt"; } > "$dir/published"
    ;;
  chakra)
    if [ -x "$cli" ]; then
      tmp=$(mktemp -d)
      "$cli" model zoo alexnet -o "$tmp/alexnet.onnx" >/dev/null
      "$cli" model chakra "$tmp/alexnet.onnx" --parallel DATA --npus 2 -o "$tmp/alexnet" >/dev/null
      cp "$tmp/alexnet.0.et" "$dir/"
      rm -rf "$tmp"
    fi
    ;;
  stats_part)
    # Parts of the bundled sample and of two real ranks, one file each (merged as shard 0 of 1).
    if [ -x "$cli" ]; then
      "$cli" stats "$root/samples/sample.tscope" --shard 0/1 --min-gap 10us --max-gaps 3 \
        --summary-out "$dir/sample.part"
      "$cli" stats "$shared"/kineto/hta-{amd_trace,triton_example}*.json.gz --per-gpu \
        --shard 1/2 --summary-out "$dir/triton.part"
      # diagnose parts: two ranks of one job (steps, the straggler's collectives) and the sample.
      "$cli" diagnose "$shared"/kineto/hta-trace_filter--sampled_rank-{0,1}.json.gz \
        --shard 0/1 --summary-out "$dir/ranks.diagnosis"
      "$cli" diagnose "$root/samples/sample.tscope" "$shared"/kineto/hta-amd_trace*.json.gz \
        --gap-threshold 1ms --shard 0/1 --summary-out "$dir/sample.diagnosis"
    fi
    ;;
  memory_snapshot)
    # The snapshots tests/memory/make_snapshot.py wrote from a real trace, a memory timeline, and
    # the inputs that once broke the reader.
    cp "$root"/tests/data/memory_snapshot/*.pickle "$dir/"
    printf '[[-1, 10, 20], [[0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2, 3, 4, 5, 6, 7, 9], [0, 0, 0, 0, 0, 0, 0, 0, 0]]]' \
      > "$dir/timeline.json"
    cp "$root"/tests/fuzz/regressions/memory_snapshot/* "$dir/"
    ;;
  record_sink)
    printf '\x01\x00\x03\x05\x07' > "$dir/start"  # a recipe: hello, then a few frames
    ;;
  *)
    echo "seeds.sh: unknown target $target" >&2
    exit 2
    ;;
esac
