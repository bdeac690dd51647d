#include "util/on_every_core.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ts {

void onEveryCore(size_t count, const std::function<void(size_t)>& work) {
  if (count == 0) return;
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failureLock;
  auto run = [&] {
    for (size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard lock(failureLock);
        if (!failure) failure = std::current_exception();
        next = count;  // the rest is not started
      }
    }
  };
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> helpers;
  try {
    for (size_t i = 1; i < std::min(count, cores); ++i) helpers.emplace_back(run);
  } catch (...) {
    // No more threads to be had: the ones started and this one do the work.
  }
  run();
  for (std::thread& t : helpers) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace ts
