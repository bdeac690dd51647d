#include "memsim/sweep_table.h"

#include <cstdlib>
#include <sstream>

#include "io/text_file.h"

namespace ts::memsim {

Result<SweepTable> loadSweepCsv(const std::string& path) {
  auto text = readTextFile(path);
  if (!text) return Error{text.error()};
  std::istringstream in{std::string(text->view())};
  SweepTable table;
  std::string line;
  size_t lineNo = 0;
  auto fields = [](const std::string& l) {
    std::vector<std::string> out;
    std::string f;
    std::istringstream s(l);
    while (std::getline(s, f, ',')) out.push_back(f);
    if (!l.empty() && l.back() == ',') out.emplace_back();
    return out;
  };
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> f = fields(line);
    const std::string where = path + ":" + std::to_string(lineNo) + ": ";
    if (table.key.empty()) {
      if (f.size() != 7 || f[1] != "policy" || f[3] != "iteration_ns")
        return Error{where + "not a simulate --sweep table (header)"};
      table.key = f[0];
      continue;
    }
    if (f.size() != 7) return Error{where + "expected 7 fields, found " + std::to_string(f.size())};
    SweepPoint p;
    char* end = nullptr;
    p.value = std::strtod(f[0].c_str(), &end);
    if (end == f[0].c_str() || *end) return Error{where + "'" + f[0] + "' is not a number"};
    p.policy = f[1];
    p.feasible = f[2] == "yes";
    if (p.feasible) {
      p.iteration = std::atoll(f[3].c_str());
      p.ideal = std::atoll(f[4].c_str());
      p.slowdown = std::strtod(f[5].c_str(), nullptr);
      if (p.iteration <= 0 || p.slowdown <= 0)
        return Error{where + "a feasible point without an iteration time"};
    }
    table.points.push_back(p);
  }
  if (table.key.empty()) return Error{path + ": empty"};
  return table;
}

}  // namespace ts::memsim
