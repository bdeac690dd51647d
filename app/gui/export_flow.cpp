#include "app/gui/export_flow.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QPainter>
#include <QStringList>
#include <QTabWidget>
#include <algorithm>
#include <cstring>

#include "app/gui/shell.h"
#include "views/charts/chart_export.h"
#include "views/jobs/session_export_job.h"
#include "views/session/session_view.h"
#include "views/timeline/timeline_canvas.h"

namespace ts {

namespace {
// Export formats; the CSV entries name the table they hold.
const char* kExportFilters[] = {
    "Tensorscope session (*.tscope)",      "Chrome trace JSON for Perfetto (*.json)",
    "Chrome trace JSON, gzip (*.json.gz)", "CSV: kernels (*.csv)",
    "CSV: memory copies (*.csv)",          "CSV: memsets (*.csv)",
    "CSV: CUDA API calls (*.csv)",         "CSV: NVTX ranges (*.csv)",
};
}  // namespace

ExportFlow::ExportFlow(Shell& shell, QObject* parent) : QObject(parent), shell_(shell) {}

ExportFlow::~ExportFlow() {
  for (SessionExportJob* job : jobs_) job->cancel();
}

bool ExportFlow::hasSession() const {
  return shell_.sessionView(shell_.tabs()->currentIndex()) != nullptr;
}

void ExportFlow::dialog() {
  if (!hasSession()) return;
  QStringList filters;
  for (const char* f : kExportFilters) filters << tr(f);
  QString selected = filters.front();
  const QString suggested = suggestedPath(shell_.tabs()->currentIndex());
  if (suggested.endsWith(QLatin1String(".json"))) selected = filters[1];
  QString path =
      QFileDialog::getSaveFileName(shell_.dialogParent(), tr("Export session"), suggested,
                                   filters.join(QStringLiteral(";;")), &selected);
  if (path.isEmpty()) return;
  WriteOptions options;
  const CsvTable tables[] = {CsvTable::Kernels, CsvTable::Memcpy, CsvTable::Memset, CsvTable::Api,
                             CsvTable::Nvtx};
  int index = static_cast<int>(filters.indexOf(selected));
  if (index >= 3) options.csvTable = tables[index - 3];
  // The dialog may leave the extension off: add the one the chosen format needs.
  const QString extensions[] = {QStringLiteral(".tscope"), QStringLiteral(".json"),
                                QStringLiteral(".json.gz"), QStringLiteral(".csv")};
  const QString& ext = extensions[std::min(index, 3)];
  // A name typed with a format's extension ("run.json.gz") is that format, whatever the filter.
  const bool typed = std::any_of(std::begin(extensions), std::end(extensions),
                                 [&](const QString& e) { return path.endsWith(e); });
  if (index >= 0 && !typed) path += ext;
  start(path, options);
}

QString ExportFlow::suggestedPath(int tab) const {
  const QString source = shell_.tabs()->tabToolTip(tab).section(QLatin1Char('\n'), 0, 0);
  if (source.isEmpty()) return {};
  const QFileInfo info(source);
  QString base = info.fileName();
  for (const char* ext : {".json.gz", ".json", ".sqlite", ".tscope", ".gz"}) {
    if (base.endsWith(QLatin1String(ext), Qt::CaseInsensitive)) {
      base.chop(static_cast<qsizetype>(std::strlen(ext)));
      break;
    }
  }
  const bool session = source.endsWith(QLatin1String(".tscope"), Qt::CaseInsensitive);
  return info.dir().filePath(base +
                             (session ? QStringLiteral(".json") : QStringLiteral(".tscope")));
}

void ExportFlow::start(const QString& path, const WriteOptions& options) {
  SessionView* view = shell_.sessionView(shell_.tabs()->currentIndex());
  if (!view) return;
  auto* job = new SessionExportJob(view->session(), path, options, this);
  jobs_.push_back(job);
  connect(job, &SessionExportJob::progressChanged, this, &ExportFlow::progressed);
  connect(job, &SessionExportJob::finished, this,
          [this, job](bool ok, const QString& message, bool cancelled) {
            if (ok || cancelled)  // a cancelled export left the file as it was: no error box
              shell_.showMessage(message, 10000);
            else
              shell_.showError(tr("Cannot export"), message);
            jobs_.removeOne(job);
            job->deleteLater();
            emit exported(ok, message);
            emit progressed();
          });
  job->start();
  emit progressed();
}

void ExportFlow::cancel() {
  for (SessionExportJob* job : jobs_) job->cancel();
}

double ExportFlow::progressSum() const {
  double sum = 0;
  for (const SessionExportJob* job : jobs_) sum += job->progress();
  return sum;
}

QString ExportFlow::firstPath() const {
  return jobs_.isEmpty() ? QString() : jobs_.front()->path();
}

Status ExportFlow::timelineImage(const QString& path) {
  SessionView* view = shell_.sessionView(shell_.tabs()->currentIndex());
  if (!view) return Error{tr("no session is open").toStdString()};
  TS_ASSIGN_OR_RETURN(const ImageFormat format, imageFormatOfPath(path));
  TimelineCanvas* canvas = view->timeline();
  return exportPainting([canvas](QPainter& p, QSize s) { canvas->render(p, s); }, canvas->size(),
                        format, path, format == ImageFormat::Png ? 2.0 : 1.0,
                        QFileInfo(view->path()).fileName());
}

void ExportFlow::timelineImageDialog() {
  if (!hasSession()) return;
  QString path = QFileDialog::getSaveFileName(shell_.dialogParent(), tr("Export timeline image"),
                                              QStringLiteral("timeline.png"),
                                              tr("PNG image (*.png);;SVG (*.svg);;PDF (*.pdf)"));
  if (path.isEmpty()) return;
  if (Status st = timelineImage(path); !st.ok())
    shell_.showError(tr("Cannot export"), QString::fromStdString(st.error()));
  else
    shell_.showMessage(tr("Saved %1").arg(path), 10000);
}

}  // namespace ts
