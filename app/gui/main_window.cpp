#include "app/gui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <cstring>
#include <functional>

#include "app/gui/capture_dialog.h"
#include "app/gui/model_dialog.h"
#include "app/gui/open_ranks_dialog.h"
#include "app/gui/shortcuts_dialog.h"
#include "app/gui/theme.h"
#include "io/atomic_file.h"
#include "io/open_session.h"
#include "memsim/formats/sim_session.h"
#include "memsim/reports/mapping_report.h"
#include "model/model_zoo.h"
#include "util/format.h"
#include "util/version.h"
#include "views/charts/chart_export.h"
#include "views/jobs/session_export_job.h"
#include "views/jobs/session_load_job.h"
#include "views/models/model_title.h"
#include "views/models/model_view.h"
#include "views/session/name_style.h"
#include "views/session/session_view.h"
#include "views/simulation/compare_view.h"
#include "views/simulation/overlay_pane.h"
#include "views/simulation/simulation_view.h"
#include "views/simulation/sweep_view.h"
#include "views/timeline/timeline_canvas.h"

#ifdef TSCOPE_HAVE_CAPTURE
#include "views/jobs/capture_job.h"
#endif

// Q_INIT_RESOURCE must be called outside any namespace; the resources live in a static library.
static void initResources() {
  Q_INIT_RESOURCE(resources);
}

