// tensorscope: the GUI. `tensorscope [FILE...] [--simulate MODEL --batch N] [--screenshot
// OUT.png]`.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>
#include <memory>

#include "app/gui/main_window.h"
#include "app/gui/simulation_flow.h"
#include "app/gui/theme.h"
#include "app/gui/walk_report.h"
#include "util/version.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("Tensorscope"));
  QApplication::setOrganizationName(QStringLiteral("Tensorscope"));
  QApplication::setApplicationVersion(QString::fromUtf8(ts::kVersion));
  // Ties the window to its desktop entry (Wayland app id, task bar icon): the AppStream id.
  QGuiApplication::setDesktopFileName(QStringLiteral("org.tensorscope.Tensorscope"));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Tensorscope: a profiler for GPU training runs."));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption screenshot(
      QStringLiteral("screenshot"),
      QStringLiteral("Render the main window to a PNG once every file has "
                     "loaded, then exit (works with QT_QPA_PLATFORM=offscreen)."),
      QStringLiteral("FILE"));
  parser.addOption(screenshot);
  QCommandLineOption ranks(QStringLiteral("ranks"),
                           QStringLiteral("Open the files together as one multi-rank session."));
  parser.addOption(ranks);
  QCommandLineOption simulate(
      QStringLiteral("simulate"),
      QStringLiteral("Once the run has loaded, simulate MODEL's memory tiers on its timeline "
                     "(Model > Simulate Memory Tiers): an ONNX file or a built-in model's name "
                     "(tensorscope-cli model zoo)."),
      QStringLiteral("MODEL"));
  parser.addOption(simulate);
  QCommandLineOption batch(QStringLiteral("batch"),
                           QStringLiteral("The run's batch size, with --simulate (default 32)."),
                           QStringLiteral("N"), QStringLiteral("32"));
  parser.addOption(batch);
  parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("Session files to open."),
                               QStringLiteral("[FILE...]"));
  parser.process(app);

  bool batchOk = false;
  const int batchSize = parser.value(batch).toInt(&batchOk);
  if (!batchOk || batchSize < 1) {
    std::fprintf(stderr, "tensorscope: --batch %s: not a positive number\n",
                 qPrintable(parser.value(batch)));
    return 2;
  }
  ts::applyTheme(ts::savedTheme());  // System too: the platform's style, combos dropping down
  ts::MainWindow window;
  window.show();
  ts::installWalkReport(window);  // only with TSCOPE_WALK_REPORT set (the GUI walk test)
  QString modelPath = parser.value(simulate);
  if (!modelPath.isEmpty() && !QFileInfo::exists(modelPath)) {  // a built-in model's name
    modelPath = window.simulation()->zooModelFile(QStringLiteral("--simulate"), modelPath);
    if (modelPath.isEmpty()) {
      std::fprintf(stderr, "tensorscope: --simulate %s: no such file or built-in model (%s)\n",
                   qPrintable(parser.value(simulate)), qPrintable(window.lastError()));
      return 2;
    }
  }
  const QString shotPath = parser.value(screenshot);
  int exitCode = 0;
  if (!shotPath.isEmpty()) {
    auto takeShot = [&] {
      QApplication::processEvents();
      QImage image = window.grab().toImage();
      if (!image.save(shotPath, "PNG")) {
        std::fprintf(stderr, "tensorscope: cannot write screenshot %s\n", qPrintable(shotPath));
        exitCode = 1;
      }
      if (!window.lastError().isEmpty()) {
        std::fprintf(stderr, "tensorscope: %s\n", qPrintable(window.lastError()));
        exitCode = 1;
      }
      QApplication::exit(exitCode);
    };
    // takeShot is copied: this block ends long before the signal fires. With --simulate, the
    // shot waits for the simulation (its pane says when it has a result or an error).
    if (modelPath.isEmpty())
      QObject::connect(&window, &ts::MainWindow::idle, &window,
                       [&window, takeShot] { QTimer::singleShot(100, &window, takeShot); });
    else {
      QObject::connect(window.simulation(), &ts::SimulationFlow::overlayUpdated, &window,
                       [&window, takeShot] { QTimer::singleShot(300, &window, takeShot); });
      QObject::connect(&window, &ts::MainWindow::loadFailed, &window,
                       [&window, takeShot] { QTimer::singleShot(100, &window, takeShot); });
    }
    if (parser.positionalArguments().isEmpty()) QTimer::singleShot(100, &window, takeShot);
  }
  if (!modelPath.isEmpty()) {  // on the first session that opens
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = QObject::connect(
        &window, &ts::MainWindow::sessionOpened, &window, [&window, once, modelPath, batchSize] {
          QObject::disconnect(*once);
          window.simulation()->onTimeline(window.tabs()->currentIndex(), modelPath, batchSize);
        });
  }
  if (parser.isSet(ranks))
    window.openRanks(parser.positionalArguments());
  else
    window.openFiles(parser.positionalArguments());
  int rc = app.exec();
  return exitCode ? exitCode : rc;
}
