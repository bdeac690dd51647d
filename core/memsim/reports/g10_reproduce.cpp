#include "memsim/reports/g10_reproduce.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "io/text_file.h"
#include "memsim/engine/simulation.h"
#include "memsim/engine/tier_config.h"
#include "memsim/formats/g10_inputs.h"
#include "memsim/formats/g10_published.h"
#include "util/on_every_core.h"
#include "util/text.h"

namespace ts::memsim {

namespace {

constexpr double kGiB = 1073741824.0;

// What G10's scripts run per model (src/resources/genconfigs.py: the batch sizes it generates
// configurations for; the figure scripts: the batch of the SSD figure and the four batches and
// memory sizes of the host-memory figure).
struct ModelPlan {
  const char* model;
  std::vector<int64_t> batches;
  int64_t ssdBatch;
  std::vector<int64_t> hostBatches;
  std::vector<double> hostGiB;
};

const std::vector<ModelPlan>& modelPlans() {
  static const std::vector<ModelPlan> kPlans = {
      {"BERT",
       {128, 256, 384, 512, 640, 768, 1024},
       512,
       {256, 384, 512, 640},
       {0, 16, 32, 64, 128, 256}},
      {"VIT",
       {256, 512, 768, 1024, 1280, 1536},
       1280,
       {768, 1024, 1280, 1536},
       {0, 16, 32, 64, 128, 256}},
      {"Inceptionv3",
       {512, 768, 1024, 1152, 1280, 1536, 1792},
       1536,
       {512, 1024, 1280, 1536},
       {0, 16, 32, 64, 128, 256}},
      {"ResNet152",
       {256, 512, 768, 1024, 1280, 1536},
       1280,
       {768, 1024, 1280, 1536},
       {0, 16, 32, 64, 128, 192, 256}},
      {"SENet154",
       {256, 512, 768, 1024},
       1024,
       {256, 512, 768, 1024},
       {0, 16, 32, 64, 96, 128, 256}},
  };
  return kPlans;
}

const std::vector<std::pair<const char*, int64_t>>& figure11() {
  static const std::vector<std::pair<const char*, int64_t>> kConfigs = {
      {"BERT", 256}, {"VIT", 1280}, {"Inceptionv3", 1536}, {"ResNet152", 1280}, {"SENet154", 1024}};
  return kConfigs;
}

struct Config {
  std::string model;
  int64_t batch;
  double setting;
  TierConfig tiers;
  std::vector<Policy> policies;
};

std::vector<Config> configsOf(G10Experiment e, const std::string& model,
                              const std::map<std::string, std::vector<int64_t>>& traced) {
  const TierConfig base = *tierPreset("g10-default");
  const std::vector<Policy> figurePolicies = {Policy::Lru, Policy::FlashNeuron, Policy::DeepUm,
                                              Policy::G10, Policy::Ideal};
  std::vector<Config> out;
  auto wanted = [&](const std::string& m) {
    return traced.count(m) && (model.empty() || findG10Model(model) == findG10Model(m));
  };
  if (e == G10Experiment::Figure11) {
    for (auto [m, batch] : figure11())
      if (wanted(m)) out.push_back({m, batch, 0, base, allPolicies()});
    return out;
  }
  for (const ModelPlan& p : modelPlans()) {
    if (!wanted(p.model)) continue;
    if (e == G10Experiment::Batch) {
      for (int64_t b : p.batches) out.push_back({p.model, b, 0, base, figurePolicies});
    } else if (e == G10Experiment::SsdBandwidth) {
      for (double gibps : {6.4, 12.8, 19.2, 25.6, 32.0}) {
        TierConfig t = base;
        t.ssdGpuBandwidth = t.ssdHostBandwidth = gibps * kGiB;
        t.gpuHostBandwidth = 32 * kGiB;  // G10's script: PCIe 32 "GB/s" for every SSD point
        out.push_back({p.model, p.ssdBatch, gibps, t, figurePolicies});
      }
    } else {
      for (int64_t b : p.hostBatches) {
        for (double gib : p.hostGiB) {
          TierConfig t = base;
          t.hostBytes = static_cast<int64_t>(gib * kGiB);
          out.push_back({p.model, b, gib, t, {Policy::G10}});
        }
      }
    }
  }
  return out;
}

std::string configName(const ReproducePoint& p, G10Experiment e) {
  std::string s = p.model + "-" + std::to_string(p.batch);
  char text[48];
  if (e == G10Experiment::SsdBandwidth) {
    std::snprintf(text, sizeof text, " SSD %g GiB/s", p.setting);
    s += text;
  } else if (e == G10Experiment::HostMemory) {
    std::snprintf(text, sizeof text, " host %g GiB", p.setting);
    s += text;
  }
  return s;
}

// "6.4" == 6.4 for a row key read from a file.
bool sameSetting(double a, double b) {
  return std::fabs(a - b) < 1e-6 * std::max(1.0, b);
}

struct PlotTable {
  std::vector<std::string> columns;
  size_t headerLine = 0;
  struct Row {
    double key;
    std::vector<int64_t> values;  // -1 = inf
    size_t line;
  };
  std::vector<Row> rows;
};

Result<PlotTable> readPlotTable(const std::string& path) {
  auto text = readTextFile(path);
  if (!text) return text.failure();
  PlotTable t;
  const auto lines = splitLines(text->view());
  double key = 0;
  bool haveKey = false;  // the row key read, its values due
  size_t keyLine = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string line(trim(lines[i]));
    if (line.empty() || line[0] == '#') continue;
    const std::string where = atLine(path, i + 1);
    if (t.columns.empty()) {
      t.headerLine = i + 1;
      std::istringstream names(line);
      for (std::string name; std::getline(names, name, '|');) t.columns.emplace_back(trim(name));
      if (t.columns.size() < 2 && line.find('|') == std::string::npos)
        return Error{where + "expected a header of columns separated by '|'"};
      continue;
    }
    std::istringstream in(line);
    std::vector<std::string> fields;
    for (std::string f; in >> f;) fields.push_back(f);
    if (!haveKey) {
      char* end = nullptr;
      const double k = std::strtod(line.c_str(), &end);
      if (fields.size() != 1 || end == line.c_str() || *end)
        return Error{where + "expected a row key (a batch, a bandwidth or a size), found '" + line +
                     "'"};
      key = k;
      haveKey = true;
      keyLine = i + 1;
      continue;
    }
    if (fields.size() != t.columns.size())
      return Error{where + "expected " + std::to_string(t.columns.size()) + " values, found " +
                   std::to_string(fields.size())};
    PlotTable::Row row{key, {}, i + 1};
    for (const std::string& f : fields) {
      if (f == "inf") {
        row.values.push_back(-1);
        continue;
      }
      char* end = nullptr;
      const double v = std::strtod(f.c_str(), &end);
      if (end == f.c_str() || *end || !(v > 0) || v > 9e18)
        return Error{where + "'" + f + "' is not a cycle count or 'inf'"};
      row.values.push_back(static_cast<int64_t>(std::llround(v)));
    }
    t.rows.push_back(std::move(row));
    haveKey = false;
  }
  if (haveKey) return Error{atLine(path, keyLine) + "a row key without its values"};
  if (t.rows.empty()) return Error{path + ": no rows of G10 results"};
  return t;
}

}  // namespace

