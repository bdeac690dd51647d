#include "compare_view.h"

#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "analysis/session_compare.h"
#include "table_panel.h"
#include "timeline_canvas.h"

namespace ts {

namespace {

QWidget* titled(const QString& title, QWidget* content, QWidget* parent) {
  auto* box = new QWidget(parent);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()), box);
  layout->addWidget(label);
  content->setParent(box);
  layout->addWidget(content, 1);
  return box;
}

}  // namespace

CompareView::CompareView(SessionPtr a, const QString& nameA, SessionPtr b, const QString& nameB, QWidget* parent)
    : QWidget(parent) {
  setObjectName(QStringLiteral("compareView"));
  auto* layout = new QVBoxLayout(this);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  a_ = new TimelineCanvas(a);
  b_ = new TimelineCanvas(b);
  splitter->addWidget(titled(tr("A: %1").arg(nameA), a_, splitter));
  splitter->addWidget(titled(tr("B: %1").arg(nameB), b_, splitter));
  auto* tabs = new QTabWidget(splitter);
  kernels_ = new TablePanel(tabs);
  copies_ = new TablePanel(tabs);
  tabs->addTab(kernels_, tr("Kernels"));
  tabs->addTab(copies_, tr("Copies"));
  splitter->addWidget(tabs);
  layout->addWidget(splitter);
  kernels_->setTable(compareKernels(*a, *b));
  copies_->setTable(compareCopies(*a, *b));
  connect(a_, &TimelineCanvas::viewChanged, this, [this] { follow(a_, b_); });
  connect(b_, &TimelineCanvas::viewChanged, this, [this] { follow(b_, a_); });
  a_->fitAll();
}

// The other timeline shows the same stretch, measured from its own session's start.
void CompareView::follow(TimelineCanvas* from, TimelineCanvas* to) {
  if (syncing_) return;
  syncing_ = true;
  const TimeAxis& axis = from->axis();
  TimeNs offset = axis.start() - from->session()->startTime();
  to->setAxis(TimeAxis(to->session()->startTime() + offset, axis.nsPerPixel()));
  syncing_ = false;
}

}  // namespace ts