namespace ts {

namespace {
constexpr int kMaxRecent = 10;
const char* kRecentKey = "recentFiles";
const char* kFileFilter =
    "All supported files (*.tscope *.json *.json.gz *.sqlite);;"
    "Tensorscope sessions (*.tscope);;"
    "PyTorch profiler / Chrome traces (*.json *.json.gz);;"
    "Nsight Systems SQLite exports (*.sqlite);;"
    "All files (*)";
// Export formats; the CSV entries name the table they hold.
const char* kExportFilters[] = {
    "Tensorscope session (*.tscope)",      "Chrome trace JSON for Perfetto (*.json)",
    "Chrome trace JSON, gzip (*.json.gz)", "CSV: kernels (*.csv)",
    "CSV: memory copies (*.csv)",          "CSV: memsets (*.csv)",
    "CSV: CUDA API calls (*.csv)",         "CSV: NVTX ranges (*.csv)",
};
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  initResources();
  setWindowTitle(tr("Tensorscope"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/tensorscope.svg")));
  setAcceptDrops(true);
  resize(1280, 800);

  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("sessionTabs"));
  tabs_->setDocumentMode(true);
  tabs_->setTabsClosable(true);
  tabs_->setMovable(true);
  // Long file names shorten in the middle (their ends tell runs apart) before the bar scrolls a
  // tab out of view; the full title is the tab's tooltip.
  tabs_->setElideMode(Qt::ElideMiddle);
  connect(tabs_, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
  // Every tab opened is made current: the status line counts it then.
  connect(tabs_, &QTabWidget::currentChanged, this, &MainWindow::updateStatus);

  // Shown while no session is open: how to start, and the recent files.
  auto* welcome = new QWidget(this);
  auto* welcomeLayout = new QVBoxLayout(welcome);
  welcomeLayout->setContentsMargins(48, 48, 48, 48);
  auto* title = new QLabel(tr("<h1>Tensorscope</h1><p>Open a session with <b>File → Open</b> "
                              "(Ctrl+O) or drop files on this window.</p><h3>Recent sessions</h3>"),
                           welcome);
  welcomeLayout->addWidget(title);
  welcomeRecent_ = new QListWidget(welcome);
  welcomeRecent_->setObjectName(QStringLiteral("recentList"));
  connect(welcomeRecent_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { openFiles({item->data(Qt::UserRole).toString()}); });
  welcomeLayout->addWidget(welcomeRecent_, 1);

  stack_ = new QStackedWidget(this);
  stack_->addWidget(welcome);
  stack_->addWidget(tabs_);
  setCentralWidget(stack_);

  statusLabel_ = new QLabel(this);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(220);
  progress_->setTextVisible(true);
  cancelButton_ = new QToolButton(this);
  statusBar()->addWidget(statusLabel_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancelButton_);
  captureStatus_ = new QLabel(this);
  captureStatus_->setObjectName(QStringLiteral("captureStatus"));
  stopButton_ = new QToolButton(this);
  stopButton_->setText(tr("Stop"));
  stopButton_->setToolTip(tr("Stop the capture"));
  connect(stopButton_, &QToolButton::clicked, this, &MainWindow::askStopCapture);
  statusBar()->addPermanentWidget(captureStatus_);
  statusBar()->addPermanentWidget(stopButton_);
  captureStatus_->hide();
  stopButton_->hide();

  createActions();
  cancelButton_->setDefaultAction(cancelAction_);
  rebuildRecentMenu();
  updateStatus();
  updateCentral();
}

MainWindow::~MainWindow() {
  stopCapture(true);
  for (SessionLoadJob* job : jobs_) job->cancel();
  for (SessionExportJob* job : exports_) job->cancel();
}

void MainWindow::createActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  openAction_ = file->addAction(tr("&Open…"), this, &MainWindow::openDialog);
  openAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
  openAction_->setStatusTip(tr("Open one or more session files"));
  openRanksAction_ = file->addAction(tr("Open as &Ranks…"), this, &MainWindow::openRanksDialog);
  openRanksAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  openRanksAction_->setStatusTip(tr("Open several trace files as one multi-rank session"));
  openModelAction_ = file->addAction(tr("Open &Model…"), this, &MainWindow::openModelDialog);
  openModelAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
  openModelAction_->setStatusTip(
      tr("Open an ONNX model: layer table, training step, ASTRA-sim and Chakra export"));
  QAction* openSweepAction = file->addAction(tr("Open &Sweep Results…"), this, [this] {
    QString path = QFileDialog::getOpenFileName(
        this, tr("Open sweep results"), {}, tr("simulate --sweep tables (*.csv);;All files (*)"));
    if (!path.isEmpty()) this->openSweep(path);
  });
  openSweepAction->setStatusTip(
      tr("A memory-tier sweep written by tensorscope-cli simulate --sweep: table and sensitivity "
         "chart"));
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  captureAction_ = file->addAction(tr("&Capture…"), this, &MainWindow::captureDialog);
  captureAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
#ifdef TSCOPE_HAVE_CAPTURE
  captureAction_->setStatusTip(
      tr("Run a CUDA program and record its kernels, copies, API calls and NVTX ranges"));
#else
  captureAction_->setText(tr("&Capture… (unavailable)"));
  captureAction_->setStatusTip(
      tr("This build has no capture: it was built without the CUDA toolkit (CUPTI)"));
#endif
  closeAction_ = file->addAction(tr("&Close"), this, &MainWindow::closeCurrent);
  closeAction_->setShortcut(
      QKeySequence(Qt::CTRL | Qt::Key_W));  // the platform's Close may be Ctrl+F4
  exportAction_ = file->addAction(tr("&Export…"), this, &MainWindow::exportDialog);
  exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  exportAction_->setStatusTip(tr("Save the session as .tscope, Chrome trace JSON or CSV"));
  file->addAction(tr("Co&mpare Sessions…"), this, &MainWindow::compareDialog)
      ->setStatusTip(tr("Two open sessions side by side: synchronised timelines, kernels and "
                        "copies with the change"));
  file->addAction(tr("Export &Timeline Image…"), this, &MainWindow::exportTimelineImageDialog)
      ->setStatusTip(tr("Save the visible timeline (labels, ruler, legend) as PNG, SVG or PDF"));
  file->addSeparator();
  cancelAction_ = file->addAction(tr("Cancel &Loading"), this, &MainWindow::cancelLoads);
  cancelAction_->setShortcut(QKeySequence(Qt::Key_Escape));
  cancelAction_->setToolTip(tr("Cancel loading (Esc)"));
  file->addSeparator();
  quitAction_ = file->addAction(tr("&Quit"), this, &QWidget::close);
  quitAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));  // not every platform defines Quit

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  findAction_ = edit->addAction(tr("&Find…"), this, [this] {
    if (SessionView* v = sessionView(tabs_->currentIndex())) v->showFind();
  });
  findAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F));
  findNextAction_ = edit->addAction(tr("Find &Next"), this, [this] {
    if (SessionView* v = sessionView(tabs_->currentIndex())) v->findNext(false);
  });
  findNextAction_->setShortcut(QKeySequence(Qt::Key_F3));
  findPreviousAction_ = edit->addAction(tr("Find &Previous"), this, [this] {
    if (SessionView* v = sessionView(tabs_->currentIndex())) v->findNext(true);
  });
  findPreviousAction_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3));

  QMenu* view = menuBar()->addMenu(tr("&View"));
  auto timelineAction = [&](const QString& text, const QKeySequence& key, auto apply,
                            const QString& moreKeys = {}) {
    QAction* a = view->addAction(text, this, [this, apply] {
      if (TimelineCanvas* c = currentTimeline()) apply(c);
    });
    a->setShortcut(key);
    if (!moreKeys.isEmpty()) a->setProperty(kMoreKeysProperty, moreKeys);
    viewActions_.push_back(a);
  };
  timelineAction(
      tr("Zoom &In"), QKeySequence(Qt::Key_W), [](TimelineCanvas* c) { c->zoomBy(1.5); },
      tr("Ctrl+Wheel up"));
  timelineAction(
      tr("Zoom &Out"), QKeySequence(Qt::Key_S), [](TimelineCanvas* c) { c->zoomBy(1 / 1.5); },
      tr("Ctrl+Wheel down"));
  timelineAction(
      tr("Zoom to &Selection"), QKeySequence(Qt::CTRL | Qt::Key_Z),
      [](TimelineCanvas* c) { c->zoomToSelection(); }, tr("double-click the range"));
  timelineAction(
      tr("Show &All"), QKeySequence(Qt::Key_H), [](TimelineCanvas* c) { c->fitAll(); }, tr("Home"));
  view->addSeparator();
  timelineAction(tr("&Back"), QKeySequence(Qt::ALT | Qt::Key_Left),
                 [](TimelineCanvas* c) { c->back(); });
  timelineAction(tr("&Forward"), QKeySequence(Qt::ALT | Qt::Key_Right),
                 [](TimelineCanvas* c) { c->forward(); });
  view->addSeparator();
  // A checkable choice of the View menu, remembered by whoever `toggled` tells.
  auto toggle = [view](const QString& text, const char* name, bool checked, const QString& tip,
                       auto toggled) {
    QAction* a = view->addAction(text);
    a->setObjectName(QLatin1String(name));
    a->setCheckable(true);
    a->setChecked(checked);
    a->setToolTip(tip);
    connect(a, &QAction::toggled, view, toggled);
  };
  toggle(tr("Short &Kernel Names"), "shortKernelNames", NameStyle::instance().shortNames(),
         tr("List kernels by their function name alone (no namespaces, template arguments or "
            "parameters); the full name stays in tooltips, filters and exports"),
         [](bool on) { NameStyle::instance().setShortNames(on); });
  toggle(
      tr("&Overview Strip"), "overviewStrip", SessionView::overviewStripSaved(),
      tr("A minimap of the whole session above the timeline: each GPU's busy share and the "
         "CPU's activity, with the view framed; click, drag or double-click it to move the view"),
      [this](bool on) {
        QSettings().setValue(QStringLiteral("view/overview"), on);
        for (int i = 0; i < tabs_->count(); ++i) {
          if (SessionView* v = sessionView(i)) v->setOverviewStripShown(on);
        }
      });
  toggle(tr("GPU &Utilisation Lanes"), "utilisationLanes", TimelineCanvas::utilisationSaved(),
         tr("Each GPU's busy share per pixel column on its header row (the share of the column's "
            "time with a kernel running)"),
         [this](bool on) {
           QSettings().setValue(QStringLiteral("view/utilisation"), on);
           for (TimelineCanvas* c : findChildren<TimelineCanvas*>()) c->setUtilisationShown(on);
         });
  QMenu* themes = view->addMenu(tr("&Theme"));
  auto* themeGroup = new QActionGroup(this);
  const Theme current = savedTheme();
  for (auto [theme, text] :
       {std::pair(Theme::System, tr("&System")), std::pair(Theme::Light, tr("&Light")),
        std::pair(Theme::Dark, tr("&Dark"))}) {
    QAction* a = themes->addAction(text, this, [theme] { applyTheme(theme); });
    a->setObjectName(QStringLiteral("theme-") + themeName(theme));
    a->setCheckable(true);
    a->setChecked(theme == current);
    themeGroup->addAction(a);
  }

  QMenu* model = menuBar()->addMenu(tr("&Model"));
  model->addAction(openModelAction_);
  // The built-in models as tabs of their own, as the simulate dialogs offer them.
  QMenu* builtIn = model->addMenu(tr("Open &Built-in Model"));
  builtIn->setObjectName(QStringLiteral("builtInModels"));
  for (const std::string& name : model::zooModels()) {
    const QString n = QString::fromStdString(name);
    builtIn->addAction(n, this, [this, n] {
      const QString path = zooModelFile(tr("Open built-in model"), n);
      if (!path.isEmpty()) openModel(path);
    });
  }
  QAction* onTimeline =
      model->addAction(tr("&Simulate Memory Tiers…"), this, &MainWindow::simulateOnTimelineDialog);
  onTimeline->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
  onTimeline->setStatusTip(
      tr("Simulate the run's model under a memory policy and draw it on this timeline: tier usage, "
         "transfers, tensor lanes"));
  simulateTimelineAction_ = onTimeline;

  QMenu* simulate = menuBar()->addMenu(tr("&Simulate"));
  simulate->addAction(onTimeline);
  simulate
      ->addAction(tr("Memory Tiers of a &G10 Workload…"), this,
                  [this] {
                    QString dir = QFileDialog::getExistingDirectory(
                        this, tr("G10 workload directory (kernels.config, tensors.config)"));
                    if (dir.isEmpty()) return;
                    memsim::WorkloadSource source;
                    source.g10Dir = dir.toStdString();
                    openSimulation(source);
                  })
      ->setStatusTip(
          tr("What-if: G10 and its baselines on a G10 workload, with sliders for the tiers"));
  simulate
      ->addAction(tr("Memory Tiers of a &Model…"), this,
                  [this] {
                    auto chosen = chooseModel(tr("Simulate a model's training step"),
                                              tr("Batch size of the step:"));
                    if (!chosen) return;
                    memsim::WorkloadSource source;
                    source.modelPath = chosen->path.toStdString();
                    source.batch = chosen->batch;
                    openSimulation(source);
                  })
      ->setStatusTip(tr("What-if: the training step of an ONNX model (roofline times) under the "
                        "memory policies"));
  simulateRunAction_ = simulate->addAction(tr("Memory Tiers of This &Run's Model…"), this, [this] {
    SessionView* run = sessionView(tabs_->currentIndex());
    if (!run) {
      showError(tr("Simulate this run"), tr("Open a run first: its kernels are mapped onto the "
                                            "model's layers for their measured times."));
      return;
    }
    auto chosen = chooseModel(tr("The run's model"), tr("Batch size of the run:"));
    if (!chosen) return;
    memsim::WorkloadSource source;
    source.modelPath = chosen->path.toStdString();
    source.batch = chosen->batch;
    source.session = run->session();  // the open run: not read again, saved or not
    source.sessionPath = run->path().toStdString();
    openSimulation(source);
  });
  simulateRunAction_->setStatusTip(tr(
      "What would G10 do to this run: its model simulated with the run's measured kernel times"));

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  shortcutsAction_ = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
  shortcutsAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
  aboutAction_ = help->addAction(tr("&About Tensorscope"), this, &MainWindow::showAbout);
}

