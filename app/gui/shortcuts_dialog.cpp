#include "app/gui/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QTableWidget>
#include <QVBoxLayout>

#include "views/timeline/timeline_canvas.h"

namespace ts {

namespace {

QString plain(QString text) {
  return text.remove(QLatin1Char('&')).remove(QStringLiteral("…"));
}

// The menu an action sits in ("File", "View"); empty for one in no menu.
QString menuOf(const QAction* action) {
  for (QObject* o : action->associatedObjects()) {
    if (auto* menu = qobject_cast<QMenu*>(o)) return plain(menu->title());
  }
  return {};
}

}  // namespace

ShortcutsDialog::ShortcutsDialog(const QList<QAction*>& actions, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Keyboard Shortcuts"));
  auto* layout = new QVBoxLayout(this);
  // Grouped by menu, in menu order (as the user meets them), then the timeline's own gestures.
  // An action's other keys (the canvas's Home for Show All) share its row: one row per thing.
  struct Row {
    QString group, action, keys;
  };
  QList<Row> rows;
  QStringList groups;
  for (QAction* a : actions) {
    QString group = menuOf(a);
    if (!groups.contains(group)) groups << group;
    QStringList keys;
    for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
    const QString more = a->property(kMoreKeysProperty).toString();
    if (!more.isEmpty()) keys << more;
    rows.push_back({group, plain(a->text()), keys.join(QStringLiteral(", "))});
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& x, const Row& y) {
    return groups.indexOf(x.group) < groups.indexOf(y.group);
  });
  for (const auto& [action, keys] : TimelineCanvas::navigationHelp())
    rows.push_back({tr("Timeline"), action, keys});

  auto* table = new QTableWidget(0, 2, this);
  table->setObjectName(QStringLiteral("shortcutsTable"));
  table->setHorizontalHeaderLabels({tr("Action"), tr("Shortcut")});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  QString group;
  for (const Row& r : rows) {
    const int at = table->rowCount();
    if (r.group != group || at == 0) {  // a heading row per menu
      group = r.group;
      table->insertRow(at);
      auto* heading = new QTableWidgetItem(group.isEmpty() ? tr("Other") : group);
      QFont bold = heading->font();
      bold.setBold(true);
      heading->setFont(bold);
      heading->setFlags(Qt::ItemIsEnabled);
      table->setItem(at, 0, heading);
      table->setSpan(at, 0, 1, 2);
    }
    const int row = table->rowCount();
    table->insertRow(row);
    table->setItem(row, 0, new QTableWidgetItem(QStringLiteral("    ") + r.action));
    table->setItem(row, 1, new QTableWidgetItem(r.keys));
  }
  // The keys are what the dialog is for: their column is as wide as its longest entry.
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  layout->addWidget(table);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  // Tall enough for every row without scrolling on a 1280×800 screen, wide enough for the keys.
  const int rowsHeight = table->verticalHeader()->defaultSectionSize() * (table->rowCount() + 1);
  resize(std::max(640, 360 + table->horizontalHeader()->sectionSize(1)),
         std::min(720, rowsHeight + 90));
}

}  // namespace ts
