#include "views/session/session_tree_model.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "session/session_summary.h"
#include "timeline/timeline_rows.h"
#include "util/format.h"
#include "views/timeline/qt_text.h"

namespace ts {

SessionTreeModel::SessionTreeModel(SessionPtr session, QObject* parent)
    : QAbstractItemModel(parent), session_(std::move(session)) {
  build();
}

int SessionTreeModel::add(int parent, NodeKind kind, QString label) {
  nodes_.push_back({kind, std::move(label), 0, parent, {}, {}, -1, false});
  int id = static_cast<int>(nodes_.size() - 1);
  if (parent >= 0) nodes_[static_cast<size_t>(parent)].children.push_back(id);
  return id;
}

// build()'s steps, over the nodes they make; each step below its caller's order.
class SessionTreeModel::Builder {
 public:
  Builder(SessionTreeModel& model, const Session& s) : m_(model), s_(s) {}

  void run() {
    m_.nodes_.clear();
    m_.add(-1, NodeKind::Group, {});  // root
    addRanksAndDevices();
    processNode_.assign(s_.processes.size(), -1);
    threadNode_.assign(s_.threads.size(), -1);
    for (uint32_t t = 0; t < s_.tracks.size(); ++t) {
      if (s_.tracks[t].device != kNone) addDeviceTrack(t);
      if (s_.tracks[t].thread != kNone) addThreadTrack(t);
    }
    addCounters();
    countLeaves();
    orderDeviceChildren();
    orderProcessesAndThreads();
    sumParents();
  }

 private:
  // GPUs: the device node, then Compute (all of the device's kernels), Streams, Memory.
  struct DeviceNodes {
    int device = -1, kernels = -1, streams = -1, memory = -1;
    std::map<uint32_t, int> stream;  // session stream index → node
    std::map<int, int> copyKind;
  };

  Node& node(int id) { return m_.nodes_[static_cast<size_t>(id)]; }
  int touch(int& slot, int parent, NodeKind kind, const QString& label) {
    if (slot < 0) slot = m_.add(parent, kind, label);
    return slot;
  }

  // Per rank: a node when the session has several, else the root stands for the only rank. Only
  // GPUs with events or counters get a node (a trace may list every GPU of the machine); the
  // overview still lists them all.
  void addRanksAndDevices() {
    rankNode_.assign(s_.ranks.size(), 0);
    if (s_.multiRank()) {
      for (size_t r = 0; r < s_.ranks.size(); ++r)
        rankNode_[r] = m_.add(0, NodeKind::Rank, plainText(s_.ranks[r].label));
    }
    std::vector<bool> used(s_.devices.size(), false);
    for (const Track& t : s_.tracks) {
      if (t.device != kNone) used[t.device] = true;
    }
    for (const CounterTrack& c : s_.counters) {
      if (c.device != kNone) used[c.device] = true;
    }
    dev_.assign(s_.devices.size(), DeviceNodes{});
    for (uint32_t d = 0; d < s_.devices.size(); ++d) {
      if (!used[d]) continue;
      std::string label = "GPU " + std::to_string(s_.devices[d].ordinal);
      if (!s_.devices[d].name.empty()) label += ": " + s_.devices[d].name;
      dev_[d].device = m_.add(rankNode_[s_.devices[d].rank], NodeKind::Device, plainText(label));
    }
  }

  // A GPU track appears under Compute (kernels), its stream, and Memory by copy kind.
  void addDeviceTrack(uint32_t t) {
    const Track& track = s_.tracks[t];
    DeviceNodes& dn = dev_[track.device];
    if (track.kind == EventKind::Kernel) {
      int k = touch(dn.kernels, dn.device, NodeKind::Group, tr("Compute"));
      node(k).alsoElsewhere = true;
      node(k).tracks.push_back(t);
    }
    // Unified-memory migrations are on no stream of the program's: under Memory only.
    const bool migrations =
        track.stream != kNone && s_.streams[track.stream].streamId == kUnifiedMemoryStream;
    if (track.stream != kNone && !migrations) {
      int parent = touch(dn.streams, dn.device, NodeKind::Group, tr("Streams"));
      auto [it, fresh] = dn.stream.try_emplace(track.stream, -1);
      if (fresh)
        it->second = m_.add(parent, NodeKind::Stream, plainText(s_.streamLabel(track.stream)));
      node(it->second).tracks.push_back(t);
    }
    if (track.kind != EventKind::Memcpy && track.kind != EventKind::Memset) return;
    int parent = touch(dn.memory, dn.device, NodeKind::Group, tr("Memory"));
    node(parent).alsoElsewhere = true;
    std::vector<int> kinds;
    if (track.kind == EventKind::Memset) {
      kinds.push_back(kCopyKindCount);  // memsets get their own row after the copy kinds
    } else if (migrations) {
      kinds.push_back(kCopyKindCount + 1);  // then unified memory
    } else {
      std::vector<bool> seen(kCopyKindCount, false);
      for (CopyKind k : track.memcpys.copyKind) seen[static_cast<size_t>(k)] = true;
      for (int k = 0; k < kCopyKindCount; ++k)
        if (seen[static_cast<size_t>(k)]) kinds.push_back(k);
    }
    for (int k : kinds) {
      auto [it, fresh] = dn.copyKind.try_emplace(k, -1);
      if (fresh) {
        QString label =
            k == kCopyKindCount ? tr("Memset")
            : k == kCopyKindCount + 1
                ? tr("Unified memory")
                : tr("Memcpy %1").arg(QString::fromUtf8(toString(static_cast<CopyKind>(k)).data()));
        it->second = m_.add(parent, NodeKind::CopyKind, label);
        node(it->second).copyKind = k;
      }
      node(it->second).tracks.push_back(t);
    }
  }

