#include "views/models/model_title.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include "model/model_zoo.h"

namespace ts {

QString zooCacheDir() {
  return QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
}

QString builtInName(const QString& path) {
  const QFileInfo file(path);
  if (QDir(file.absolutePath()) != QDir(zooCacheDir())) return {};
  const std::string name = file.completeBaseName().toStdString();
  for (const std::string& zoo : model::zooModels()) {
    if (zoo == name) return file.completeBaseName();
  }
  return {};
}

QString modelTitle(const QString& path) {
  const QString name = builtInName(path);
  return name.isEmpty() ? QFileInfo(path).fileName()
                        : QCoreApplication::translate("ts::modelTitle", "%1 (built-in)").arg(name);
}

}  // namespace ts
