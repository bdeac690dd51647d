// tensorscope: the GUI. `tensorscope [FILE...] [--screenshot OUT.png]`.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>

#include "app/gui/main_window.h"
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
  parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("Session files to open."),
                               QStringLiteral("[FILE...]"));
  parser.process(app);

  ts::MainWindow window;
  window.show();
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
    // takeShot is copied: this block ends long before the signal fires.
    QObject::connect(&window, &ts::MainWindow::idle, &window,
                     [&window, takeShot] { QTimer::singleShot(100, &window, takeShot); });
    if (parser.positionalArguments().isEmpty()) QTimer::singleShot(100, &window, takeShot);
  }
  if (parser.isSet(ranks))
    window.openRanks(parser.positionalArguments());
  else
    window.openFiles(parser.positionalArguments());
  int rc = app.exec();
  return exitCode ? exitCode : rc;
}
