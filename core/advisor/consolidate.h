// Job migration: a multi-rank job whose GPUs sit on more machines than it needs, moved onto the
// fewest (cross-machine bandwidth is low). The run's own collectives calibrate a latency-bandwidth
// (α-β) cost, T = a + b · bytes, whose ring reading gives the bandwidth they got; on one machine
// the ring runs over the intra-node link instead. The predicted saving is the exposed
// communication that shrinks with it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/diagnosis.h"
#include "analysis/launch_index.h"
#include "session/session.h"
#include "util/result.h"

namespace ts::advisor {

// A communication kernel (nccl*) with what it moved when the trace says: the enclosing
// "nccl:<collective>" annotation of its launch, with recorded input sizes (PyTorch's
// record_shapes).
struct Collective {
  uint32_t rank = 0;  // index into Session::ranks
  TimeNs start = 0, duration = 0;
  std::string kind;   // "all_reduce", "all_gather", "reduce_scatter", "broadcast", …
  bool tree = false;  // NCCL's kernel name says TREE (else a ring, named or taken)
  std::optional<int64_t> bytes;
  // Only all-reduces are modelled as trees; NCCL's other TREE kernels move data as rings do.
  bool treeAllReduce() const { return tree && kind == "all_reduce"; }
};

std::vector<Collective> collectivesOf(const Session& session, const LaunchIndex& launches);

// duration ≈ intercept + slope · bytes, least squares over the collectives with a size.
struct AlphaBeta {
  double interceptNs = 0;
  double nsPerByte = 0;
  size_t samples = 0;
  double meanAbsErrorPct = 0;  // |fit − measured| ÷ measured, averaged over the samples
  double r2 = 0;
  double predictNs(double bytes) const { return interceptNs + nsPerByte * bytes; }
  // Too far from the measured collectives to predict with (waiting, other traffic).
  bool poor() const { return meanAbsErrorPct > 25 || r2 < 0.5; }
};
std::optional<AlphaBeta> fitAlphaBeta(const std::vector<Collective>& collectives);

// What a ring moves per rank, as a multiple of bytes·(n−1)/n: 2 for an all-reduce (a
// reduce-scatter then an all-gather), 1 for the others.
double ringFactor(std::string_view kind);

// A collective of n ranks as T = hops · α + bandwidthShare · bytes / bandwidth. A ring: f(n−1)
// hops and f(n−1)/n (f: ringFactor). NCCL's tree all-reduce (reduce up a binary tree, broadcast
// down, pipelined): 2⌈log₂ n⌉ hops and the whole buffer up and down, 2.
struct CollectiveShape {
  double hops = 0, bandwidthShare = 0;
};
CollectiveShape collectiveShape(std::string_view kind, bool tree, int ranks);

// The kinds are fitted apart, and a tree apart from a ring: "all_reduce", "all_reduce/tree".
std::string fitKey(const Collective& c);

struct Link {
  std::string name;
  double bytesPerSecond = 0;
  double latencyNs = 0;
};
std::optional<Link> intraNodeLink(std::string_view name);  // nvlink2/3/4, pcie3/4/5
std::optional<Link> interNodeLink(std::string_view name);  // 25g, 100g, 200g, 400g

struct ConsolidationInput {
  int world = 0;        // ranks in the job (0: as its traces say, else the session's ranks)
  int gpusPerNode = 8;  // after the move
  int nodesNow = 0;     // machines the job runs on now (0: the session ranks' hosts)
  std::vector<std::string> hosts;  // per session rank (index), from the session or the user
  Link intra;                      // the link inside one machine
  int machinesAfter = 0;           // the layout to predict (0: the fewest machines)
  std::optional<Link> inter;       // the link between machines after (none: as the run got it)
  // A data-parallel step's gradient bytes (a model's parameters), for a trace whose all-reduces
  // carry no sizes: each step's all-reduces share them evenly (DDP's buckets). 0: none.
  int64_t gradientBytes = 0;
  std::string gradientSource;  // where they came from, for the assumptions ("resnet50.onnx")
};

// Gives the all-reduces without a size each step's share of `gradientBytes` (a rank's step: the
// diagnosis's; without steps, the whole run is one). Returns how many were sized.
size_t sizeFromGradients(std::vector<Collective>& collectives, const Diagnosis& diagnosis,
                         int64_t gradientBytes);

struct ConsolidationPlan {
  int world = 0;
  int hostsNow = 0, hostsAfter = 0;
  std::vector<std::pair<int32_t, int>> moves;  // (rank number, machine after), ranks in the session
  AlphaBeta fit;                               // of the kind with the most sizes (the headline)
  std::string fitKind;
  std::map<std::string, AlphaBeta> fitByKind;  // each kind of collective fitted apart
  // What the headline fit implies for its collectives (a ring or a tree of `world` ranks).
  double ringBandwidthNow = 0;  // bytes/s
  double ringLatencyNow = 0;    // ns per hop
  // Per step (the diagnosis's, averaged): time, exposed communication now and after.
  TimeNs stepNow = 0, exposedNow = 0, exposedAfter = 0;
  TimeNs stepAfter() const { return stepNow - (exposedNow - exposedAfter); }
  double commRatio = 1;        // collectives' predicted time after ÷ now
  bool treeAllReduce = false;  // the run's all-reduces name NCCL's TREE algorithm
  std::vector<std::string> assumptions;
};

// Errors: no communication kernels, no sizes to calibrate on, ranks without hosts, a job larger
// than the session whose machines now cannot be bounded (nodesNow needed).
Result<ConsolidationPlan> planConsolidation(const Session& session, const Diagnosis& diagnosis,
                                            const LaunchIndex& launches,
                                            const ConsolidationInput& input);

// The recommendation in words, for the CLI and the GUI alike: move or not, the saving per step
// (and per epoch of `stepsPerEpoch` steps, when given), where the saving really comes from (a
// faster link between machines rather than fewer of them), and how sure it is.
std::string consolidationAdvice(const ConsolidationPlan& plan, const ConsolidationInput& input,
                                int64_t stepsPerEpoch = 0);

// ASTRA-sim 2.x inputs for a layout: the analytical network (YAML: topology, NPUs per
// dimension, bandwidth GB/s, latency ns) and the system (JSON: collective implementations).
std::string astraNetworkYaml(int npusPerNode, int nodes, const Link& intra, const Link& inter);
// `treeAllReduce`: the run's all-reduces are NCCL trees, written as ASTRA-sim's doubleBinaryTree.
std::string astraSystemJson(int dimensions, bool treeAllReduce = false);

}  // namespace ts::advisor
