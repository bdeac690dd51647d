// SessionView: what one tab shows for one open session — the track tree beside the session's
// overview (devices with their limits, event counts, provenance). The timeline docks in here.
#pragma once

#include <QWidget>

#include "session/session.h"

class QTreeView;
class QTextBrowser;
class QSplitter;

namespace ts {

class SessionTreeModel;

class SessionView : public QWidget {
  Q_OBJECT
 public:
  SessionView(SessionPtr session, QString path, QWidget* parent = nullptr);

  const SessionPtr& session() const { return session_; }
  const QString& path() const { return path_; }
  SessionTreeModel* treeModel() const { return model_; }
  QTreeView* treeView() const { return tree_; }

 private:
  QString overviewHtml() const;

  SessionPtr session_;
  QString path_;
  SessionTreeModel* model_ = nullptr;
  QTreeView* tree_ = nullptr;
  QTextBrowser* overview_ = nullptr;
};

}  // namespace ts
