#include "views/jobs/session_load_job.h"

#include <QFileInfo>

namespace ts {

SessionLoadJob::SessionLoadJob(QStringList paths, OpenOptions options, QObject* parent)
    : QObject(parent),
      paths_(std::move(paths)),
      options_(std::move(options)),
      job_(this, [this](const Result<Loaded>& outcome) {
        if (cancelRequested_) {  // asked to stop: not opened, even if the load got there first
          emit failed(tr("%1: cancelled").arg(title()), true);
          return;
        }
        if (outcome)
          emit loaded(outcome->session, outcome->rows);
        else {
          damaged_ = outcome.failure().code == ErrorCode::Damaged;
          emit failed(QString::fromStdString(outcome.error()), outcome.cancelled());
        }
      }) {
  job_.onProgress([this](double f) {
    progress_ = f;
    emit progressChanged(f);
  });
}

QString SessionLoadJob::title() const {
  if (paths_.isEmpty()) return {};
  QString first = QFileInfo(paths_.front()).fileName();
  return paths_.size() == 1 ? first : tr("%1 + %2 more").arg(first).arg(paths_.size() - 1);
}

void SessionLoadJob::start() {
  std::vector<std::string> paths;
  for (const QString& p : paths_) paths.push_back(p.toStdString());
  job_.start([paths, options = options_,
              stopped = cancelRequested_](const Progress& progress) -> Result<Loaded> {
    if (stopped) return Error::cancelled();
    TS_ASSIGN_OR_RETURN(SessionPtr session, openSessionFiles(paths, options, progress));
    auto rows = std::make_shared<const TimelineRows>(session);
    return Loaded{std::move(session), std::move(rows)};
  });
}

void SessionLoadJob::cancel() {
  cancelRequested_ = true;
  job_.cancel();
}

}  // namespace ts
