// KernelColumns (session/event_columns.h): launch configurations kept once per distinct value.
#include <cstring>
#include <functional>
#include <type_traits>

#include "session/event_columns.h"

namespace ts {

namespace {

#define TS_HASH_FIELD(type, member, column) \
  h = h * 0x9E3779B97F4A7C15ull + std::hash<uint64_t>()(static_cast<uint64_t>(c.member));
#define TS_COPY_TO_CONFIG(type, member, column) c.member = row.member;
#define TS_COPY_FROM_CONFIG(type, member, column) row.member = c.member;
#define TS_COPY_OWN(type, member, column) row.member = member[i];

LaunchConfig configOf(const KernelDetail& row) {
  LaunchConfig c;
  TS_LAUNCH_FIELDS(TS_COPY_TO_CONFIG)
  return c;
}

}  // namespace

size_t LaunchConfigHash::operator()(const LaunchConfig& c) const {
  uint64_t h = 0;
  TS_LAUNCH_FIELDS(TS_HASH_FIELD)
  return static_cast<size_t>(h);
}

void KernelColumns::push(const KernelDetail& row) {
  TS_KERNEL_OWN_COLUMNS(TS_PUSH_FIELD)
  const LaunchConfig c = configOf(row);
  if (index_.empty()) {
    for (uint32_t i = 0; i < launches.size(); ++i) index_.emplace(launches[i], i);
  }
  auto [it, fresh] = index_.try_emplace(c, static_cast<uint32_t>(launches.size()));
  if (fresh) launches.push_back(c);
  launch.push_back(it->second);
}

KernelDetail KernelColumns::row(size_t i) const {
  KernelDetail row;
  TS_KERNEL_OWN_COLUMNS(TS_COPY_OWN)
  const LaunchConfig& c = launches[launch[i]];
  TS_LAUNCH_FIELDS(TS_COPY_FROM_CONFIG)
  return row;
}

void KernelColumns::reserve(size_t n) {
  TS_KERNEL_OWN_COLUMNS(TS_RESERVE_FIELD)
  launch.reserve(n);
}

void KernelColumns::renumber() {
  constexpr uint32_t kUnused = UINT32_MAX;
  std::vector<uint32_t> to(launches.size(), kUnused);
  std::vector<LaunchConfig> used;
  for (uint32_t& l : launch.values()) {
    if (to[l] == kUnused) {
      to[l] = static_cast<uint32_t>(used.size());
      used.push_back(launches[l]);
    }
    l = to[l];
  }
  launches = std::move(used);
  index_ = {};  // a built track takes no more launches: push() makes it again if it does
}

// From the columns a save writes (visitFileColumns), so that the two cannot differ.
KernelFileColumns KernelColumns::toFile() const {
  KernelFileColumns file;
  visitFileColumns([&](const char* name, const auto& values) {
    file.visit([&](const char* column, auto& out) {
      if constexpr (std::is_same_v<std::decay_t<decltype(out)>, std::decay_t<decltype(values)>>) {
        if (std::strcmp(name, column) == 0) out = values;
      }
    });
  });
  return file;
}

KernelColumns KernelColumns::fromFile(const KernelFileColumns& file) {
  KernelColumns k;
  const size_t n = file.gridX.size();
  k.reserve(n);
  for (size_t i = 0; i < n; ++i) k.push(file.row(i));
  k.index_ = {};
  return k;
}

}  // namespace ts