QList<QAction*> MainWindow::shortcutActions() const {
  // In menu order, as the user meets them; an action in two menus once.
  QList<QAction*> result;
  std::function<void(const QMenu*)> walk = [&](const QMenu* menu) {
    for (QAction* a : menu->actions()) {
      if (a->menu())
        walk(a->menu());
      else if (!a->shortcut().isEmpty() && !result.contains(a))
        result.push_back(a);
    }
  };
  for (QAction* top : menuBar()->actions()) {
    if (top->menu()) walk(top->menu());
  }
  return result;
}

void MainWindow::openDialog() {
  QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open session"), {}, tr(kFileFilter));
  if (!paths.isEmpty()) openFiles(paths);
}

void MainWindow::openRanksDialog() {
  QStringList paths =
      QFileDialog::getOpenFileNames(this, tr("Open ranks as one session"), {}, tr(kFileFilter));
  if (paths.isEmpty()) return;
  OpenRanksDialog dialog(paths, this);  // rank order and clock shifts
  if (dialog.exec() == QDialog::Accepted) openRanks(dialog.paths(), dialog.options());
}

void MainWindow::openFiles(const QStringList& paths) {
  for (const QString& path : paths) {
    if (path.endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive))
      openModel(path);
    else if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive))
      openSweep(path);
    else if (!focusOpen(path))
      startLoad({path});
  }
}

