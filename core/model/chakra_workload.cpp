#include "model/chakra_workload.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "io/atomic_file.h"
#include "model/chakra_et.pb.h"  // generated from chakra_et.proto

namespace ts::model {

namespace {

constexpr int kComputeNode = ChakraProtoMsg::COMP_NODE;
constexpr int kCollectiveNode = ChakraProtoMsg::COMM_COLL_NODE;

uint64_t micros(int64_t ns) {
  return static_cast<uint64_t>(std::max<int64_t>(1, std::llround(static_cast<double>(ns) / 1e3)));
}

void attr(ChakraProtoMsg::Node& n, const char* name, int64_t value) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(value);
}

}  // namespace

ChakraTrace chakraDataParallel(const std::vector<Layer>& layers, bool weightsOnly) {
  ChakraTrace t;
  t.version = "0.0.4";
  uint64_t next = 0;
  uint64_t previous = 0;
  bool any = false;
  auto add = [&](ChakraNode n, bool chain) {
    n.id = next++;
    if (chain && any) n.dataDeps.push_back(previous);
    t.nodes.push_back(n);
    return n.id;
  };
  for (const Layer& l : layers) {
    ChakraNode n;
    n.name = l.name + ".forward";
    n.type = kComputeNode;
    n.durationMicros = micros(l.forwardNs);
    n.numOps = static_cast<int64_t>(l.forwardFlops);
    previous = add(n, true);
    any = true;
  }
  for (size_t r = layers.size(); r-- > 0;) {
    const Layer& l = layers[r];
    ChakraNode wg;
    wg.name = l.name + ".weight_gradient";
    wg.type = kComputeNode;
    wg.durationMicros = micros(l.weightGradNs);
    wg.numOps = static_cast<int64_t>(l.weightGradFlops);
    uint64_t weightGrad = add(wg, true);
    ChakraNode ar;
    ar.name = l.name + ".all_reduce";
    ar.type = kCollectiveNode;
    ar.commType = ChakraProtoMsg::ALL_REDUCE;
    ar.commSize = 4 * (weightsOnly ? l.mainWeight : l.parameters);
    ar.dataDeps = {weightGrad};
    add(ar, false);
    // The next layer down needs this layer's input gradient, not its all-reduce.
    ChakraNode ig;
    ig.name = l.name + ".input_gradient";
    ig.type = kComputeNode;
    ig.durationMicros = micros(l.inputGradNs);
    ig.numOps = static_cast<int64_t>(l.inputGradFlops);
    ig.dataDeps = {weightGrad};
    previous = add(ig, false);
  }
  return t;
}

Result<std::vector<std::string>> writeChakra(const ChakraTrace& trace, const std::string& prefix,
                                             int npus) {
  if (npus < 1) return Error{"--npus must be at least 1"};
  // One serialization, written once per NPU: data parallelism runs the same graph everywhere.
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream raw(&bytes);
    google::protobuf::io::CodedOutputStream out(&raw);
    auto put = [&](const google::protobuf::MessageLite& m) {
      out.WriteVarint32(static_cast<uint32_t>(m.ByteSizeLong()));
      m.SerializeWithCachedSizes(&out);
    };
    ChakraProtoMsg::GlobalMetadata meta;
    meta.set_version(trace.version);
    put(meta);
    for (const ChakraNode& n : trace.nodes) {
      ChakraProtoMsg::Node node;
      node.set_id(n.id);
      node.set_name(n.name);
      node.set_type(static_cast<ChakraProtoMsg::NodeType>(n.type));
      for (uint64_t d : n.dataDeps) node.add_data_deps(d);
      auto* cpu = node.add_attr();
      cpu->set_name("is_cpu_op");
      cpu->set_bool_val(false);
      if (n.type == kComputeNode) {
        node.set_duration_micros(n.durationMicros);
        attr(node, "num_ops", n.numOps);
      } else {
        attr(node, "comm_type", n.commType);
        attr(node, "comm_size", n.commSize);
        auto* dims = node.add_attr();
        dims->set_name("involved_dim");
        dims->mutable_bool_list()->add_values(true);
      }
      put(node);
    }
  }
  std::vector<std::string> paths;
  for (int npu = 0; npu < npus; ++npu) {
    std::string path = prefix + "." + std::to_string(npu) + ".et";
    Status st = writeBytesAtomically(path, bytes);
    if (!st) return st.failure();
    paths.push_back(path);
  }
  return paths;
}

Result<ChakraTrace> readChakra(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open"};
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream stream(&raw);
  auto next = [&](google::protobuf::MessageLite& m) -> int {  // 1 read, 0 end, -1 broken
    uint32_t size = 0;
    if (!stream.ReadVarint32(&size)) return 0;
    auto limit = stream.PushLimit(static_cast<int>(size));
    bool ok = m.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
    stream.PopLimit(limit);
    return ok ? 1 : -1;
  };
  ChakraTrace t;
  ChakraProtoMsg::GlobalMetadata meta;
  if (next(meta) != 1) return Error{path + ": no Chakra GlobalMetadata at the start"};
  t.version = meta.version();
  for (;;) {
    ChakraProtoMsg::Node node;
    int r = next(node);
    if (r == 0) break;
    if (r < 0) return Error{path + ": a broken node after node " + std::to_string(t.nodes.size())};
    ChakraNode n;
    n.id = node.id();
    n.name = node.name();
    n.type = node.type();
    n.dataDeps.assign(node.data_deps().begin(), node.data_deps().end());
    n.durationMicros = node.duration_micros();
    for (const auto& a : node.attr()) {
      if (a.name() == "comm_type")
        n.commType = static_cast<int>(a.int64_val());
      else if (a.name() == "comm_size")
        n.commSize = a.int64_val();
      else if (a.name() == "num_ops")
        n.numOps = a.int64_val();
    }
    t.nodes.push_back(n);
  }
  return t;
}

}  // namespace ts::model
