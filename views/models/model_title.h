// How a model file is named to the user: a built-in model (written to the cache from the zoo) by
// its name, "resnet50 (built-in)", not by the cache file it was written to; any other by its file
// name.
#pragma once

#include <QString>

namespace ts {

QString zooCacheDir();  // where built-in models are written as ONNX files
QString modelTitle(const QString& path);
QString builtInName(const QString& path);  // "resnet50" for its cache file; empty for others

}  // namespace ts