// A session file that is open already, or loading, is not opened twice: its tab comes forward.
bool MainWindow::focusOpen(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  for (int i = 0; i < tabs_->count(); ++i) {
    SessionView* v = sessionView(i);
    if (!v || v->timeline()->persistenceKey() != absolute) continue;
    tabs_->setCurrentIndex(i);
    statusBar()->showMessage(tr("%1 is open already").arg(QFileInfo(path).fileName()), 5000);
    return true;
  }
  for (const SessionLoadJob* job : jobs_) {
    if (job->paths().size() == 1 && QFileInfo(job->paths().front()).absoluteFilePath() == absolute)
      return true;
  }
  return false;
}

// ONNX models open in a model tab (layer table, training step, ASTRA-sim / Chakra export).
void MainWindow::openModel(const QString& path) {
  auto* view = new ModelView(path, tabs_);
  int index = tabs_->addTab(view, modelTitle(path));
  tabs_->setTabToolTip(index, path);
  tabs_->setCurrentIndex(index);
  connect(view, &ModelView::updated, this, [this, view] {
    if (!view->error().isEmpty()) showError(tr("Cannot open model"), view->error());
    emit modelOpened(view->path(), view->error().isEmpty());
  });
  updateCentral();
}

void MainWindow::simulateOnTimelineDialog() {
  const QString title = tr("Simulate memory tiers on this timeline");
  if (!sessionView(tabs_->currentIndex())) {
    showError(title, tr("Open a run first: the simulation of its model is drawn on its timeline."));
    return;
  }
  if (auto chosen = chooseModel(tr("The run's model"), tr("Batch size of the run:")))
    simulateOnTimeline(tabs_->currentIndex(), chosen->path, chosen->batch);
}

// An ONNX file, or one of the built-in models written to the cache, with the batch; none when
// cancelled (or after an error, shown).
std::optional<MainWindow::ModelChoice> MainWindow::chooseModel(const QString& title,
                                                               const QString& batchLabel) {
  ModelDialog dialog(title, batchLabel, this);
  if (dialog.exec() != QDialog::Accepted) return std::nullopt;
  ModelChoice chosen{dialog.file(), dialog.batch()};
  if (!dialog.builtIn().isEmpty()) {
    chosen.path = zooModelFile(title, dialog.builtIn());
    if (chosen.path.isEmpty()) return std::nullopt;
  }
  return chosen;
}

QString MainWindow::modelTitle(const QString& path) {
  return ts::modelTitle(path);
}

// A built-in model as a file in the cache (the simulations read ONNX files).
QString MainWindow::zooModelFile(const QString& title, const QString& name) {
  auto bytes = model::zooModelBytes(name.toStdString());
  QDir cache(zooCacheDir());
  const QString path = cache.filePath(name + QStringLiteral(".onnx"));
  if (!bytes || !cache.mkpath(QStringLiteral("."))) {
    showError(title, bytes ? tr("Cannot create %1").arg(cache.path())
                           : QString::fromStdString(bytes.error()));
    return {};
  }
  if (Status st = writeBytesAtomically(path.toStdString(), *bytes); !st.ok()) {
    showError(title, QString::fromStdString(st.error()));
    return {};
  }
  return path;
}

OverlayPane* MainWindow::simulateOnTimeline(int tab, const QString& modelPath, int64_t batch) {
  SessionView* view = sessionView(tab);
  if (!view) return nullptr;
  ModelDialog::remember(modelPath, static_cast<int>(batch));  // offered again by the dialogs
  OverlayPane* pane = view->simulateOnTimeline(modelPath, batch);
  connect(pane, &OverlayPane::updated, this, &MainWindow::overlayUpdated);
  return pane;
}

// Every session tab is made here, so each is wired once (however often it simulates).
SessionView* MainWindow::newSessionView(SessionPtr session, const QString& title,
                                        std::shared_ptr<const TimelineRows> rows) {
  auto* view = new SessionView(std::move(session), title, tabs_, std::move(rows));
  connect(view, &SessionView::compareSimulationRequested, this,
          [this, view] { compareWithSimulation(view); });
  return view;
}

// A run against the simulation of its mapped iteration: the tables of that iteration, and where
// the two timelines line up.
static CompareView::Simulated simulatedComparison(const Session& measured,
                                                  const memsim::SimWorkload& workload,
                                                  const memsim::SimResult& result,
                                                  const model::KernelMapping& mapping,
                                                  const Session& simulated) {
  CompareView::Simulated s;
  s.measuredOrigin = mapping.origin();
  s.simulatedOrigin = 0;
  if (!mapping.iterations.empty()) s.measuredEnd = mapping.iterations[mapping.iteration].end;
  s.simulatedEnd = simulated.endTime();
  s.summary = memsim::comparisonSummary(measured, workload, result, mapping);
  s.layers = memsim::layerComparison(workload, result, mapping);
  s.kernels = memsim::kernelComparison(workload, result, mapping);
  s.traffic = memsim::trafficComparison(measured, result, mapping);
  return s;
}

void MainWindow::addCompareTab(CompareView* compare, const QString& title) {
  const int index = tabs_->addTab(compare, title);
  tabs_->setTabToolTip(index, title);  // the tab may shorten it
  tabs_->setCurrentIndex(index);
}

CompareView* MainWindow::compareWithSimulation(SessionView* view) {
  const OverlayPane* pane = view ? view->overlayPane() : nullptr;
  const memsim::OverlayRun* run = pane ? pane->current() : nullptr;
  const memsim::GpuRun* gpu = pane ? pane->shownGpu() : nullptr;
  if (!run || !run->status.ok() || !gpu) return nullptr;
  const memsim::PolicyRun& policy = gpu->run;
  auto simulatedOrError = memsim::simulationSession(gpu->workload, {policy}, run->tiers);
  if (!simulatedOrError) {
    showError(tr("Cannot compare with the simulation"),
              QString::fromStdString(simulatedOrError.error()));
    return nullptr;
  }
  SessionPtr simulated = *simulatedOrError;
  const QString name = tabs_->tabText(tabs_->indexOf(view));
  auto* compare = new CompareView(
      view->session(), name, simulated,
      tr("%1 (simulated)").arg(QString::fromLatin1(memsim::toString(policy.result.policy))), tabs_);
  compare->setSimulated(simulatedComparison(*view->session(), gpu->workload, policy.result,
                                            gpu->mapping.kernels, *simulated));
  // Named by the policy: a second comparison of the same run (from the what-if) reads apart.
  const QString title =
      tr("%1 ↔ %2").arg(name, QString::fromLatin1(memsim::toString(policy.result.policy)));
  addCompareTab(compare, title);
  return compare;
}

