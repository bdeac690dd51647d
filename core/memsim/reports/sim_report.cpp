#include "memsim/reports/sim_report.h"

#include <cmath>

#include "memsim/engine/step_memory.h"
#include "util/format.h"
#include "util/json_writer.h"

namespace ts::memsim {

StatsTable simulationTable(const std::vector<PolicyRun>& runs, const PublishedRow* published,
                           double clockHz) {
  StatsTable t;
  t.report = "memsim";
  t.title = "Simulated iteration per policy";
  t.columns = {{"policy", "Policy", StatsUnit::Text},
               {"feasible", "Feasible", StatsUnit::Text},
               {"iteration_ns", "Iteration", StatsUnit::Duration},
               {"ideal_ns", "Ideal", StatsUnit::Duration},
               {"slowdown", "Slowdown", StatsUnit::Count},
               {"stall_ns", "Stall", StatsUnit::Duration},
               {"overlap_ns", "Overlap", StatsUnit::Duration},
               {"faults", "Faults", StatsUnit::Count}};
  for (int l = 0; l < kLinkCount; ++l) {
    std::string name = toString(static_cast<Link>(l));
    t.columns.push_back({name + "_bytes", name, StatsUnit::Bytes});
  }
  if (published) {
    t.columns.push_back({"g10_published_ns", "G10 published", StatsUnit::Duration});
    t.columns.push_back({"vs_published_pct", "Δ vs G10 %", StatsUnit::Percent});
  }
  for (const PolicyRun& run : runs) {
    const SimResult& r = run.result;
    const SimSummary& s = r.summary;
    std::vector<StatsCell> row = {std::string(toString(r.policy)),
                                  std::string(r.feasible ? "yes" : "no")};
    if (r.feasible) {
      row.insert(row.end(),
                 {int64_t{s.iteration}, int64_t{s.ideal}, std::round(s.slowdown * 1000) / 1000,
                  int64_t{s.stall}, int64_t{s.overlap}, s.faults});
      for (int64_t b : s.linkBytes) row.emplace_back(b);
    } else {
      row.insert(row.end(), {std::monostate{}, int64_t{s.ideal}});
      row.resize(t.columns.size() - (published ? 2 : 0));
    }
    if (published) {
      auto it = published->cycles.find(r.policy);
      if (it == published->cycles.end()) {
        row.insert(row.end(), {std::monostate{}, std::monostate{}});
      } else if (it->second < 0) {  // G10 found it infeasible
        row.insert(row.end(), {std::string("infeasible"), std::monostate{}});
      } else {
        auto ns =
            static_cast<int64_t>(std::llround(static_cast<double>(it->second) * 1e9 / clockHz));
        row.emplace_back(ns);
        if (r.feasible)
          row.emplace_back(100.0 * (static_cast<double>(s.iteration) - static_cast<double>(ns)) /
                           static_cast<double>(ns));
        else
          row.emplace_back(std::monostate{});
      }
    }
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "The second of two simulated iterations (the steady state, as G10 reports); flashneuron, "
      "g10-gds and g10-host: one iteration in G10's simulator of explicit copies, as G10 runs "
      "them.");
  for (const PolicyRun& run : runs) {
    if (!run.result.feasible)
      t.notes.push_back(std::string(toString(run.result.policy)) +
                        " is infeasible: " + run.result.problem);
    else if (!run.plan.note.empty())
      t.notes.push_back(std::string(toString(run.result.policy)) + " plan: " + run.plan.note + ".");
    if (run.result.feasible && !run.result.caveat.empty())
      t.notes.push_back(std::string(toString(run.result.policy)) + ": " + run.result.caveat + ".");
  }
  if (published)
    t.notes.push_back("G10 published: its artifact's Figure 11 (" + published->model + ", batch " +
                      std::to_string(published->batch) + "), cycles at 1.2 GHz.");
  return t;
}

StatsTable planTable(const SimWorkload& w, const std::vector<PolicyRun>& runs) {
  StatsTable t;
  t.report = "memsim_plan";
  t.title = "Planned actions";
  t.columns = {
      {"policy", "Policy", StatsUnit::Text},           {"kernel", "Kernel", StatsUnit::Count},
      {"kernel_name", "Kernel name", StatsUnit::Text}, {"action", "Action", StatsUnit::Text},
      {"tensor", "Tensor", StatsUnit::Text},           {"bytes", "Bytes", StatsUnit::Bytes}};
  for (const PolicyRun& run : runs) {
    for (const Action& a : run.plan.actions) {
      t.rows.push_back({std::string(toString(run.plan.policy)), int64_t{a.kernel},
                        w.kernels[static_cast<size_t>(a.kernel)].name,
                        std::string(toString(a.kind)),
                        w.tensors[static_cast<size_t>(a.tensor)].name,
                        w.tensors[static_cast<size_t>(a.tensor)].bytes});
    }
  }
  return t;
}

namespace {

void memoryJson(JsonWriter& j, const StepMemory& step, const SimWorkload& w, const SimResult& r) {
  j.key("memory").beginObject();
  j.key("step_peak_bytes").value(step.peak);
  j.key("step_peak_by_kind").beginObject();
  for (TensorClass c : allTensorClasses()) j.key(toString(c)).value(step.atPeak(c));
  j.endObject();
  if (r.feasible) {
    int64_t resident = 0;
    for (const TierUsage& u : r.usage) resident = std::max(resident, u.gpu);
    j.key("gpu_peak_bytes").value(allocatedPeak(w, r));
    j.key("gpu_resident_peak_bytes").value(resident);
  }
  j.endObject();
}

}  // namespace

std::string simulationJson(const SimWorkload& workload, const std::vector<PolicyRun>& runs) {
  const StepMemory step = stepMemory(workload);
  JsonWriter j;
  j.beginArray();
  for (const PolicyRun& run : runs) {
    const SimResult& r = run.result;
    const SimSummary& s = r.summary;
    j.beginObject();
    j.key("policy").value(toString(r.policy));
    j.key("feasible").value(r.feasible);
    if (r.feasible) {
      j.key("iteration_ns").value(int64_t{s.iteration});
      j.key("ideal_ns").value(int64_t{s.ideal});
      j.key("slowdown").value(s.slowdown);
      j.key("stall_ns").value(int64_t{s.stall});
      j.key("compute_ns").value(int64_t{s.compute});
      j.key("overlap_ns").value(int64_t{s.overlap});
      j.key("faults").value(s.faults);
      j.key("demand_bytes").value(s.demandBytes);
    } else {
      j.key("iteration_ns").null();
      j.key("ideal_ns").value(int64_t{s.ideal});
      j.key("slowdown").null();
      j.key("stall_ns").null();
      j.key("problem").value(r.problem);
    }
    j.key("bytes").beginObject();
    for (int l = 0; l < kLinkCount; ++l)
      j.key(toString(static_cast<Link>(l))).value(s.linkBytes[static_cast<size_t>(l)]);
    j.endObject();
    memoryJson(j, step, workload, r);
    j.endObject();
  }
  j.endArray();
  return j.str() + "\n";
}

std::string trafficSentence(const SimSummary& s) {
  std::string out;
  for (Link l : kGpuLinks) {
    if (s.linkBytes[static_cast<size_t>(l)] == 0) continue;  // the links it used
    if (!out.empty()) out += ", ";
    out += formatBytes(static_cast<uint64_t>(s.linkBytes[static_cast<size_t>(l)])) + " " +
           linkLabel(l);
  }
  return out.empty() ? "no transfers" : out;
}

}  // namespace ts::memsim