  // A CPU track: under its process (under its rank) and thread, one leaf per track.
  void addThreadTrack(uint32_t t) {
    const Track& track = s_.tracks[t];
    uint32_t p = s_.threads[track.thread].process;
    if (processNode_[p] < 0) {
      // Under its rank node already: no rank prefix.
      const Process& proc = s_.processes[p];
      QString label = proc.name.empty() ? tr("Process") : plainText(proc.name);
      if (proc.pid >= 0) label += QStringLiteral(" (%1)").arg(proc.pid);
      processNode_[p] = m_.add(rankNode_[proc.rank], NodeKind::Process, label);
    }
    int& tn = threadNode_[track.thread];
    if (tn < 0)
      tn = m_.add(processNode_[p], NodeKind::Thread, plainText(s_.threadLabel(track.thread)));
    const QString what = track.kind == EventKind::Api ? tr("CUDA API")
                         : track.kind == EventKind::Nvtx
                             ? QString::fromStdString(annotationRowName(s_, {t}))
                             : QString::fromStdString(rangeTrackName(s_, track));
    int leaf = m_.add(tn, NodeKind::ThreadTrack, what);
    node(leaf).tracks.push_back(t);
  }

  // Counters under their GPU, else their process, else the root.
  void addCounters() {
    for (const CounterTrack& counter : s_.counters) {
      int parent = counter.device != kNone ? dev_[counter.device].device
                   : counter.process != kNone && processNode_[counter.process] >= 0
                       ? processNode_[counter.process]
                       : 0;
      QString label = plainText(counter.name);
      if (!counter.unit.empty()) label += QStringLiteral(" (%1)").arg(plainText(counter.unit));
      int n = m_.add(parent, NodeKind::Counter, label);
      node(n).count = counter.size();
    }
  }

  // A leaf counts its tracks' events (of its copy kind).
  void countLeaves() {
    for (Node& n : m_.nodes_) {
      if (n.kind == NodeKind::Counter) continue;
      if (n.copyKind >= 0 && n.copyKind < kCopyKindCount) {
        for (uint32_t t : n.tracks) {
          const MemcpyColumns& m = s_.tracks[t].memcpys;
          for (size_t i = 0; i < m.copyKind.size(); ++i)
            n.count += static_cast<int>(m.copyKind[i]) == n.copyKind && !m.migration[i];
        }
      } else {
        for (uint32_t t : n.tracks) n.count += s_.tracks[t].size();
      }
    }
  }

  // Streams by id, copy kinds in enum order (memsets last): stable whatever the event order was;
  // under a GPU: Compute, Streams, Memory, then counters.
  void orderDeviceChildren() {
    for (DeviceNodes& dn : dev_) {
      auto reorder = [&](int group, const auto& byKey) {
        if (group < 0) return;
        std::vector<int>& children = node(group).children;
        children.clear();
        for (const auto& [key, child] : byKey) children.push_back(child);
      };
      std::map<std::pair<uint32_t, uint32_t>, int> byStreamId;
      for (const auto& [stream, child] : dn.stream)
        byStreamId[{s_.streams[stream].streamId, stream}] = child;
      reorder(dn.streams, byStreamId);
      reorder(dn.memory, dn.copyKind);
      if (dn.device < 0) continue;
      std::vector<int>& children = node(dn.device).children;
      auto order = [&](int c) {
        return c == dn.kernels ? 0 : c == dn.streams ? 1 : c == dn.memory ? 2 : 3;
      };
      std::stable_sort(children.begin(), children.end(),
                       [&](int a, int b) { return order(a) < order(b); });
    }
  }