// The what-if tab: a workload under a policy and tiers the user moves.
void MainWindow::openSimulation(const memsim::WorkloadSource& source) {
  auto* view = new SimulationView(source, tabs_);
  connect(
      view, &SimulationView::compareRequested, this, [this, source, view](SessionPtr simulated) {
        // The measured run: the one simulated, else its open tab, else the file.
        SessionPtr measured = source.session;
        for (int i = 0; i < tabs_->count() && !measured; ++i) {
          if (SessionView* v = sessionView(i); v && v->path().toStdString() == source.sessionPath)
            measured = v->session();
        }
        if (!measured) {
          auto opened = openSessionFile(source.sessionPath);
          if (!opened) {
            showError(tr("Compare with the run"), QString::fromStdString(opened.error()));
            return;
          }
          measured = *opened;
        }
        QString run = QFileInfo(QString::fromStdString(source.sessionPath)).fileName();
        const QString policy = QString::fromLatin1(memsim::toString(view->current().result.policy));
        auto* compare =
            new CompareView(measured, run, simulated, tr("%1 (what-if)").arg(policy), tabs_);
        // The iteration the run was mapped by: its own tables, the timelines lined up at it.
        if (const memsim::MappingSummary* m = view->measuredMapping(); m && view->workload())
          compare->setSimulated(simulatedComparison(
              *measured, *view->workload(), view->current().result, m->kernels, *simulated));
        addCompareTab(compare, tr("%1 ↔ %2 (what-if)").arg(run, policy));
      });
  QString name = source.isModel()
                     ? modelTitle(QString::fromStdString(source.modelPath))
                     : QFileInfo(QDir::cleanPath(QString::fromStdString(source.g10Dir))).fileName();
  int index = tabs_->addTab(view, tr("What-if: %1").arg(name));
  tabs_->setTabToolTip(index,
                       QString::fromStdString(source.isModel() ? source.modelPath : source.g10Dir));
  tabs_->setCurrentIndex(index);
  updateCentral();
}

// A sweep table (simulate --sweep) opens in a tab of its own: chart and table.
bool MainWindow::openSweep(const QString& path) {
  auto sweep = memsim::loadSweepCsv(path.toStdString());
  if (!sweep) {
    showError(tr("Cannot open sweep results"), QString::fromStdString(sweep.error()));
    return false;
  }
  auto* view = new SweepView(std::move(*sweep), tabs_);
  int index = tabs_->addTab(view, modelTitle(path));
  tabs_->setTabToolTip(index, path);
  tabs_->setCurrentIndex(index);
  updateCentral();
  return true;
}

