#include "views/session/table_panel.h"

#include <QClipboard>
#include <QEvent>
#include <QFileDialog>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTextLayout>
#include <QTextOption>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "io/atomic_file.h"
#include "views/session/name_style.h"
#include "views/session/stats_table_model.h"

namespace ts {

TablePanel::TablePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  bar_ = new QHBoxLayout;
  filter_ = new QLineEdit(this);
  filter_->setObjectName(QStringLiteral("tableFilter"));
  filter_->setPlaceholderText(tr("Filter rows"));
  filter_->setClearButtonEnabled(true);
  auto* copy = new QToolButton(this);
  copy->setText(tr("Copy"));
  copy->setToolTip(tr("Copy the selected rows (all shown rows when none is selected) as CSV"));
  auto* exportButton = new QToolButton(this);
  exportButton->setText(tr("Export…"));
  exportButton->setToolTip(tr("Save the shown rows as CSV or JSON"));
  bar_->addWidget(filter_, 1);
  bar_->addWidget(copy);
  bar_->addWidget(exportButton);
  layout->addLayout(bar_);
  model_ = new StatsTableModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(StatsTableModel::SortRole);
  proxy_->setFilterKeyColumn(-1);
  proxy_->setFilterRole(StatsTableModel::FilterRole);  // full kernel names, also when shown short
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  view_ = new QTableView(this);
  view_->setModel(proxy_);
  view_->setSortingEnabled(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->verticalHeader()->setDefaultSectionSize(18);
  view_->verticalHeader()->hide();
  view_->viewport()->installEventFilter(this);
  // A column the user widens or narrows takes its width from the filling one, as a stretched
  // section would.
  connect(view_->horizontalHeader(), &QHeaderView::sectionResized, this, [this](int column) {
    if (column != fill_) fillWidth();
  });
  // A name cut in its middle keeps both ends: the function and what tells it apart
  // ("vectorized_elementwise_ker…Functor<long> >, …>").
  view_->setTextElideMode(Qt::ElideMiddle);
  // One line per row: wrapped at ", " a name's second line fell below the 18 px row, and
  // "vectorized_elementwise_kernel<…, AddFunctor<float>, …>" read
  // "vectorized_elementwise_kernel<…,".
  view_->setWordWrap(false);
  layout->addWidget(view_, 1);
  notes_ = new QLabel(this);
  notes_->setWordWrap(true);
  notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  notes_->installEventFilter(this);
  layout->addWidget(notes_);
  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(&NameStyle::instance(), &NameStyle::changed, this, &TablePanel::fitColumns);
  connect(copy, &QToolButton::clicked, this, &TablePanel::copyRows);
  connect(exportButton, &QToolButton::clicked, this, &TablePanel::exportDialog);
}

void TablePanel::addControl(QWidget* control) {
  bar_->insertWidget(bar_->count() - 3, control);
}

void TablePanel::setNotes(const QString& notes) {
  notesText_ = notes;
  showNotes();
}

void TablePanel::showNotes() {
  // Laid out as the label wraps it (at word boundaries, at its width): up to two lines as they
  // are; more, and the second line ends in an ellipsis, the whole text in the tooltip.
  const int width = std::max(1, notes_->contentsRect().width());
  QTextLayout layout(notesText_, notes_->font());
  QTextOption wrap;
  wrap.setWrapMode(QTextOption::WordWrap);
  layout.setTextOption(wrap);
  layout.beginLayout();
  int secondStart = -1;
  bool third = false;
  for (int line = 0; line < 3; ++line) {
    QTextLine l = layout.createLine();
    if (!l.isValid()) break;
    l.setLineWidth(width);
    if (line == 1) secondStart = l.textStart();
    if (line == 2) third = true;
  }
  layout.endLayout();
  if (!third) {
    notes_->setText(notesText_);
    notes_->setToolTip({});
    return;
  }
  const QFontMetrics metrics(notes_->font());
  notes_->setText(notesText_.left(secondStart) +
                  metrics.elidedText(notesText_.mid(secondStart), Qt::ElideRight, width));
  notes_->setToolTip(QStringLiteral("<qt>%1</qt>").arg(notesText_.toHtmlEscaped()));
}

void TablePanel::setTable(StatsTable table) {
  QString notes;
  for (const std::string& n : table.notes) notes += QString::fromStdString(n) + QLatin1Char(' ');
  setNotes(notes.trimmed());
  model_->setTable(std::move(table));
  // Each table comes in its own order (by total, by GPU, by op): show that until the user sorts.
  view_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  proxy_->sort(-1);
  fitColumns();
}

// Columns as wide as their contents, names at most 480 px (they can be thousands of characters).
void TablePanel::fitColumns() {
  fill_ = -1;  // nothing fills while the columns take their contents' widths
  QHeaderView* header = view_->horizontalHeader();
  const std::vector<StatsColumn>& columns = model_->table().columns;
  // The column that takes the width left over: the name, else the last text column (an idle
  // gap's CPU activity, a GPU's label); never a number, which would sit far from its header.
  int name = -1, text = -1;
  for (int col = 0; col < static_cast<int>(columns.size()); ++col) {
    header->setSectionResizeMode(col, QHeaderView::Interactive);
    const StatsColumn& c = columns[static_cast<size_t>(col)];
    if (name < 0 && c.unit == StatsUnit::Text && (c.key == "name" || c.key == "kernel")) name = col;
    if (c.unit == StatsUnit::Text) text = col;
  }
  header->setStretchLastSection(false);
  view_->resizeColumnsToContents();
  for (int col = 0; col < model_->columnCount(); ++col)
    view_->setColumnWidth(
        col, std::min(view_->columnWidth(col) + 8, 480));  // + the cell margins elision keeps
  fill_ = name >= 0 ? name : text;
  // A long name may give way down to 260 px (elided, in full in its tooltip) before the table
  // scrolls sideways; a short label (a GPU's) keeps all of its width.
  fillMin_ = fill_ >= 0 ? std::min(view_->columnWidth(fill_), 260) : 0;
  fillWidth();
}

// Not QHeaderView::Stretch: a stretched section shrinks to its minimum when the other columns
// are wider than the view (utilisation buckets in a narrow pane: "PU / strear").
void TablePanel::fillWidth() {
  if (fill_ < 0 || fill_ >= model_->columnCount()) return;
  int others = 0;
  for (int col = 0; col < model_->columnCount(); ++col)
    if (col != fill_ && !view_->isColumnHidden(col)) others += view_->columnWidth(col);
  view_->setColumnWidth(fill_, std::max(fillMin_, view_->viewport()->width() - others));
}

bool TablePanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_->viewport() && event->type() == QEvent::Resize) fillWidth();
  if (watched == notes_ && event->type() == QEvent::Resize) showNotes();
  return QWidget::eventFilter(watched, event);
}

