#include "app/gui/open_ranks_dialog.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

namespace ts {

namespace {
QDoubleSpinBox* shiftEditor(QWidget* parent) {
  auto* spin = new QDoubleSpinBox(parent);
  spin->setRange(-1e12, 1e12);
  spin->setDecimals(3);
  spin->setSuffix(QStringLiteral(" µs"));
  spin->setToolTip(QObject::tr("Added to every timestamp of this rank after automatic alignment"));
  return spin;
}
}  // namespace

OpenRanksDialog::OpenRanksDialog(const QStringList& paths, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Open as One Multi-Rank Session"));
  auto* layout = new QVBoxLayout(this);
  auto* help = new QLabel(tr("Each file becomes a rank, in this order. Clocks are aligned on "
                             "wall-clock time when every file has it, else on each file's first "
                             "event; a shift moves one rank further."),
                          this);
  help->setWordWrap(true);
  layout->addWidget(help);
  table_ = new QTableWidget(static_cast<int>(paths.size()), 2, this);
  table_->setObjectName(QStringLiteral("ranksTable"));
  table_->setHorizontalHeaderLabels({tr("File"), tr("Shift")});
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  QStringList rows;
  for (int i = 0; i < paths.size(); ++i) rows << tr("rank %1").arg(i);
  table_->setVerticalHeaderLabels(rows);
  for (int i = 0; i < paths.size(); ++i) {
    auto* item = new QTableWidgetItem(QFileInfo(paths[i]).fileName());
    item->setData(Qt::UserRole, paths[i]);
    item->setToolTip(paths[i]);
    item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    table_->setItem(i, 0, item);
    table_->setCellWidget(i, 1, shiftEditor(table_));
  }
  layout->addWidget(table_);
  auto* moves = new QHBoxLayout;
  auto* up = new QPushButton(tr("Move &Up"), this);
  auto* down = new QPushButton(tr("Move &Down"), this);
  connect(up, &QPushButton::clicked, this, [this] { move(-1); });
  connect(down, &QPushButton::clicked, this, [this] { move(1); });
  moves->addWidget(up);
  moves->addWidget(down);
  moves->addStretch();
  layout->addLayout(moves);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(640, 320);
}

void OpenRanksDialog::move(int delta) {
  int row = table_->currentRow(), to = row + delta;
  if (row < 0 || to < 0 || to >= table_->rowCount()) return;
  // Swap the two rows' file and shift.
  QTableWidgetItem* a = table_->takeItem(row, 0);
  QTableWidgetItem* b = table_->takeItem(to, 0);
  table_->setItem(row, 0, b);
  table_->setItem(to, 0, a);
  auto* sa = static_cast<QDoubleSpinBox*>(table_->cellWidget(row, 1));
  auto* sb = static_cast<QDoubleSpinBox*>(table_->cellWidget(to, 1));
  double va = sa->value();
  sa->setValue(sb->value());
  sb->setValue(va);
  table_->setCurrentCell(to, 0);
}

QStringList OpenRanksDialog::paths() const {
  QStringList out;
  for (int i = 0; i < table_->rowCount(); ++i)
    out << table_->item(i, 0)->data(Qt::UserRole).toString();
  return out;
}

OpenOptions OpenRanksDialog::options() const {
  OpenOptions options;
  for (int i = 0; i < table_->rowCount(); ++i) {
    double us = static_cast<QDoubleSpinBox*>(table_->cellWidget(i, 1))->value();
    auto ns = static_cast<TimeNs>(std::llround(us * 1000.0));
    if (ns != 0) options.shiftNs[static_cast<size_t>(i)] = ns;
  }
  return options;
}

}  // namespace ts
