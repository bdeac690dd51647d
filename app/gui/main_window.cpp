#include "app/gui/main_window.h"

#include <QAbstractButton>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <functional>

#include "app/gui/advise_flow.h"
#include "app/gui/capture_flow.h"
#include "app/gui/compare_flow.h"
#include "app/gui/export_flow.h"
#include "app/gui/open_flow.h"
#include "app/gui/shortcuts_dialog.h"
#include "app/gui/simulation_flow.h"
#include "app/gui/theme.h"
#include "model/model_zoo.h"
#include "util/version.h"
#include "views/models/model_view.h"
#include "views/session/name_style.h"
#include "views/session/session_view.h"
#include "views/simulation/compare_view.h"
#include "views/simulation/simulation_view.h"
#include "views/simulation/sweep_view.h"
#include "views/timeline/timeline_canvas.h"

// Q_INIT_RESOURCE must be called outside any namespace; the resources live in a static library.
static void initResources() {
  Q_INIT_RESOURCE(resources);
}

namespace ts {

namespace {
constexpr int kMaxRecent = 10;
const char* kRecentKey = "recentFiles";
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

  // The flows the menus start; each holds its own work, the window only its tabs and bars.
  compare_ = new CompareFlow(*this, this);
  exports_ = new ExportFlow(*this, this);
  simulation_ = new SimulationFlow(*this, *compare_, this);
  advise_ = new AdviseFlow(*this, this);
  capture_ = new CaptureFlow(*this, statusBar(), this);
  open_ = new OpenFlow(*this, *simulation_, this);
  auto progressed = [this] {
    updateStatus();
    if (!open_->pending() && !exports_->pending()) emit idle();
  };
  connect(exports_, &ExportFlow::progressed, this, progressed);
  connect(open_, &OpenFlow::progressed, this, progressed);
  connect(open_, &OpenFlow::sessionOpened, this, &MainWindow::sessionOpened);
  connect(open_, &OpenFlow::modelOpened, this, &MainWindow::modelOpened);
  connect(open_, &OpenFlow::loadFailed, this, [this](const QString& path, const QString& message) {
    lastError_ = message;
    emit loadFailed(path, message);
  });

  createActions();
  cancelButton_->setDefaultAction(cancelAction_);
  rebuildRecentMenu();
  updateStatus();
  updateCentral();
}

MainWindow::~MainWindow() {
  open_->cancel();
}

void MainWindow::createActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  openAction_ = file->addAction(tr("&Open…"), open_, &OpenFlow::dialog);
  openAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
  openAction_->setStatusTip(tr("Open one or more session files"));
  openRanksAction_ = file->addAction(tr("Open as &Ranks…"), open_, &OpenFlow::ranksDialog);
  openRanksAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  openRanksAction_->setStatusTip(tr("Open several trace files as one multi-rank session"));
  openModelAction_ = file->addAction(tr("Open &Model…"), open_, &OpenFlow::modelDialog);
  openModelAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
  openModelAction_->setStatusTip(
      tr("Open an ONNX model: layer table, training step, ASTRA-sim and Chakra export"));
  QAction* openSweepAction = file->addAction(tr("Open &Sweep Results…"), this, [this] {
    QString path = QFileDialog::getOpenFileName(
        this, tr("Open sweep results"), {}, tr("simulate --sweep tables (*.csv);;All files (*)"));
    if (!path.isEmpty()) simulation_->openSweep(path);
  });
  openSweepAction->setStatusTip(
      tr("A memory-tier sweep written by tensorscope-cli simulate --sweep: table and sensitivity "
         "chart"));
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  captureAction_ = file->addAction(tr("&Capture…"), capture_, &CaptureFlow::dialog);
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
  exportAction_ = file->addAction(tr("&Export…"), exports_, &ExportFlow::dialog);
  exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  exportAction_->setStatusTip(tr("Save the session as .tscope, Chrome trace JSON or CSV"));
  file->addAction(tr("Co&mpare Sessions…"), compare_, &CompareFlow::dialog)
      ->setStatusTip(tr("Two open sessions side by side: synchronised timelines, kernels and "
                        "copies with the change"));
  exportImageAction_ =
      file->addAction(tr("Export &Timeline Image…"), exports_, &ExportFlow::timelineImageDialog);
  exportImageAction_->setStatusTip(
      tr("Save the visible timeline (labels, ruler, legend) as PNG, SVG or PDF"));
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