std::optional<G10Experiment> parseG10Experiment(std::string_view name) {
  if (name == "batch") return G10Experiment::Batch;
  if (name == "ssd-bw") return G10Experiment::SsdBandwidth;
  if (name == "host-mem") return G10Experiment::HostMemory;
  if (name == "fig11") return G10Experiment::Figure11;
  return std::nullopt;
}

const char* toString(G10Experiment e) {
  switch (e) {
    case G10Experiment::Batch:
      return "batch";
    case G10Experiment::SsdBandwidth:
      return "ssd-bw";
    case G10Experiment::HostMemory:
      return "host-mem";
    case G10Experiment::Figure11:
      return "fig11";
  }
  return "?";
}

Result<ReproduceRun> reproduceG10(const std::string& root, G10Experiment experiment,
                                  const std::string& model,
                                  const std::function<bool()>& cancelled) {
  const auto start = std::chrono::steady_clock::now();
  if (!model.empty() && !findG10Model(model))
    return Error::notFound("'" + model + "' is not a model of G10's evaluation (" +
                           g10ModelNames() + ")");
  auto listed = listG10Inputs(root);
  if (!listed) return listed.failure();
  std::map<std::string, std::vector<int64_t>> traced;
  for (const G10InputsModel& m : *listed) traced[m.info->experiment] = m.batches;
  if (!model.empty() && !traced.count(findG10Model(model)->experiment))
    return Error::notFound(root + ": no traces of " + model);

  ReproduceRun run;
  run.experiment = experiment;
  // Every (configuration, policy) is a simulation of its own: all of them are listed first (each
  // workload loaded once), then every core takes the next one.
  struct Task {
    const Config* config;
    std::shared_ptr<G10Workload> workload;
    Policy policy;
    Result<std::vector<PolicyRun>> runs = Error{"not run"};
  };
  const std::vector<Config> configs = configsOf(experiment, model, traced);
  std::map<std::pair<std::string, int64_t>, std::shared_ptr<G10Workload>> loaded;
  std::vector<Task> tasks;
  std::vector<std::string> untraced(configs.size());
  for (size_t i = 0; i < configs.size(); ++i) {
    const Config& c = configs[i];
    if (cancelled && cancelled()) return Error::cancelled();
    const auto& batches = traced[c.model];
    if (std::find(batches.begin(), batches.end(), c.batch) == batches.end()) {
      untraced[i] = c.model + "-" + std::to_string(c.batch) + ": not traced in " + root;
      continue;
    }
    auto& w = loaded[{c.model, c.batch}];
    if (!w) {
      auto g = loadG10Inputs(root, c.model, c.batch);
      if (!g) return g.failure();
      w = std::make_shared<G10Workload>(std::move(*g));
    }
    for (Policy p : c.policies) tasks.push_back({&c, w, p});
  }
  // `cancelled` is asked from every core: it must be safe to call from any thread.
  onEveryCore(tasks.size(), [&](size_t i) {
    if (cancelled && cancelled()) return;
    Task& t = tasks[i];
    t.runs = runPolicies(t.workload->workload, {t.policy}, t.config->tiers);
  });
  if (cancelled && cancelled()) return Error::cancelled();

  size_t task = 0;
  for (size_t ci = 0; ci < configs.size(); ++ci) {
    const Config& c = configs[ci];
    if (!untraced[ci].empty()) {
      run.notes.push_back(untraced[ci]);
      continue;
    }
    int64_t idealCycles = 0;
    for (int64_t cy : tasks[task].workload->cycles) idealCycles += cy;
    run.simulations += static_cast<int>(c.policies.size());
    std::string problem;
    for (size_t i = 0; i < c.policies.size(); ++i, ++task) {
      const auto& runs = tasks[task].runs;
      ReproducePoint p;
      p.model = c.model;
      p.batch = c.batch;
      p.setting = c.setting;
      p.policy = c.policies[i];
      p.idealCycles = idealCycles;
      if (runs) {
        const SimResult& r = (*runs)[0].result;
        p.feasible = r.feasible;
        if (p.feasible) p.stall = r.summary.stall;
        if (p.feasible)
          p.cycles = p.policy == Policy::Ideal
                         ? idealCycles
                         : static_cast<int64_t>(std::llround(
                               static_cast<double>(r.summary.iteration) * kG10ClockHz / 1e9));
      } else if (problem.empty()) {
        problem = runs.error();
      }
      run.points.push_back(p);
    }
    if (!problem.empty())
      run.notes.push_back(configName(run.points.back(), experiment) + ": " + problem);
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

Status attachPublished(ReproduceRun& run, const std::string& path, const std::string& model) {
  if (run.experiment == G10Experiment::Figure11) {
    auto rows = loadG10Published(path);
    if (!rows) return rows.failure();
    for (ReproducePoint& p : run.points) {
      for (const PublishedRow& r : *rows) {
        const G10ModelInfo* m = findG10Model(r.model);
        if (!m || m->experiment != p.model || r.batch != p.batch) continue;
        if (auto it = r.cycles.find(p.policy); it != r.cycles.end()) p.published = it->second;
      }
    }
    return {};
  }
  std::string which = model;
  if (which.empty()) {
    std::set<std::string> models;
    for (const ReproducePoint& p : run.points) models.insert(p.model);
    if (models.size() != 1)
      return Error{path + ": G10's " + toString(run.experiment) +
                   " results are one file per model: give --model"};
    which = *models.begin();
  }
  const G10ModelInfo* info = findG10Model(which);
  auto table = readPlotTable(path);
  if (!table) return table.failure();
  for (const PlotTable::Row& row : table->rows) {
    for (size_t c = 0; c < table->columns.size(); ++c) {
      const std::string& column = table->columns[c];
      std::optional<Policy> policy;
      int64_t batch = 0;
      double setting = 0;
      if (run.experiment == G10Experiment::HostMemory) {
        // Columns are batch sizes, rows host memory sizes; G10 only.
        char* end = nullptr;
        batch = std::strtoll(column.c_str(), &end, 10);
        if (end == column.c_str() || *end)
          return Error{atLine(path, table->headerLine) + "column '" + column +
                       "' is not a batch size"};
        policy = Policy::G10;
        setting = row.key;
      } else {
        policy = policyFromG10Name(column);
        if (!policy)
          return Error{atLine(path, table->headerLine) + "unknown policy '" + column + "'"};
        if (run.experiment == G10Experiment::Batch)
          batch = static_cast<int64_t>(std::llround(row.key));
        else
          setting = row.key;
      }
      for (ReproducePoint& p : run.points) {
        if (info && p.model != info->experiment) continue;
        if (p.policy != *policy) continue;
        if (run.experiment == G10Experiment::Batch ? p.batch != batch
            : run.experiment == G10Experiment::HostMemory
                ? (p.batch != batch || !sameSetting(p.setting, setting))
                : !sameSetting(p.setting, setting))
          continue;
        p.published = row.values[c];
      }
    }
  }
  return {};
}

StatsTable reproduceTable(const ReproduceRun& run) {
  StatsTable t;
  t.report = std::string("g10_") + toString(run.experiment);
  t.title = std::string("G10's evaluation re-run: ") + toString(run.experiment);
  const bool ssd = run.experiment == G10Experiment::SsdBandwidth,
             host = run.experiment == G10Experiment::HostMemory;
  t.columns = {{"model", "Model", StatsUnit::Text}, {"batch", "Batch", StatsUnit::Count}};
  if (ssd) t.columns.push_back({"ssd_gibps", "SSD GiB/s", StatsUnit::Text});
  if (host) t.columns.push_back({"host_gib", "Host GiB", StatsUnit::Text});
  t.columns.push_back({"policy", "Policy", StatsUnit::Text});
  t.columns.push_back({"feasible", "Feasible", StatsUnit::Text});
  t.columns.push_back(
      {"cycles", "Cycles (ours)", StatsUnit::Count,
       "One iteration (the second of two; flashneuron, g10-gds and g10-host run one, as in G10), "
       "GPU cycles at 1.2 GHz as G10 counts"});
  t.columns.push_back({"ideal_cycles", "Ideal", StatsUnit::Count});
  t.columns.push_back({"g10_cycles", "G10 published", StatsUnit::Count});
  t.columns.push_back({"delta_pct", "Δ vs G10", StatsUnit::Percent});
  // Per policy: how many within the bounds (g10 and ideal ±5 %, others ±15 %).
  std::map<Policy, std::pair<int, int>> within;  // policy → (within, compared)
  std::map<Policy, double> worst;
  int feasibilityAgree = 0, feasibilityCompared = 0;
  for (const ReproducePoint& p : run.points) {
    char setting[32];
    std::snprintf(setting, sizeof setting, "%g", p.setting);
    std::vector<StatsCell> row = {p.model, p.batch};
    if (ssd || host) row.emplace_back(std::string(setting));
    row.emplace_back(std::string(toString(p.policy)));
    row.emplace_back(std::string(p.feasible ? "yes" : "no"));
    row.emplace_back(p.feasible ? StatsCell(p.cycles) : StatsCell(std::string("inf")));
    row.emplace_back(p.idealCycles);
    StatsCell published, delta;
    if (p.published) {
      const bool g10Infeasible = *p.published < 0;
      published = g10Infeasible ? StatsCell(std::string("inf")) : StatsCell(*p.published);
      ++feasibilityCompared;
      feasibilityAgree += g10Infeasible != p.feasible;
      if (!g10Infeasible && p.feasible) {
        const double d = 100.0 * static_cast<double>(p.cycles - *p.published) /
                         static_cast<double>(*p.published);
        delta = d;
        const double bound = p.policy == Policy::G10 || p.policy == Policy::Ideal ? 5 : 15;
        auto& [in, n] = within[p.policy];
        ++n;
        in += std::fabs(d) <= bound;
        worst[p.policy] = std::max(worst[p.policy], std::fabs(d));
      }
    }
    row.push_back(published);
    row.push_back(delta);
    t.rows.push_back(std::move(row));
  }
  char line[160];
  std::snprintf(line, sizeof line, "%d simulations in %.1f s.", run.simulations, run.seconds);
  t.notes.emplace_back(line);
  if (feasibilityCompared > 0) {
    for (const auto& [policy, counts] : within) {
      std::snprintf(line, sizeof line, "%s: %d of %d within ±%d %% of G10's (worst %.1f %%).",
                    toString(policy), counts.first, counts.second,
                    policy == Policy::G10 || policy == Policy::Ideal ? 5 : 15, worst[policy]);
      t.notes.emplace_back(line);
    }
    std::snprintf(line, sizeof line, "Same feasibility as G10: %d of %d.", feasibilityAgree,
                  feasibilityCompared);
    t.notes.emplace_back(line);
    // The ranking of the policies in each configuration G10 published all of.
    std::map<std::string, std::vector<const ReproducePoint*>> byConfig;
    for (const ReproducePoint& p : run.points)
      byConfig[configName(p, run.experiment)].push_back(&p);
    int same = 0, ranked = 0;
    for (const auto& [name, points] : byConfig) {
      if (points.size() < 2) continue;
      bool complete = true;
      for (const ReproducePoint* p : points) complete &= p->published.has_value();
      if (!complete) continue;
      auto order = [&](bool ours) {
        std::vector<const ReproducePoint*> v = points;
        auto value = [&](const ReproducePoint* p) {
          const int64_t c = ours ? (p->feasible ? p->cycles : -1) : *p->published;
          return c < 0 ? INT64_MAX : c;
        };
        std::stable_sort(v.begin(), v.end(), [&](auto* a, auto* b) { return value(a) < value(b); });
        std::vector<Policy> names;
        for (auto* p : v) names.push_back(p->policy);
        return names;
      };
      ++ranked;
      same += order(true) == order(false);
    }
    if (ranked > 0) {
      std::snprintf(line, sizeof line, "Same ranking of policies as G10: %d of %d configurations.",
                    same, ranked);
      t.notes.emplace_back(line);
    }
  } else {
    t.notes.emplace_back("--published FILE (G10's results, its format) adds G10's numbers.");
  }
  for (const std::string& n : run.notes) t.notes.push_back(n);
  return t;
}

std::vector<std::pair<std::string, SweepTable>> reproduceSweeps(const ReproduceRun& run) {
  std::vector<std::pair<std::string, SweepTable>> out;
  if (run.experiment == G10Experiment::Figure11) return out;
  std::map<std::string, SweepTable> byModel;
  for (const ReproducePoint& p : run.points) {
    SweepTable& s = byModel[p.model];
    s.key = run.experiment == G10Experiment::Batch          ? "batch"
            : run.experiment == G10Experiment::SsdBandwidth ? "ssd-bw"
                                                            : "host-mem";
    SweepPoint sp;
    sp.value =
        run.experiment == G10Experiment::Batch ? static_cast<double>(p.batch) : p.setting * kGiB;
    sp.policy = toString(p.policy);
    if (run.experiment == G10Experiment::HostMemory)
      sp.policy += " (batch " + std::to_string(p.batch) + ")";
    sp.feasible = p.feasible;
    sp.ideal =
        static_cast<TimeNs>(std::llround(static_cast<double>(p.idealCycles) * 1e9 / kG10ClockHz));
    if (p.feasible) {
      sp.iteration =
          static_cast<TimeNs>(std::llround(static_cast<double>(p.cycles) * 1e9 / kG10ClockHz));
      sp.slowdown = static_cast<double>(p.cycles) / static_cast<double>(p.idealCycles);
      sp.stall = p.stall;
    }
    s.points.push_back(sp);
  }
  for (auto& [m, s] : byModel) out.emplace_back(m, std::move(s));
  return out;
}

}  // namespace ts::memsim
