#!/usr/bin/python3
"""Ground truth for the memory model (core/memsim/engine/step_memory.h): what PyTorch's own
allocator holds during one training step of a torchvision model, and the model as ONNX.

Runs on Debian's python3-torch / python3-torchvision (CPU, fp32). For each model: a warm-up step
(so SGD's momentum buffers exist, as in every step after the first), then one step recorded by
the profiler with profile_memory=True: zero_grad(set_to_none=True), forward, cross-entropy loss,
backward, SGD with momentum 0.9. Every allocation and free the allocator reports (the profiler's
event tree, `[memory]` records with their sizes) is replayed on top of what was already allocated
when the step began (weights, momentum, the batch and its labels), giving live bytes over the
step. Forward hooks mark each leaf module's forward pass as a record_function range; backward
nodes are tied to the module whose forward op has the same sequence number. The result:

  <name>.memory.json   {"model", "batch", "torch", "parameters", "baseline": {...}, "peak",
                        "layers": [{"phase", "layer", "end", "max"}]} — live bytes at the end of
                        each layer's forward / backward and the most within it, in order
  <name>.onnx          torch.onnx.export of the same model (training mode, so BatchNorm is not
                        folded into the convolutions; weights as graph inputs without data;
                        stochastic depth as in evaluation, the identity: ONNX has no op for it)

With --optimizer adam: Adam (foreach=True, the multi-tensor path PyTorch 2.x takes on GPUs) in
place of SGD, its two moments and step counters as the optimizer state; written as
<name>.adam.memory.json, without the ONNX export (the model is the same).

Usage: record_pytorch_step.py [--optimizer sgd|adam] OUT_DIR BATCH MODEL [MODEL...]
"""
import json
import os
import sys

import torch
import torchvision


def leaf_modules(model):
    return [(name, m) for name, m in model.named_modules() if name and not list(m.children())]


def mark_forwards(model):
    """record_function ranges named fwd:<module> around each leaf module's forward."""
    handles, open_ranges = [], {}

    def pre(name):
        def hook(_module, _inputs):
            r = torch.autograd.profiler.record_function("fwd:" + name)
            r.__enter__()
            open_ranges[name] = r
        return hook

    def post(name):
        def hook(_module, _inputs, _output):
            open_ranges.pop(name).__exit__(None, None, None)
        return hook

    for name, m in leaf_modules(model):
        handles.append(m.register_forward_pre_hook(pre(name)))
        handles.append(m.register_forward_hook(post(name)))
    return handles


def flatten(events):
    """Every event of the tree, depth first (children in time order)."""
    out, stack = [], list(reversed(events))
    while stack:
        e = stack.pop()
        out.append(e)
        stack.extend(reversed(sorted(e.children, key=lambda c: c.start_time_ns)))
    return out


def owner_of(event, seq_to_layer):
    """The module a record belongs to: an enclosing fwd: range, or the forward op of a
    backward node (same sequence number)."""
    e = event
    while e is not None:
        if e.name.startswith("fwd:"):
            return "forward", e.name[4:]
        if e.name.startswith("autograd::engine::evaluate_function:"):
            seq = getattr(e.extra_fields, "sequence_number", -1)
            layer = seq_to_layer.get(seq)
            return "backward", layer if layer else "(autograd)"
        if e.name.startswith("Optimizer.step"):
            return "update", "optimizer"
        e = e.parent
    return "other", "(outside the model)"


def sequence_layers(roots):
    """Forward ops' autograd sequence numbers -> the leaf module whose fwd: range holds them."""
    seq = {}
    for e in flatten(roots):
        fields = e.extra_fields
        n = getattr(fields, "sequence_number", -1)
        if n is None or n < 0:
            continue
        p = e.parent
        while p is not None and not p.name.startswith("fwd:"):
            p = p.parent
        if p is not None:
            seq.setdefault(n, p.name[4:])
    return seq


def optimizer_state_bytes(opt):
    """Bytes of every tensor the optimizer keeps per parameter (momentum; Adam's moments, steps)."""
    return sum(v.numel() * v.element_size() for state in opt.state.values()
               for v in state.values() if torch.is_tensor(v))


