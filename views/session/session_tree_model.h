// SessionTreeModel: the track tree of a session — ranks, GPUs (compute, streams, copies), processes
// and threads (API calls, NVTX), counters — with event counts. The timeline lays its rows out from
// the same nodes.
#pragma once

#include <QAbstractItemModel>
#include <vector>

#include "session/session.h"

namespace ts {

class SessionTreeModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum class NodeKind {
    Rank,
    Device,
    Group,
    Stream,
    CopyKind,
    Process,
    Thread,
    ThreadTrack,
    Counter
  };
  enum Column { NameColumn = 0, CountColumn = 1, ColumnCount = 2 };
  enum Role { TracksRole = Qt::UserRole + 1, NodeKindRole };

  struct Node {
    NodeKind kind;
    QString label;
    uint64_t count = 0;
    int parent = -1;
    std::vector<int> children;
    std::vector<uint32_t> tracks;  // tracks whose events this node shows
    int copyKind = -1;             // CopyKind nodes: show only this kind of the tracks' copies
    bool alsoElsewhere = false;    // its events are counted under a sibling too (Kernels, Memory)
  };

  explicit SessionTreeModel(SessionPtr session, QObject* parent = nullptr);
  // A newer snapshot of the same capture: when its tree has the same nodes (the common case, a
  // second more of the same tracks) only the counts change, and a view keeps what it unfolded;
  // else the model is reset. Returns whether it was.
  bool setSession(SessionPtr session);

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  const Node& node(const QModelIndex& index) const;
  const SessionPtr& session() const { return session_; }

 private:
  class Builder;  // build()'s steps
  int add(int parent, NodeKind kind, QString label);
  void build();
  int nodeOf(const QModelIndex& index) const;

  SessionPtr session_;
  std::vector<Node> nodes_;  // node 0 is the invisible root
};

}  // namespace ts
