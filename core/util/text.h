// Plain-text helpers the readers share: lines of a text held in memory, and trimming. One
// definition each, so that every reader agrees on CRLF files and on what whitespace is.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ts {

// The lines of `text` without their line breaks (LF, or CRLF: the CR is dropped); line N of the
// file is element N - 1. A text that ends in a line break ends in an empty line, as an editor
// shows it. The views point into `text`.
std::vector<std::string_view> splitLines(std::string_view text);

// `text` without ASCII whitespace (space, tab, CR, LF, FF, VT) at either end.
std::string_view trim(std::string_view text);

// "path:line: ", the prefix of an error about line `line` (counted from 1) of a file.
std::string atLine(const std::string& path, size_t line);

}  // namespace ts