StatsTable TablePanel::shownTable(bool selectedOnly) const {
  StatsTable out = model_->table();
  out.rows.clear();
  QList<int> rows;
  if (selectedOnly) {
    for (const QModelIndex& i : view_->selectionModel()->selectedRows()) rows << i.row();
    std::sort(rows.begin(), rows.end());
  }
  if (rows.isEmpty()) {
    for (int r = 0; r < proxy_->rowCount(); ++r) rows << r;
  }
  for (int r : rows) {
    int source = proxy_->mapToSource(proxy_->index(r, 0)).row();
    out.rows.push_back(model_->table().rows[static_cast<size_t>(source)]);
  }
  return out;
}

void TablePanel::copyRows() {
  QGuiApplication::clipboard()->setText(QString::fromStdString(statsToCsv(shownTable(true))));
}

Status TablePanel::exportTo(const QString& path) const {
  StatsTable table = shownTable();
  const bool json = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
  std::string text = json ? statsToJson({table}) : statsToCsv(table);
  return writeBytesAtomically(path.toStdString(), text);
}

void TablePanel::exportDialog() {
  QString name =
      QString::fromStdString(model_->table().report.empty() ? "table" : model_->table().report);
  QString path = QFileDialog::getSaveFileName(
      this, tr("Export table"), name + QStringLiteral(".csv"), tr("CSV (*.csv);;JSON (*.json)"));
  if (path.isEmpty()) return;
  if (Status st = exportTo(path); !st.ok())
    QMessageBox::warning(this, tr("Export failed"), QString::fromStdString(st.error()));
}

}  // namespace ts