void MainWindow::openModelDialog() {
  QString path = QFileDialog::getOpenFileName(this, tr("Open model"), {},
                                              tr("ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty()) openModel(path);
}

void MainWindow::openRanks(const QStringList& paths, const OpenOptions& options) {
  if (!paths.isEmpty()) startLoad(paths, options);
}

void MainWindow::showError(const QString& title, const QString& message) {
  lastError_ = message;
  statusBar()->showMessage(message, 10000);
  // Not modal: a failed file must not block the others, nor a headless run.
  auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainWindow::startLoad(const QStringList& paths, const OpenOptions& options) {
  auto* job = new SessionLoadJob(paths, options, this);
  jobs_.push_back(job);
  connect(job, &SessionLoadJob::progressChanged, this, &MainWindow::updateStatus);
  connect(job, &SessionLoadJob::loaded, this,
          [this, job](SessionPtr session, std::shared_ptr<const TimelineRows> rows) {
            auto* view = newSessionView(std::move(session), job->title(), std::move(rows));
            // The timeline's row arrangement (hidden, moved rows) is remembered per set of files.
            QStringList absolute;
            for (const QString& p : job->paths()) absolute << QFileInfo(p).absoluteFilePath();
            view->timeline()->setPersistenceKey(absolute.join(QLatin1Char('|')));
            int index = tabs_->addTab(view, job->title());
            tabs_->setTabToolTip(index, job->paths().join(QLatin1Char('\n')));
            tabs_->setCurrentIndex(index);
            // Its timeline takes the keys at once (the track tree would search on W, S, H);
            // given once this load's handler is done, not inside it.
            QTimer::singleShot(0, view, [view] { view->setFocus(); });
            for (const QString& path : job->paths()) addRecent(path);
            emit sessionOpened(job->paths().front());
            jobFinished(job);
          });
  connect(job, &SessionLoadJob::failed, this, [this, job](const QString& message, bool cancelled) {
    if (cancelled) {
      lastError_ = message;
      statusBar()->showMessage(message, 10000);
    } else {
      showError(tr("Cannot open session"), message);
    }
    emit loadFailed(job->paths().front(), message);
    jobFinished(job);
  });
  job->start();
  updateStatus();
}

void MainWindow::exportDialog() {
  SessionView* view = sessionView(tabs_->currentIndex());
  if (!view) return;
  QStringList filters;
  for (const char* f : kExportFilters) filters << tr(f);
  QString selected = filters.front();
  const QString suggested = suggestedExportPath(tabs_->currentIndex());
  if (suggested.endsWith(QLatin1String(".json"))) selected = filters[1];
  QString path = QFileDialog::getSaveFileName(this, tr("Export session"), suggested,
                                              filters.join(QStringLiteral(";;")), &selected);
  if (path.isEmpty()) return;
  WriteOptions options;
  const CsvTable tables[] = {CsvTable::Kernels, CsvTable::Memcpy, CsvTable::Memset, CsvTable::Api,
                             CsvTable::Nvtx};
  int index = static_cast<int>(filters.indexOf(selected));
  if (index >= 3) options.csvTable = tables[index - 3];
  // The dialog may leave the extension off: add the one the chosen format needs.
  const QString extensions[] = {QStringLiteral(".tscope"), QStringLiteral(".json"),
                                QStringLiteral(".json.gz"), QStringLiteral(".csv")};
  const QString& ext = extensions[std::min(index, 3)];
  if (index >= 0 && !path.endsWith(ext)) path += ext;
  exportCurrent(path, options);
}

// Beside the tab's first file, under its name: a trace is offered as a .tscope session, a
// session as Chrome JSON (never the file itself).
QString MainWindow::suggestedExportPath(int tab) const {
  const QString source = tabs_->tabToolTip(tab).section(QLatin1Char('\n'), 0, 0);
  if (source.isEmpty()) return {};
  const QFileInfo info(source);
  QString base = info.fileName();
  for (const char* ext : {".json.gz", ".json", ".sqlite", ".tscope", ".gz"}) {
    if (base.endsWith(QLatin1String(ext), Qt::CaseInsensitive)) {
      base.chop(static_cast<qsizetype>(std::strlen(ext)));
      break;
    }
  }
  const bool session = source.endsWith(QLatin1String(".tscope"), Qt::CaseInsensitive);
  return info.dir().filePath(base +
                             (session ? QStringLiteral(".json") : QStringLiteral(".tscope")));
}

std::pair<int, int> MainWindow::compareDefaults() const {
  QList<int> sessions;
  for (int i = 0; i < tabs_->count(); ++i) {
    if (sessionView(i)) sessions << i;
  }
  if (sessions.size() < 2) return {-1, -1};
  return {sessions[sessions.size() - 2], sessions.back()};  // the two opened last
}

void MainWindow::exportCurrent(const QString& path, const WriteOptions& options) {
  SessionView* view = sessionView(tabs_->currentIndex());
  if (!view) return;
  auto* job = new SessionExportJob(view->session(), path, options, this);
  exports_.push_back(job);
  connect(job, &SessionExportJob::progressChanged, this, &MainWindow::updateStatus);
  connect(job, &SessionExportJob::finished, this,
          [this, job](bool ok, const QString& message, bool cancelled) {
            if (ok || cancelled)  // a cancelled export left the file as it was: no error box
              statusBar()->showMessage(message, 10000);
            else
              showError(tr("Cannot export"), message);
            exports_.removeOne(job);
            emit exported(ok, message);
            jobFinished(job);
          });
  job->start();
  updateStatus();
}

void MainWindow::jobFinished(QObject* job) {
  jobs_.removeOne(qobject_cast<SessionLoadJob*>(job));
  job->deleteLater();
  updateStatus();
  updateCentral();
  if (jobs_.isEmpty() && exports_.isEmpty()) emit idle();
}

void MainWindow::cancelLoads() {
  for (SessionLoadJob* job : jobs_) job->cancel();
  for (SessionExportJob* job : exports_) job->cancel();
}

void MainWindow::updateStatus() {
  bool busy = !jobs_.isEmpty() || !exports_.isEmpty();
  progress_->setVisible(busy);
  cancelButton_->setVisible(busy);
  cancelAction_->setEnabled(busy);
  closeAction_->setEnabled(tabs_->count() > 0);
  exportAction_->setEnabled(tabs_->count() > 0);
  if (busy) {
    double sum = 0;
    for (SessionLoadJob* job : jobs_) sum += job->progress();
    for (SessionExportJob* job : exports_) sum += job->progress();
    progress_->setValue(static_cast<int>(1000 * sum / (jobs_.size() + exports_.size())));
    if (!exports_.isEmpty()) {
      statusLabel_->setText(
          tr("Exporting %1…").arg(QFileInfo(exports_.front()->path()).fileName()));
    } else {
      statusLabel_->setText(jobs_.size() == 1 ? tr("Loading %1…").arg(jobs_.front()->title())
                                              : tr("Loading %1 sessions…").arg(jobs_.size()));
    }
  } else {
    // What the tabs hold, by kind: a what-if or a comparison is no session.
    int sessions = 0, whatIfs = 0, comparisons = 0, models = 0, sweeps = 0;
    for (int i = 0; i < tabs_->count(); ++i) {
      QWidget* w = tabs_->widget(i);
      sessions += qobject_cast<SessionView*>(w) != nullptr;
      whatIfs += qobject_cast<SimulationView*>(w) != nullptr;
      comparisons += qobject_cast<CompareView*>(w) != nullptr;
      models += qobject_cast<ModelView*>(w) != nullptr;
      sweeps += qobject_cast<SweepView*>(w) != nullptr;
    }
    QStringList parts;
    auto count = [&parts](int n, const QString& one, const QString& many) {
      if (n) parts << (n == 1 ? one : many.arg(n));
    };
    count(sessions, tr("1 session"), tr("%1 sessions"));
    count(models, tr("1 model"), tr("%1 models"));
    count(whatIfs, tr("1 what-if"), tr("%1 what-ifs"));
    count(comparisons, tr("1 comparison"), tr("%1 comparisons"));
    count(sweeps, tr("1 sweep"), tr("%1 sweeps"));
    statusLabel_->setText(parts.isEmpty() ? tr("Ready")
                                          : tr("%1 open").arg(parts.join(QStringLiteral(", "))));
  }
}

QString MainWindow::statusText() const {
  return statusLabel_->text();
}

void MainWindow::updateCentral() {
  stack_->setCurrentIndex(tabs_->count() > 0 ? 1 : 0);
  closeAction_->setEnabled(tabs_->count() > 0);
}

int MainWindow::sessionCount() const {
  return tabs_->count();
}

SessionView* MainWindow::sessionView(int index) const {
  return qobject_cast<SessionView*>(tabs_->widget(index));
}

TimelineCanvas* MainWindow::currentTimeline() const {
  QWidget* tab = tabs_->currentWidget();
  if (!tab) return nullptr;
  for (QWidget* w = QApplication::focusWidget(); w; w = w->parentWidget()) {
    if (auto* canvas = qobject_cast<TimelineCanvas*>(w); canvas && tab->isAncestorOf(canvas))
      return canvas;
  }
  TimelineCanvas* first = nullptr;
  for (TimelineCanvas* c : tab->findChildren<TimelineCanvas*>()) {
    if (c->isVisibleTo(tab)) return c;
    if (!first) first = c;
  }
  return first;
}

void MainWindow::closeCurrent() {
  if (tabs_->count() > 0) closeTab(tabs_->currentIndex());
}

void MainWindow::closeTab(int index) {
  QWidget* w = tabs_->widget(index);
  tabs_->removeTab(index);
  delete w;  // releases the session unless another view shares it
  updateStatus();
  updateCentral();
}

QStringList MainWindow::recentFiles() const {
  return QSettings().value(kRecentKey).toStringList();
}

void MainWindow::addRecent(const QString& path) {
  QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList recent = recentFiles();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > kMaxRecent) recent.removeLast();
  QSettings().setValue(kRecentKey, recent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  welcomeRecent_->clear();
  const QStringList recent = recentFiles();
  for (const QString& path : recent) {
    QAction* a = recentMenu_->addAction(QFileInfo(path).fileName());
    a->setToolTip(path);
    a->setStatusTip(path);
    connect(a, &QAction::triggered, this, [this, path] { openFiles({path}); });
    auto* item =
        new QListWidgetItem(QStringLiteral("%1 — %2").arg(QFileInfo(path).fileName(), path));
    item->setData(Qt::UserRole, path);
    welcomeRecent_->addItem(item);
  }
  recentMenu_->setEnabled(!recent.isEmpty());
  if (!recent.isEmpty()) {
    recentMenu_->addSeparator();
    recentMenu_->addAction(tr("Clear Menu"), this, [this] {
      QSettings().remove(kRecentKey);
      rebuildRecentMenu();
    });
  }
}

void MainWindow::showAbout() {
  QMessageBox::about(this, tr("About Tensorscope"),
                     tr("<h3>Tensorscope %1</h3><p>A profiler for GPU training runs: capture, "
                        "timeline, imports, memory-tier simulation.</p><p>Built with Qt %2.</p>")
                         .arg(QString::fromUtf8(kVersion), QString::fromUtf8(qVersion())));
}

void MainWindow::showShortcuts() {
  ShortcutsDialog dialog(shortcutActions(), this);
  dialog.exec();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) paths.push_back(url.toLocalFile());
  }
  if (!paths.isEmpty()) {
    openFiles(paths);
    event->acceptProposedAction();
  }
}

void MainWindow::captureDialog() {
#ifndef TSCOPE_HAVE_CAPTURE
  startCapture({});
#else
  if (capturing()) {
    showError(tr("Capture"), tr("A capture is already running; stop it first."));
    return;
  }
  auto* dialog = new CaptureDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    QString error;
    CaptureRequest r = dialog->request(&error);
    if (error.isEmpty()) startCapture(r);
  });
  dialog->open();
