#include "memsim/formats/g10_published.h"

#include <sstream>

#include "io/text_file.h"
#include "util/text.h"

namespace ts::memsim {

std::optional<Policy> policyFromG10Name(std::string_view name) {
  if (name == "lru") return Policy::Lru;
  if (name == "FlashNeuron") return Policy::FlashNeuron;
  if (name == "deepUM") return Policy::DeepUm;
  if (name == "G10GDSSSD") return Policy::G10Gds;
  if (name == "G10GDSFULL") return Policy::G10Host;
  if (name == "prefetch_lru") return Policy::G10;
  if (name == "ideal") return Policy::Ideal;
  return std::nullopt;
}

Result<std::vector<PublishedRow>> loadG10Published(const std::string& path) {
  auto text = readTextFile(path);
  if (!text) return text.failure();
  const std::vector<std::string_view> lines = splitLines(text->view());
  size_t lineNo = 0;
  auto where = [&] { return atLine(path, lineNo); };
  // G10's own file is the table alone; ours (published.txt) has it under "## Figure 11".
  bool sections = false;
  for (std::string_view raw : lines) sections |= trim(raw).rfind("##", 0) == 0;
  bool inFigure = !sections;
  std::vector<Policy> columns;
  std::vector<PublishedRow> rows;
  PublishedRow* open = nullptr;
  for (std::string_view raw : lines) {
    ++lineNo;
    const std::string line(trim(raw));
    if (line.rfind("##", 0) == 0) {
      if (inFigure) break;
      inFigure = line.find("Figure 11") != std::string::npos;
      continue;
    }
    if (!inFigure || line.empty() || line[0] == '#') continue;
    if (columns.empty()) {
      std::istringstream names(line);
      std::string name;
      while (std::getline(names, name, '|')) {
        const std::string policy(trim(name));
        auto p = policyFromG10Name(policy);
        if (!p) return Error{where() + "unknown policy '" + policy + "'"};
        columns.push_back(*p);
      }
      continue;
    }
    if (line.find('|') != std::string::npos) {  // "BERT|B = 256|M = 370.10%"
      PublishedRow row;
      row.model = trim(std::string_view(line).substr(0, line.find('|')));
      size_t b = line.find("B =");
      if (b == std::string::npos) return Error{where() + "no batch ('B = N') in the model line"};
      row.batch = std::atoi(line.c_str() + b + 3);
      rows.push_back(row);
      open = &rows.back();
      continue;
    }
    if (!open) return Error{where() + "numbers before a model line"};
    std::istringstream numbers(line);
    for (Policy p : columns) {
      std::string field;
      long long v = 0;
      if (numbers >> field && field == "inf") {
        open->cycles[p] = -1;
        continue;
      }
      char* end = nullptr;
      v = std::strtoll(field.c_str(), &end, 10);
      if (field.empty() || *end || v <= 0)
        return Error{where() + "expected " + std::to_string(columns.size()) +
                     " positive cycle counts (or inf)"};
      open->cycles[p] = v;
    }
    open = nullptr;
  }
  if (rows.empty()) return Error{path + ": no Figure 11 table"};
  return rows;
}

const PublishedRow* findPublished(const std::vector<PublishedRow>& rows, const std::string& name) {
  size_t dash = name.rfind('-');
  if (dash == std::string::npos) return nullptr;
  std::string model = name.substr(0, dash);
  int batch = std::atoi(name.c_str() + dash + 1);
  for (const PublishedRow& r : rows) {
    if (r.model == model && r.batch == batch) return &r;
  }
  return nullptr;
}

}  // namespace ts::memsim
