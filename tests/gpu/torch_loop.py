# A small PyTorch training loop; writes its per-step wall times (ns, after a synchronize) to
# argv[1] (the first 30 steps are warm-up, which the scripts leave out). "--torch-profiler TRACE"
# profiles it with torch.profiler and exports TRACE.
import sys, time, torch
steps = 150
model = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(8)]).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(512, 2048, device="cuda")
times = []
def run():
    for _ in range(steps):
        t0 = time.perf_counter_ns()
        opt.zero_grad(); model(x).sum().backward(); opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter_ns() - t0)
if len(sys.argv) > 3 and sys.argv[2] == "--torch-profiler":
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts) as p:
        run()
    p.export_chrome_trace(sys.argv[3])
else:
    run()
open(sys.argv[1], "w").write("\n".join(str(t) for t in times) + "\n")
