// What the fuzz targets share: the readers take paths, so an input becomes a file (or several, in
// a directory) in a scratch folder of this process; and a replay main for builds without
// libFuzzer, so that every input that ever crashed runs in the ordinary test suite.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ts::fuzz {

// A directory of this process's own, in /dev/shm when there is one (no disk writes per input).
const std::string& scratchDir();
// Writes `data` to scratchDir()/name and returns the path.
std::string writeFile(const std::string& name, std::string_view data);
// `data` cut at each "\n=====\n" into at most `n` parts (the last takes the rest); missing parts
// are empty. One input then fills several files, and a seed is their contents joined.
std::vector<std::string_view> splitParts(std::string_view data, size_t n);

}  // namespace ts::fuzz