#endif
}

bool MainWindow::capturing() const {
#ifdef TSCOPE_HAVE_CAPTURE
  return capture_ && capture_->running();
#else
  return false;
#endif
}

void MainWindow::startCapture(const CaptureRequest& request) {
#ifndef TSCOPE_HAVE_CAPTURE
  (void)request;
  showError(
      tr("Capture unavailable"),
      tr("This Tensorscope was built without the CUDA toolkit (CUPTI), so it cannot record "
         "programs. "
         "Build it on a machine with the toolkit at /usr/local/cuda, or capture elsewhere with "
         "'tensorscope-cli capture' and open the .tscope file here."));
#else
  if (capturing()) return;
  capture::CaptureOptions o;
  for (const QString& a : request.argv) o.argv.push_back(a.toStdString());
  for (const auto& [k, v] : request.env) o.env.emplace_back(k.toStdString(), v.toStdString());
  o.workingDirectory = request.workingDirectory.toStdString();
  o.output = capture::expandOutputName(request.output.toStdString());
  o.durationSeconds = request.durationSeconds;
  o.kinds = request.kinds.join(QLatin1Char(',')).toStdString();
  o.saveIntervalSeconds = 1;  // the live view: a new snapshot every second
  delete capture_;
  capture_ = new CaptureJob(o, this);
  captureView_ = nullptr;
  const QString program = QFileInfo(request.argv.value(0)).fileName();
  captureStatus_->setText(tr("Capturing %1…").arg(program));
  captureStatus_->show();
  stopButton_->show();
  connect(capture_, &CaptureJob::progressed, this,
          [this, program](const capture::CaptureProgress& p) {
            captureStatus_->setText(tr("Capturing %1: %2, %3 events, %4 dropped, %5 process(es)")
                                        .arg(program,
                                             QString::fromStdString(formatDuration(
                                                 static_cast<TimeNs>(p.elapsedSeconds * 1e9))),
                                             QString::fromStdString(formatCount(p.events)),
                                             QString::fromStdString(formatCount(p.dropped)))
                                        .arg(p.processes));
          });
  connect(capture_, &CaptureJob::snapshot, this, &MainWindow::showCaptureSnapshot);
  connect(capture_, &CaptureJob::finished, this,
          [this](bool ok, const QString& message, const QStringList& messages) {
            stopButton_->hide();
            captureStatus_->hide();
            if (!ok) {
              showError(tr("Capture failed"), message);
            } else {
              statusBar()->showMessage(message, 15000);
              if (!messages.isEmpty()) showError(tr("Capture"), messages.join(QLatin1Char('\n')));
              if (captureView_) {
                // The last snapshot is the saved file: show it under its name.
                QString path = QString::fromStdString(capture_->options().output);
                replaceCaptureView(captureView_->session(), path, false);
                int index = tabs_->indexOf(captureView_);
                if (index >= 0) {
                  tabs_->setTabText(index, QFileInfo(path).fileName());
                  tabs_->setTabToolTip(index, path);
                  captureView_->timeline()->setPersistenceKey(QFileInfo(path).absoluteFilePath());
                }
                addRecent(path);
              }
            }
            emit captureFinished(ok, message);
          });
  capture_->start();
#endif
}

