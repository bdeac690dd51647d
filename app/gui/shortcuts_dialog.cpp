#include "app/gui/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "views/timeline/timeline_canvas.h"

namespace ts {

ShortcutsDialog::ShortcutsDialog(const QList<QAction*>& actions, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Keyboard Shortcuts"));
  auto* layout = new QVBoxLayout(this);
  const auto navigation = TimelineCanvas::navigationHelp();
  auto* table = new QTableWidget(static_cast<int>(actions.size() + navigation.size()), 2, this);
  table->setObjectName(QStringLiteral("shortcutsTable"));
  table->setHorizontalHeaderLabels({tr("Action"), tr("Shortcut")});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  for (int i = 0; i < actions.size(); ++i) {
    QString text = actions[i]->text().remove(QLatin1Char('&')).remove(QStringLiteral("…"));
    table->setItem(i, 0, new QTableWidgetItem(text));
    table->setItem(i, 1,
                   new QTableWidgetItem(actions[i]->shortcut().toString(QKeySequence::NativeText)));
  }
  for (int i = 0; i < navigation.size(); ++i) {
    table->setItem(static_cast<int>(actions.size()) + i, 0,
                   new QTableWidgetItem(navigation[i].first));
    table->setItem(static_cast<int>(actions.size()) + i, 1,
                   new QTableWidgetItem(navigation[i].second));
  }
  table->setSortingEnabled(true);
  layout->addWidget(table);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(560, 460);
}

}  // namespace ts