def record(name, batch, out_dir, optimizer="sgd"):
    torch.manual_seed(0)
    # GoogLeNet's and Inception's auxiliary heads do not export to ONNX (adaptive pooling to a
    # size that does not divide the input): left out of both the recording and the export.
    extra = {"aux_logits": False, "init_weights": False} if name in ("googlenet",
                                                                     "inception_v3") else {}
    model = getattr(torchvision.models, name)(num_classes=1000, **extra)
    model.train()
    if optimizer == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=0.001, foreach=True)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    size = 299 if name.startswith("inception") else 224
    x = torch.randn(batch, 3, size, size)
    y = torch.randint(0, 1000, (batch,))

    def step():
        opt.zero_grad(set_to_none=True)
        out = model(x)
        if isinstance(out, tuple):  # GoogLeNet / Inception auxiliary outputs
            out = out[0]
        loss = torch.nn.functional.cross_entropy(out, y)
        loss.backward()
        opt.step()

    step()  # warm-up: the momentum buffers now exist, as in every later step
    opt.zero_grad(set_to_none=True)
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    buffers = sum(b.numel() * b.element_size() for b in model.buffers())
    momentum = optimizer_state_bytes(opt)  # SGD's momentum, or Adam's moments and steps
    data = x.numel() * x.element_size() + y.numel() * y.element_size()
    baseline = weights + buffers + momentum + data

    handles = mark_forwards(model)
    with torch.autograd.profiler.profile(profile_memory=True) as prof:
        step()
    for h in handles:
        h.remove()

    roots = prof.kineto_results.experimental_event_tree()
    seq_to_layer = sequence_layers(roots)
    allocations = [e for e in flatten(roots) if type(e.extra_fields).__name__ ==
                   "_ExtraFields_Allocation"]
    allocations.sort(key=lambda e: e.start_time_ns)
    live, peak = baseline, baseline
    layers = []
    for e in allocations:
        live += e.extra_fields.alloc_size
        peak = max(peak, live)
        phase, layer = owner_of(e.parent, seq_to_layer)
        if phase == "other" and layers:  # between modules: the profiler's and Python's small bits
            phase, layer = layers[-1]["phase"], layers[-1]["layer"]
        if not layers or (layers[-1]["phase"], layers[-1]["layer"]) != (phase, layer):
            layers.append({"phase": phase, "layer": layer, "end": live, "max": live})
        layers[-1]["end"] = live
        layers[-1]["max"] = max(layers[-1]["max"], live)

    result = {
        "model": name,
        "batch": batch,
        "dtype": "float32",
        "optimizer": "adam-foreach" if optimizer == "adam" else "sgd-momentum",
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "parameters": sum(p.numel() for p in model.parameters()),
        "baseline": {"weights": weights, "buffers": buffers, "momentum": momentum, "data": data},
        "peak": peak,
        "allocations": sum(1 for e in allocations if e.extra_fields.alloc_size > 0),
        "layers": layers,
    }
    suffix = ".adam.memory.json" if optimizer == "adam" else ".memory.json"
    with open(os.path.join(out_dir, name + suffix), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    if optimizer == "adam":
        print(f"{name} (adam): batch {batch}, peak {peak / 2**30:.3f} GiB")
        return

    # Stochastic depth draws its mask with an op ONNX cannot express: exported as in evaluation
    # (the identity), everything else as trained.
    for m in model.modules():
        if type(m).__name__ == "StochasticDepth":
            m.eval()
    dynamic = {"input": {0: "batch"}, "output": {0: "batch"}}
    torch.onnx.export(model, x, os.path.join(out_dir, name + ".onnx"), export_params=False,
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False,
                      input_names=["input"], output_names=["output"], dynamic_axes=dynamic,
                      opset_version=14)
    print(f"{name}: batch {batch}, peak {peak / 2**30:.3f} GiB "
          f"({(peak - baseline) / 2**30:.3f} GiB over {baseline / 2**30:.3f} GiB held), "
          f"{result['allocations']} allocations")


def main():
    args = sys.argv[1:]
    optimizer = "sgd"
    if len(args) >= 2 and args[0] == "--optimizer":
        optimizer, args = args[1], args[2:]
    if len(args) < 3 or optimizer not in ("sgd", "adam"):
        sys.exit(__doc__)
    out_dir, batch = args[0], int(args[1])
    os.makedirs(out_dir, exist_ok=True)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for name in args[2:]:
        record(name, batch, out_dir, optimizer)


if __name__ == "__main__":
    main()
