// The track tree: model invariants (QAbstractItemModelTester) and a golden text dump.
#include <QAbstractItemModelTester>
#include <QFile>
#include <QtTest>

#include "io/tscope_file.h"
#include "session_fixture.h"
#include "views/session/session_tree_model.h"

using ts::SessionTreeModel;

namespace {

void dump(const QAbstractItemModel& m, const QModelIndex& parent, int depth, QString& out) {
  for (int r = 0; r < m.rowCount(parent); ++r) {
    QModelIndex name = m.index(r, 0, parent), count = m.index(r, 1, parent);
    out += QString(depth * 2, QLatin1Char(' ')) + name.data().toString() + QStringLiteral(" [") +
           count.data().toString() + QStringLiteral("]\n");
    dump(m, name, depth + 1, out);
  }
}

// The expected text of a golden file. With TSCOPE_UPDATE_GOLDEN=1 the file is (re)written from
// `actual` first: review the diff before committing it.
QString golden(const QString& name, const QString& actual) {
  QFile f(QStringLiteral(TSCOPE_GOLDEN_DIR "/") + name);
  if (qEnvironmentVariableIsSet("TSCOPE_UPDATE_GOLDEN") && f.open(QIODevice::WriteOnly)) {
    f.write(actual.toUtf8());
    f.close();
  }
  if (!f.open(QIODevice::ReadOnly)) return QStringLiteral("<missing golden file %1>").arg(name);
  return QString::fromUtf8(f.readAll());
}

}  // namespace

class TestSessionTreeModel : public QObject {
  Q_OBJECT
 private slots:
  void modelTesterOnFixtureAndSample() {
    for (bool multiRank : {false, true}) {
      SessionTreeModel model(ts::testing::makeFixtureSession(multiRank));
      QAbstractItemModelTester tester(&model,
                                      QAbstractItemModelTester::FailureReportingMode::QtTest);
      QVERIFY(model.rowCount() > 0);
    }
    auto sample = ts::loadSession(TSCOPE_SAMPLE);
    QVERIFY2(sample.ok(), sample.ok() ? "" : sample.error().c_str());
    SessionTreeModel model(sample.value());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  }

  void goldenTreeSingleRank() {
    SessionTreeModel model(ts::testing::makeFixtureSession(false));
    QString text;
    dump(model, {}, 0, text);
    QCOMPARE(text, golden(QStringLiteral("fixture_tree.txt"), text));
  }

  void goldenTreeMultiRank() {
    SessionTreeModel model(ts::testing::makeFixtureSession(true));
    QString text;
    dump(model, {}, 0, text);
    QCOMPARE(text, golden(QStringLiteral("fixture_tree_multirank.txt"), text));
  }

  void nodesCarryTheirTracks() {
    auto session = ts::testing::makeFixtureSession(false);
    SessionTreeModel model(session);
    QModelIndex gpu = model.index(0, 0);
    QModelIndex kernels = model.index(0, 0, gpu);
    QCOMPARE(kernels.data().toString(), QStringLiteral("Compute"));
    QVariantList tracks = kernels.data(SessionTreeModel::TracksRole).toList();
    QCOMPARE(tracks.size(), 1);
    QVERIFY(session->tracks[tracks[0].toUInt()].kind == ts::EventKind::Kernel);
  }
};

QTEST_MAIN(TestSessionTreeModel)
#include "test_session_tree_model.moc"
