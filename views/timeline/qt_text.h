// Core's UTF-8 strings into Qt: as plain text (item views, plain labels), or escaped for the
// rich-text labels and tooltips, where a kernel name such as `foo<bar>` must not read as a tag.
#pragma once

#include <QString>
#include <string_view>

namespace ts {

inline QString plainText(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

inline QString htmlText(std::string_view s) {
  return plainText(s).toHtmlEscaped();
}

}  // namespace ts