  // Processes and threads in the order the source asked for (sort index), then by pid / tid;
  // GPUs keep their place ahead, counters come last.
  void orderProcessesAndThreads() {
    std::vector<int> containers = {0};
    for (size_t i = 1; i < m_.nodes_.size(); ++i) {
      if (m_.nodes_[i].kind == NodeKind::Rank || m_.nodes_[i].kind == NodeKind::Process)
        containers.push_back(static_cast<int>(i));
    }
    std::vector<std::pair<int64_t, int64_t>> orderKey(m_.nodes_.size(), {0, 0});
    for (size_t p = 0; p < s_.processes.size(); ++p) {
      if (processNode_[p] >= 0)
        orderKey[static_cast<size_t>(processNode_[p])] = {s_.processes[p].sortIndex,
                                                          s_.processes[p].pid};
    }
    for (size_t t = 0; t < s_.threads.size(); ++t) {
      if (threadNode_[t] >= 0)
        orderKey[static_cast<size_t>(threadNode_[t])] = {s_.threads[t].sortIndex,
                                                         s_.threads[t].tid};
    }
    for (int c : containers) {
      std::vector<int>& children = node(c).children;
      auto key = [&](int n) {
        const Node& child = m_.nodes_[static_cast<size_t>(n)];
        auto [sortIndex, id] = orderKey[static_cast<size_t>(n)];
        if (child.kind == NodeKind::Process || child.kind == NodeKind::Thread)
          return std::tuple<int, int64_t, int64_t>(1, sortIndex, id);
        return std::tuple<int, int64_t, int64_t>(child.kind == NodeKind::Counter ? 2 : 0, n, 0);
      };
      std::stable_sort(children.begin(), children.end(),
                       [&](int a, int b) { return key(a) < key(b); });
    }
  }

  // Nodes without tracks of their own sum their children — once each: a device's events appear
  // both under Compute and under Streams, and it counts its streams only.
  void sumParents() {
    for (size_t i = m_.nodes_.size(); i-- > 1;) {
      Node& n = m_.nodes_[i];
      if (!n.tracks.empty() || n.kind == NodeKind::Counter) continue;
      for (int c : n.children) {
        const Node& child = node(c);
        if (!child.alsoElsewhere && child.kind != NodeKind::Counter) n.count += child.count;
      }
    }
  }

  SessionTreeModel& m_;
  const Session& s_;
  std::vector<int> rankNode_, processNode_, threadNode_;
  std::vector<DeviceNodes> dev_;
};

void SessionTreeModel::build() {
  Builder(*this, *session_).run();
}

bool SessionTreeModel::setSession(SessionPtr session) {
  std::vector<Node> before = std::move(nodes_);
  session_ = std::move(session);
  build();
  auto sameNode = [](const Node& a, const Node& b) {
    return a.kind == b.kind && a.label == b.label && a.parent == b.parent &&
           a.children == b.children && a.tracks == b.tracks && a.copyKind == b.copyKind &&
           a.alsoElsewhere == b.alsoElsewhere;
  };
  bool same = before.size() == nodes_.size();
  for (size_t i = 0; same && i < nodes_.size(); ++i) same = sameNode(before[i], nodes_[i]);
  if (!same) {
    // The views must see the reset begin over the nodes they know.
    std::swap(before, nodes_);
    beginResetModel();
    std::swap(before, nodes_);
    endResetModel();
    return true;
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.children.empty()) continue;
    QModelIndex parent;  // the node's own index, as parent of its children
    if (i != 0) {
      const std::vector<int>& siblings = nodes_[static_cast<size_t>(n.parent)].children;
      const auto row = std::find(siblings.begin(), siblings.end(), static_cast<int>(i));
      parent = createIndex(static_cast<int>(row - siblings.begin()), 0, static_cast<quintptr>(i));
    }
    emit dataChanged(index(0, CountColumn, parent),
                     index(static_cast<int>(n.children.size()) - 1, CountColumn, parent));
  }
  return false;
}

int SessionTreeModel::nodeOf(const QModelIndex& index) const {
  return index.isValid() ? static_cast<int>(index.internalId()) : 0;
}

const SessionTreeModel::Node& SessionTreeModel::node(const QModelIndex& index) const {
  return nodes_[static_cast<size_t>(nodeOf(index))];
}

QModelIndex SessionTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (column < 0 || column >= ColumnCount || row < 0) return {};
  const Node& p = node(parent);
  if (static_cast<size_t>(row) >= p.children.size()) return {};
  return createIndex(row, column, static_cast<quintptr>(p.children[static_cast<size_t>(row)]));
}

QModelIndex SessionTreeModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  int p = nodes_[static_cast<size_t>(nodeOf(child))].parent;
  if (p <= 0) return {};
  const Node& grand = nodes_[static_cast<size_t>(nodes_[static_cast<size_t>(p)].parent)];
  auto it = std::find(grand.children.begin(), grand.children.end(), p);
  return createIndex(static_cast<int>(it - grand.children.begin()), 0, static_cast<quintptr>(p));
}

int SessionTreeModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return 0;
  return static_cast<int>(node(parent).children.size());
}

int SessionTreeModel::columnCount(const QModelIndex&) const {
  return ColumnCount;
}

QVariant SessionTreeModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const Node& n = node(index);
  switch (role) {
    case Qt::DisplayRole:
      if (index.column() == NameColumn) return n.label;
      return QString::fromStdString(formatCount(n.count));
    case Qt::TextAlignmentRole:
      if (index.column() == CountColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    case Qt::ToolTipRole:
      return tr("%1 — %2 events").arg(n.label, QString::fromStdString(formatCount(n.count)));
    case NodeKindRole:
      return static_cast<int>(n.kind);
    case TracksRole: {
      QVariantList list;
      for (uint32_t t : n.tracks) list.push_back(t);
      return list;
    }
  }
  return {};
}

QVariant SessionTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == NameColumn ? tr("Track") : tr("Events");
}

}  // namespace ts