// Each periodic save of a running capture: the tab shows the newest snapshot, keeping the zoom
// when the user zoomed in and following the growth otherwise.
void MainWindow::showCaptureSnapshot(SessionPtr session) {
  replaceCaptureView(std::move(session), tr("Capture (live)"), true);
}

void MainWindow::replaceCaptureView(SessionPtr session, const QString& title, bool live) {
  if (!session) return;
  auto* view = newSessionView(std::move(session), title);
  view->setLive(live);
  if (captureView_ && tabs_->indexOf(captureView_) >= 0) {
    int index = tabs_->indexOf(captureView_);
    const Session& old = *captureView_->session();
    TimelineCanvas* canvas = captureView_->timeline();
    TimeNs t0 = canvas->axis().start(), t1 = canvas->axis().end(canvas->canvasWidth());
    bool zoomed = t0 > old.startTime() || t1 < old.endTime();
    bool current = tabs_->currentIndex() == index;
    tabs_->removeTab(index);
    tabs_->insertTab(index, view, title);
    if (current) tabs_->setCurrentIndex(index);
    if (zoomed) view->timeline()->zoomTo(t0, t1);
    captureView_->deleteLater();
  } else {
    int index = tabs_->addTab(view, title);
    tabs_->setCurrentIndex(index);
  }
  captureView_ = view;
  updateCentral();
  emit captureUpdated();
}

void MainWindow::askStopCapture() {
  if (!capturing()) return;
  QMessageBox box(QMessageBox::Question, tr("Stop capture"),
                  tr("Stop recording. Terminate the program too?"),
                  QMessageBox::Yes | QMessageBox::No | QMessageBox::Cancel, this);
  box.button(QMessageBox::Yes)->setText(tr("Stop and terminate"));
  box.button(QMessageBox::No)->setText(tr("Stop, let it run"));
  int answer = box.exec();
  if (answer == QMessageBox::Cancel) return;
  stopCapture(answer == QMessageBox::Yes);
}

void MainWindow::stopCapture(bool terminateProgram) {
#ifdef TSCOPE_HAVE_CAPTURE
  if (capture_) capture_->stop(terminateProgram);
#else
  (void)terminateProgram;
#endif
}

Status MainWindow::exportTimelineImage(const QString& path) {
  SessionView* view = sessionView(tabs_->currentIndex());
  if (!view) return Error{tr("no session is open").toStdString()};
  ImageFormat format;
  if (!imageFormatFromName(path.section(QLatin1Char('.'), -1).toLower(), format))
    return Error{tr("%1: choose .png, .svg or .pdf").arg(path).toStdString()};
  TimelineCanvas* canvas = view->timeline();
  return exportPainting([canvas](QPainter& p, QSize s) { canvas->render(p, s); }, canvas->size(),
                        format, path, format == ImageFormat::Png ? 2.0 : 1.0,
                        QFileInfo(view->path()).fileName());
}

void MainWindow::exportTimelineImageDialog() {
  if (!sessionView(tabs_->currentIndex())) return;
  QString path = QFileDialog::getSaveFileName(this, tr("Export timeline image"),
                                              QStringLiteral("timeline.png"),
                                              tr("PNG image (*.png);;SVG (*.svg);;PDF (*.pdf)"));
  if (path.isEmpty()) return;
  if (Status st = exportTimelineImage(path); !st.ok())
    showError(tr("Cannot export"), QString::fromStdString(st.error()));
  else
    statusBar()->showMessage(tr("Saved %1").arg(path), 10000);
}

bool MainWindow::compareSessions(int tabA, int tabB) {
  SessionView* a = sessionView(tabA);
  SessionView* b = sessionView(tabB);
  if (!a || !b || tabA == tabB) return false;
  QString nameA = tabs_->tabText(tabA), nameB = tabs_->tabText(tabB);
  auto* view = new CompareView(a->session(), nameA, b->session(), nameB, tabs_);
  addCompareTab(view, tr("%1 ↔ %2").arg(nameA, nameB));
  return true;
}

void MainWindow::compareDialog() {
  QList<int> sessions;
  for (int i = 0; i < tabs_->count(); ++i) {
    if (sessionView(i)) sessions << i;
  }
  if (sessions.size() < 2) {
    showError(tr("Compare sessions"),
              tr("Open two sessions first (for example before and after an optimisation)."));
    return;
  }
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Compare sessions"));
  auto* form = new QFormLayout(&dialog);
  auto* first = new QComboBox(&dialog);
  auto* second = new QComboBox(&dialog);
  for (int i : sessions) {
    first->addItem(tabs_->tabText(i), i);
    second->addItem(tabs_->tabText(i), i);
  }
  // The two sessions opened last, the newer as B.
  const auto [a, b] = compareDefaults();
  first->setCurrentIndex(first->findData(a));
  second->setCurrentIndex(second->findData(b));
  form->addRow(tr("A (before):"), first);
  form->addRow(tr("B (after):"), second);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) return;
  if (!compareSessions(first->currentData().toInt(), second->currentData().toInt())) {
    showError(tr("Compare sessions"), tr("Choose two different sessions."));
  }
}

}  // namespace ts