  createSimulationMenus();

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  shortcutsAction_ = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
  shortcutsAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
  aboutAction_ = help->addAction(tr("&About Tensorscope"), this, &MainWindow::showAbout);
}

// The Model and Simulate menus: models, and simulations of memory tiers and of advice.
void MainWindow::createSimulationMenus() {
  QMenu* model = menuBar()->addMenu(tr("&Model"));
  model->addAction(openModelAction_);
  // The built-in models as tabs of their own, as the simulate dialogs offer them.
  QMenu* builtIn = model->addMenu(tr("Open &Built-in Model"));
  builtIn->setObjectName(QStringLiteral("builtInModels"));
  for (const std::string& name : model::zooModels()) {
    const QString n = QString::fromStdString(name);
    builtIn->addAction(n, this, [this, n] {
      const QString path = simulation_->zooModelFile(tr("Open built-in model"), n);
      if (!path.isEmpty()) openModel(path);
    });
  }
  QAction* onTimeline = model->addAction(tr("&Simulate Memory Tiers…"), simulation_,
                                         &SimulationFlow::onTimelineDialog);
  onTimeline->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
  onTimeline->setStatusTip(
      tr("Simulate the run's model under a memory policy and draw it on this timeline: tier usage, "
         "transfers, tensor lanes"));
  simulateTimelineAction_ = onTimeline;

  QMenu* simulate = menuBar()->addMenu(tr("&Simulate"));
  simulate
      ->addAction(tr("&Advise: Share a GPU, Fewer Machines, Mixed GPUs…"), this,
                  [this] { advise_->open(); })
      ->setStatusTip(tr("Predict packing jobs onto one GPU, moving a job onto fewer machines, or "
                        "splitting it across GPU generations"));
  simulate->addSeparator();
  simulate->addAction(onTimeline);
  simulate
      ->addAction(tr("Memory Tiers of This Run Alone: Its &Own Allocations, No Model"), simulation_,
                  &SimulationFlow::ownTensorsOnTimeline)
      ->setStatusTip(tr("Plan every policy on the run itself, no model needed: its kernels with "
                        "their measured times and its own allocations (recorded with "
                        "profile_memory=True, or a memory snapshot)"));
  simulate
      ->addAction(tr("Memory Tiers of a &G10 Workload…"), simulation_,
                  &SimulationFlow::whatIfOfG10Dialog)
      ->setStatusTip(
          tr("What-if: G10 and its baselines on a G10 workload directory, or on any model and "
             "batch of a folder of G10's own inputs, with sliders for the tiers"));
  simulate
      ->addAction(tr("Memory Tiers of a &Model…"), simulation_,
                  &SimulationFlow::whatIfOfModelDialog)
      ->setStatusTip(tr("What-if: the training step of an ONNX model (roofline times) under the "
                        "memory policies"));
  simulateRunAction_ = simulate->addAction(tr("Memory Tiers of This &Run's Model…"), simulation_,
                                           &SimulationFlow::whatIfOfRunDialog);
  simulateRunAction_->setStatusTip(tr(
      "What would G10 do to this run: its model simulated with the run's measured kernel times"));
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

void MainWindow::openFiles(const QStringList& paths) {
  open_->openFiles(paths);
}

void MainWindow::openRanks(const QStringList& paths, const OpenOptions& options) {
  open_->openRanks(paths, options);
}

void MainWindow::openModel(const QString& path) {
  open_->openModel(path);
}

// Every session tab is made here, so each is wired once (however often it simulates).
SessionView* MainWindow::newSessionView(SessionPtr session, const QString& title,
                                        std::shared_ptr<const TimelineRows> rows) {
  auto* view = new SessionView(std::move(session), title, tabs_, std::move(rows));
  connect(view, &SessionView::compareSimulationRequested, compare_,
          [this, view] { compare_->withSimulation(view); });
  return view;
}

void MainWindow::addTab(QWidget* tab, const QString& title, const QString& tooltip) {
  const int index = tabs_->addTab(tab, title);
  tabs_->setTabToolTip(index, tooltip);
  tabs_->setCurrentIndex(index);
  updateCentral();
}

void MainWindow::showMessage(const QString& message, int milliseconds) {
  statusBar()->showMessage(message, milliseconds);
}

void MainWindow::changed() {
  updateStatus();
  updateCentral();
}

void MainWindow::showError(const QString& title, const QString& message) {
  lastError_ = message;
  // One line there: a message of several lines (a capture's warnings) keeps them apart.
  statusBar()->showMessage(QString(message).replace(QLatin1Char('\n'), QStringLiteral("; ")),
                           10000);
  // Not modal: a failed file must not block the others, nor a headless run.
  auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainWindow::cancelLoads() {
  open_->cancel();
  exports_->cancel();
}

void MainWindow::updateStatus() {
  bool busy = open_->pending() || exports_->pending();
  progress_->setVisible(busy);
  cancelButton_->setVisible(busy);
  cancelAction_->setEnabled(busy);
  closeAction_->setEnabled(tabs_->count() > 0);
  // Exports and what simulates "this run" need a run in the current tab (a what-if, a model or
  // a comparison tab has none: the actions would do nothing).
  const bool run = sessionView(tabs_->currentIndex()) != nullptr;
  exportAction_->setEnabled(run);
  if (exportImageAction_) exportImageAction_->setEnabled(run);
  if (simulateTimelineAction_) simulateTimelineAction_->setEnabled(run);
  if (simulateRunAction_) simulateRunAction_->setEnabled(run);
  if (busy) {
    const double sum = exports_->progressSum() + open_->progressSum();
    progress_->setValue(static_cast<int>(1000 * sum / (open_->pending() + exports_->pending())));
    if (exports_->pending()) {
      statusLabel_->setText(tr("Exporting %1…").arg(QFileInfo(exports_->firstPath()).fileName()));
    } else {
      statusLabel_->setText(open_->status());
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

void MainWindow::closeEvent(QCloseEvent* event) {
  if (exports_->pending() == 0 || stopSavesAndClose_) {
    if (stopSaveQuestion_) stopSaveQuestion_->close();
    if (stopSavesAndClose_) exports_->cancel();
    QMainWindow::closeEvent(event);
    return;
  }
  event->ignore();
  if (!closeWhenSaved_) {
    // What the user asked to save is written first: closing must not drop it halfway. The
    // window closes when the last save ends, whatever happens meanwhile.
    closeWhenSaved_ = true;
    statusBar()->showMessage(
        tr("Closing once %1 is saved (close again to stop the save)").arg(exports_->firstPath()));
    connect(exports_, &ExportFlow::exported, this, [this] {
      if (exports_->pending() == 0) close();
    });
    return;
  }
  if (stopSaveQuestion_) return;  // asked already
  // Not modal: if the save ends while the question is up, the window closes as promised.
  stopSaveQuestion_ = new QMessageBox(
      QMessageBox::Warning, tr("Save in progress"),
      tr("%1 is still being saved. Stop the save and close now? The file is left as it was "
         "before the save (or not created). Otherwise the window closes when the save ends.")
          .arg(exports_->firstPath()),
      QMessageBox::Discard | QMessageBox::Cancel, this);
  stopSaveQuestion_->button(QMessageBox::Discard)->setText(tr("Stop the save and close"));
  stopSaveQuestion_->button(QMessageBox::Cancel)->setText(tr("Wait for the save"));
  stopSaveQuestion_->setObjectName(QStringLiteral("stopSaveQuestion"));
  stopSaveQuestion_->setAttribute(Qt::WA_DeleteOnClose);
  connect(stopSaveQuestion_, &QMessageBox::finished, this, [this](int) {
    if (stopSaveQuestion_ &&
        stopSaveQuestion_->clickedButton() == stopSaveQuestion_->button(QMessageBox::Discard)) {
      stopSavesAndClose_ = true;
      QTimer::singleShot(0, this, &QWidget::close);
    }
  });
  stopSaveQuestion_->open();
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

}  // namespace ts
