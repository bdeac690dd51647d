// AdviseView: the Advise tab (Simulate → Advise…) — what to change about where jobs run, each
// predicted from the user's own sessions and models, as `tensorscope-cli advise` does:
//  - Share a GPU: open sessions packed onto one GPU under time-slicing, MPS and MIG;
//  - Fewer machines: a multi-rank session moved onto the fewest machines;
//  - Mixed GPUs: a model's job split across GPU generations (data or pipeline parallel).
// Each answer is a table of figures with their sources, the recommendation and its assumptions,
// a chart, and — where the prediction is a run — a button that opens it as a session tab beside
// the measured ones. Computed off the GUI thread.
#pragma once

#include <QString>
#include <QWidget>
#include <functional>
#include <utility>
#include <vector>

#include "session/session.h"
#include "views/jobs/job_runner.h"

class QComboBox;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTextBrowser;

namespace ts {

class ChartView;

class AdviseView : public QWidget {
  Q_OBJECT
 public:
  struct OpenSession {
    QString title;
    SessionPtr session;
  };
  // The sessions open in the window, asked for whenever the lists are refreshed.
  using SessionSource = std::function<std::vector<OpenSession>()>;
  explicit AdviseView(SessionSource sessions, QWidget* parent = nullptr);
  ~AdviseView() override;

  enum Tab { Multiplex = 0, Consolidate = 1, Hetero = 2 };
  Q_ENUM(Tab)
  QTabWidget* tabs() const { return tabs_; }
  void refreshSessions();
  // What the Predict buttons do (the tests call them).
  void predict(Tab tab);
  bool busy() const { return job_.busy(); }
  QTextBrowser* result(Tab tab) const { return pages_[tab].result; }
  ChartView* chart(Tab tab) const { return pages_[tab].chart; }
  QPushButton* openTimeline(Tab tab) const { return pages_[tab].open; }
  // The inputs, for tests and for the flow that opens the tab.
  QListWidget* multiplexSessions() const { return jobs_; }
  QSpinBox* copies() const { return copies_; }
  QComboBox* migGpu() const { return mig_; }
  QComboBox* consolidateSession() const { return run_; }
  QSpinBox* gpusPerNode() const { return gpusPerNode_; }
  QSpinBox* world() const { return world_; }
  QLineEdit* jobModels() const { return jobModels_; }
  QSpinBox* nodesNow() const { return nodesNow_; }
  QLineEdit* gradientModel() const { return gradientModel_; }
  QLineEdit* hosts() const { return hosts_; }
  QComboBox* interLink() const { return inter_; }
  QComboBox* model() const { return model_; }
  QSpinBox* batch() const { return batch_; }
  QLineEdit* devices() const { return devices_; }
  QLineEdit* throughput() const { return throughput_; }
  QComboBox* parallel() const { return parallel_; }

 signals:
  void timelineReady(SessionPtr session, const QString& title);  // "Open predicted timeline"
  void updated(Tab tab);                                         // an answer is shown

 private:
  struct Page {
    QTextBrowser* result = nullptr;
    ChartView* chart = nullptr;
    QPushButton* open = nullptr;
    SessionPtr timeline;
    QString timelineTitle;
  };
  struct Outcome {
    Tab tab = Multiplex;
    QString html;  // or the error
    bool ok = true;
    SessionPtr timeline;
    QString timelineTitle;
    QString chartTitle;
    std::vector<std::pair<QString, double>> bars;  // the chart: a bar each
  };
  QWidget* page(Tab tab, QWidget* form);
  void present(Outcome outcome);
  void showEvent(QShowEvent* event) override;

  SessionSource sessions_;
  std::vector<OpenSession> open_;
  QTabWidget* tabs_ = nullptr;
  Page pages_[3];
  QListWidget* jobs_ = nullptr;
  QSpinBox* copies_ = nullptr;
  QComboBox* mig_ = nullptr;
  QLineEdit* jobModels_ = nullptr;
  QComboBox* run_ = nullptr;
  QSpinBox* gpusPerNode_ = nullptr;
  QSpinBox* world_ = nullptr;
  QSpinBox* nodesNow_ = nullptr;
  QLineEdit* gradientModel_ = nullptr;
  QLineEdit* hosts_ = nullptr;
  QComboBox* intra_ = nullptr;
  QSpinBox* machines_ = nullptr;  // the layout to predict (0: the fewest)
  QComboBox* inter_ = nullptr;
  QComboBox* model_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QLineEdit* devices_ = nullptr;
  QLineEdit* throughput_ = nullptr;
  QComboBox* parallel_ = nullptr;
  QSpinBox* layers_ = nullptr;
  QComboBox* link_ = nullptr;
  JobRunner<Outcome> job_;  // last: waits for its work first
};

}  // namespace ts
