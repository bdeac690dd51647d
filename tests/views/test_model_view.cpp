// The model panel on the zoo's ResNet-50, offscreen: the layer table and its totals, the batch
// control, the training-step list, ASTRA-sim and Chakra export, a bad file; a screenshot is saved
// beside the test binary.
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "app/gui/main_window.h"
#include "app/gui/simulation_flow.h"
#include "model/model_zoo.h"
#include "views/models/model_title.h"
#include "views/models/model_view.h"
#include "views/session/stats_table_model.h"
#include "views/session/table_panel.h"

using namespace ts;

namespace {

bool waitFor(ModelView& view) {
  QSignalSpy spy(&view, &ModelView::updated);
  return !view.busy() || spy.wait(15000);
}

double total(TablePanel* panel, const char* column) {
  const StatsTable& t = panel->model()->table();
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c].key == column) return t.number(t.rows.size() - 1, c);
  }
  return -1;
}

}  // namespace

class TestModelView : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    path_ = dir_.filePath(QStringLiteral("resnet50.onnx"));
    std::ofstream(path_.toStdString(), std::ios::binary) << *model::zooModelBytes("resnet50");
  }

  void opensFromTheWindowWithItsTables() {
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QSignalSpy opened(&window, &MainWindow::modelOpened);
    window.openFiles({path_});  // .onnx files open as models
    QVERIFY(opened.wait(15000));
    QCOMPARE(opened.front().at(1).toBool(), true);
    auto* view = qobject_cast<ModelView*>(window.tabs()->currentWidget());
    QVERIFY(view);
    QCOMPARE(total(view->layers(), "parameters"), 25'557'032.0);
    QCOMPARE(view->layers()->model()->rowCount(), 176);  // 175 ops and the totals
    double activations1 = total(view->layers(), "activation_bytes");
    view->setBatch(8);
    QVERIFY(waitFor(*view));
    QCOMPARE(total(view->layers(), "activation_bytes"), 8 * activations1);
    QVERIFY(view->kernels()->model()->rowCount() > 175 * 2);
    view->layers()->filter()->setText(QStringLiteral("layer4.2"));
    QVERIFY(view->layers()->proxy()->rowCount() > 5 && view->layers()->proxy()->rowCount() < 20);
    window.grab().save(QStringLiteral("model-resnet50.png"));
    // The Export button shows its whole text beside its menu arrow.
    auto* exportButton = view->findChild<QPushButton*>(QStringLiteral("modelExport"));
    QVERIFY(exportButton && exportButton->menu());
    QVERIFY(exportButton->width() >=
            exportButton->fontMetrics().horizontalAdvance(exportButton->text()) + 20);
  }

  void exportsAstraAndChakra() {
    ModelView view(path_);
    QVERIFY(waitFor(view));
    QString astra = dir_.filePath(QStringLiteral("r50.txt"));
    QVERIFY(view.exportAstra(astra, QStringLiteral("DATA"), 8, true).ok());
    QFile f(astra);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QList<QByteArray> lines = f.readAll().split('\n');
    QCOMPARE(lines.size(), 56);  // DATA, 54, then a line per layer
    QCOMPARE(lines[1], QByteArray("54"));
    QVERIFY(view.exportChakra(dir_.filePath(QStringLiteral("r50")), 2, false).ok());
    QVERIFY(QFile::exists(dir_.filePath(QStringLiteral("r50.1.et"))));
    QVERIFY(!view.exportAstra(astra, QStringLiteral("PIPELINE"), 8, true).ok());
  }

  void aBuiltInModelIsTitledByItsName() {
    QStandardPaths::setTestModeEnabled(true);  // the cache the built-in models go to
    MainWindow window;
    const QString file =
        window.simulation()->zooModelFile(QStringLiteral("test"), QStringLiteral("alexnet"));
    QVERIFY2(!file.isEmpty(), qPrintable(window.lastError()));
    QCOMPARE(ts::modelTitle(file), QStringLiteral("alexnet (built-in)"));
    QCOMPARE(ts::modelTitle(path_), QFileInfo(path_).fileName());  // a user's file
    QSignalSpy opened(&window, &MainWindow::modelOpened);
    window.openModel(file);
    QCOMPARE(window.tabs()->tabText(window.tabs()->currentIndex()),
             QStringLiteral("alexnet (built-in)"));
    QVERIFY(opened.wait(15000));
    // Model → Open Built-in Model lists the zoo and opens one as a tab (before, only a file
    // dialog did, and a built-in needed `tensorscope-cli model zoo NAME -o` first).
    auto* menu = window.findChild<QMenu*>(QStringLiteral("builtInModels"));
    QVERIFY(menu);
    QCOMPARE(menu->actions().size(), static_cast<qsizetype>(model::zooModels().size()));
    QAction* resnet = nullptr;
    for (QAction* a : menu->actions())
      if (a->text() == QStringLiteral("resnet50")) resnet = a;
    QVERIFY(resnet);
    resnet->trigger();
    QCOMPARE(window.tabs()->tabText(window.tabs()->currentIndex()),
             QStringLiteral("resnet50 (built-in)"));
    QVERIFY(opened.wait(15000));
  }

  void aBadModelSaysWhy() {
    QString junk = dir_.filePath(QStringLiteral("junk.onnx"));
    std::ofstream(junk.toStdString()) << "not a model";
    MainWindow window;
    QSignalSpy opened(&window, &MainWindow::modelOpened);
    window.openModel(junk);
    QVERIFY(opened.wait(15000));
    QCOMPARE(opened.front().at(1).toBool(), false);
    QVERIFY2(window.lastError().contains(QStringLiteral("junk.onnx")),
             qPrintable(window.lastError()));
  }

 private:
  QTemporaryDir dir_;
  QString path_;
};

QTEST_MAIN(TestModelView)
#include "test_model_view.moc"
