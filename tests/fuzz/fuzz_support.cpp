#include "fuzz_support.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ts::fuzz {

namespace fs = std::filesystem;

const std::string& scratchDir() {
  static const std::string dir = [] {
    fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    fs::path d = base / ("tscope-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d.string();
  }();
  return dir;
}

std::string writeFile(const std::string& name, std::string_view data) {
  const std::string path = scratchDir() + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(data.data(), static_cast<std::streamsize>(data.size()));
  return path;
}

std::vector<std::string_view> splitParts(std::string_view data, size_t n) {
  static constexpr std::string_view kCut = "\n=====\n";
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < n) {
    size_t at = data.find(kCut);
    if (at == std::string_view::npos) break;
    parts.push_back(data.substr(0, at));
    data.remove_prefix(at + kCut.size());
  }
  parts.push_back(data);
  parts.resize(n);
  return parts;
}

}  // namespace ts::fuzz
