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

QString modelTitle(const QString& path) {
  const QFileInfo file(path);
  if (QDir(file.absolutePath()) == QDir(zooCacheDir())) {
    const std::string name = file.completeBaseName().toStdString();
    for (const std::string& zoo : model::zooModels()) {
      if (zoo == name)
        return QCoreApplication::translate("ts::modelTitle", "%1 (built-in)")
            .arg(file.completeBaseName());
    }
  }
  return file.fileName();
}

}  // namespace ts
