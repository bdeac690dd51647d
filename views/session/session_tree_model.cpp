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

void SessionTreeModel::build() {
  const Session& s = *session_;
  nodes_.clear();
  add(-1, NodeKind::Group, {});  // root
  // Per rank: a node when the session has several, else the root stands for the only rank.
  std::vector<int> rankNode(s.ranks.size(), 0);
  if (s.multiRank()) {
    for (size_t r = 0; r < s.ranks.size(); ++r)
      rankNode[r] = add(0, NodeKind::Rank, plainText(s.ranks[r].label));
  }
  // GPUs: the device node, then Kernels (all of the device's kernels), Streams, Memory.
  struct DeviceNodes {
    int device, kernels = -1, streams = -1, memory = -1;
    std::map<uint32_t, int> stream;  // session stream index → node
    std::map<int, int> copyKind;
  };
  // Only GPUs with events or counters get a node (a trace may list every GPU of the machine);
  // the overview still lists them all.
  std::vector<bool> used(s.devices.size(), false);
  for (const Track& t : s.tracks) {
    if (t.device != kNone) used[t.device] = true;
  }
  for (const CounterTrack& c : s.counters) {
    if (c.device != kNone) used[c.device] = true;
  }
  std::vector<DeviceNodes> dev(s.devices.size(), DeviceNodes{-1, -1, -1, -1, {}, {}});
  for (uint32_t d = 0; d < s.devices.size(); ++d) {
    if (!used[d]) continue;
    std::string label = "GPU " + std::to_string(s.devices[d].ordinal);
    if (!s.devices[d].name.empty()) label += ": " + s.devices[d].name;
    dev[d].device = add(rankNode[s.devices[d].rank], NodeKind::Device, plainText(label));
  }
  std::vector<int> processNode(s.processes.size(), -1);
  std::vector<int> threadNode(s.threads.size(), -1);
  for (uint32_t t = 0; t < s.tracks.size(); ++t) {
    const Track& track = s.tracks[t];
    if (track.device != kNone) {
      DeviceNodes& dn = dev[track.device];
      auto touch = [&](int& slot, int parent, NodeKind kind, const QString& label) {
        if (slot < 0) slot = add(parent, kind, label);
        return slot;
      };
      if (track.kind == EventKind::Kernel) {
        int k = touch(dn.kernels, dn.device, NodeKind::Group, tr("Compute"));
        nodes_[static_cast<size_t>(k)].alsoElsewhere = true;
        nodes_[static_cast<size_t>(k)].tracks.push_back(t);
      }
      if (track.stream != kNone) {
        int parent = touch(dn.streams, dn.device, NodeKind::Group, tr("Streams"));
        auto [it, fresh] = dn.stream.try_emplace(track.stream, -1);
        if (fresh)
          it->second = add(parent, NodeKind::Stream, plainText(s.streamLabel(track.stream)));
        nodes_[static_cast<size_t>(it->second)].tracks.push_back(t);
      }
      if (track.kind == EventKind::Memcpy || track.kind == EventKind::Memset) {
        int parent = touch(dn.memory, dn.device, NodeKind::Group, tr("Memory"));
        nodes_[static_cast<size_t>(parent)].alsoElsewhere = true;
        std::vector<int> kinds;
        if (track.kind == EventKind::Memset) {
          kinds.push_back(kCopyKindCount);  // memsets get their own row after the copy kinds
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
                k == kCopyKindCount
                    ? tr("Memset")
                    : tr("Memcpy %1")
                          .arg(QString::fromUtf8(toString(static_cast<CopyKind>(k)).data()));
            it->second = add(parent, NodeKind::CopyKind, label);
            nodes_[static_cast<size_t>(it->second)].copyKind = k;
          }
          nodes_[static_cast<size_t>(it->second)].tracks.push_back(t);
        }
      }
    }
    if (track.thread != kNone) {
      uint32_t p = s.threads[track.thread].process;
      if (processNode[p] < 0) {
        // Under its rank node already: no rank prefix.
        const Process& proc = s.processes[p];
        QString label = proc.name.empty() ? tr("Process") : plainText(proc.name);
        if (proc.pid >= 0) label += QStringLiteral(" (%1)").arg(proc.pid);
        processNode[p] = add(rankNode[proc.rank], NodeKind::Process, label);
      }
      int& tn = threadNode[track.thread];
      if (tn < 0)
        tn = add(processNode[p], NodeKind::Thread, plainText(s.threadLabel(track.thread)));
      const QString what = track.kind == EventKind::Api ? tr("CUDA API")
                           : track.kind == EventKind::Nvtx
                               ? QString::fromStdString(annotationRowName(s, {t}))
                               : tr("Ranges");
      int leaf = add(tn, NodeKind::ThreadTrack, what);
      nodes_[static_cast<size_t>(leaf)].tracks.push_back(t);
    }
  }
  for (size_t c = 0; c < s.counters.size(); ++c) {
    const CounterTrack& counter = s.counters[c];
    int parent = counter.device != kNone ? dev[counter.device].device
                 : counter.process != kNone && processNode[counter.process] >= 0
                     ? processNode[counter.process]
                     : 0;
    QString label = plainText(counter.name);
    if (!counter.unit.empty()) label += QStringLiteral(" (%1)").arg(plainText(counter.unit));
    int n = add(parent, NodeKind::Counter, label);
    nodes_[static_cast<size_t>(n)].count = counter.size();
  }
  // Counts: a leaf counts its tracks' events (of its copy kind); a parent sums distinct tracks
  // once, so a device is not counted twice for appearing under Kernels and Streams.
  for (size_t i = nodes_.size(); i-- > 0;) {
    Node& n = nodes_[i];
    if (n.kind == NodeKind::Counter) continue;
    if (n.copyKind >= 0 && n.copyKind < kCopyKindCount) {
      for (uint32_t t : n.tracks) {
        for (CopyKind k : s.tracks[t].memcpys.copyKind)
          n.count += static_cast<int>(k) == n.copyKind;
      }
    } else if (!n.tracks.empty()) {
      for (uint32_t t : n.tracks) n.count += s.tracks[t].size();
    }
  }
  // Streams by id, copy kinds in enum order (memsets last): stable whatever the event order was.
  for (DeviceNodes& dn : dev) {
    auto reorder = [&](int group, const auto& byKey) {
      if (group < 0) return;
      std::vector<int>& children = nodes_[static_cast<size_t>(group)].children;
      children.clear();
      for (const auto& [key, child] : byKey) children.push_back(child);
    };
    std::map<std::pair<uint32_t, uint32_t>, int> byStreamId;
    for (const auto& [stream, child] : dn.stream)
      byStreamId[{s.streams[stream].streamId, stream}] = child;
    reorder(dn.streams, byStreamId);
    reorder(dn.memory, dn.copyKind);
    // Under a GPU: Kernels, Streams, Memory, then counters.
    if (dn.device >= 0) {
      std::vector<int>& children = nodes_[static_cast<size_t>(dn.device)].children;
      auto order = [&](int c) {
        return c == dn.kernels ? 0 : c == dn.streams ? 1 : c == dn.memory ? 2 : 3;
      };
      std::stable_sort(children.begin(), children.end(),
                       [&](int a, int b) { return order(a) < order(b); });
    }
  }
  // Processes and threads in the order the source asked for (sort index), then by pid / tid; GPUs
  // come before processes.
  std::vector<int> containers = {0};
  for (size_t i = 1; i < nodes_.size(); ++i) {
    if (nodes_[i].kind == NodeKind::Rank || nodes_[i].kind == NodeKind::Process)
      containers.push_back(static_cast<int>(i));
  }
  std::vector<std::pair<int64_t, int64_t>> orderKey(nodes_.size(), {0, 0});
  for (size_t p = 0; p < s.processes.size(); ++p) {
    if (processNode[p] >= 0)
      orderKey[static_cast<size_t>(processNode[p])] = {s.processes[p].sortIndex,
                                                       s.processes[p].pid};
  }
  for (size_t t = 0; t < s.threads.size(); ++t) {
    if (threadNode[t] >= 0)
      orderKey[static_cast<size_t>(threadNode[t])] = {s.threads[t].sortIndex, s.threads[t].tid};
  }
  for (int c : containers) {
    std::vector<int>& children = nodes_[static_cast<size_t>(c)].children;
    // GPUs keep their place ahead (key 0, position), processes and threads follow by (sort
    // index, id), counters come last (key 2, position).
    auto key = [&](int n) {
      const Node& node = nodes_[static_cast<size_t>(n)];
      auto [sortIndex, id] = orderKey[static_cast<size_t>(n)];
      if (node.kind == NodeKind::Process || node.kind == NodeKind::Thread) {
        return std::tuple<int, int64_t, int64_t>(1, sortIndex, id);
      }
      return std::tuple<int, int64_t, int64_t>(node.kind == NodeKind::Counter ? 2 : 0, n, 0);
    };
    std::stable_sort(children.begin(), children.end(),
                     [&](int a, int b) { return key(a) < key(b); });
  }
  // Nodes without tracks of their own sum their children — except a device, whose events appear
  // both under Kernels and under Streams: it counts its streams only.
  for (size_t i = nodes_.size(); i-- > 1;) {
    Node& n = nodes_[i];
    if (!n.tracks.empty() || n.kind == NodeKind::Counter) continue;
    for (int c : n.children) {
      const Node& child = nodes_[static_cast<size_t>(c)];
      if (!child.alsoElsewhere && child.kind != NodeKind::Counter) n.count += child.count;
    }
  }
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
