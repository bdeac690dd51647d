// Pages as runs (memsim/engine/page_runs.h), each against the plain array it stands for: random
// operations on both, compared after every one.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <list>
#include <random>
#include <vector>

#include "memsim/engine/page_runs.h"

namespace ts::memsim {
namespace {

TEST(PageRuns, StatesAreTheArrayTheyStandFor) {
  std::mt19937 rng(7);
  constexpr Page kPages = 300;
  PageStates runs(kPages, 3);
  std::vector<uint8_t> plain(kPages, 3);
  auto pick = [&](Page n) { return static_cast<Page>(rng() % static_cast<uint32_t>(n)); };
  for (int i = 0; i < 4000; ++i) {
    Page b = pick(kPages), e = pick(kPages + 1);
    if (b > e) std::swap(b, e);
    if (i % 3 == 0) {
      const auto mask = static_cast<uint8_t>(1u << pick(4));
      const uint8_t bits = pick(2) ? mask : uint8_t{0};
      runs.setBits(b, e, mask, bits);
      for (Page p = b; p < e; ++p) plain[p] = static_cast<uint8_t>((plain[p] & ~mask) | bits);
    } else {
      const auto state = static_cast<uint8_t>(pick(4));
      runs.set(b, e, state);
      std::fill(plain.begin() + b, plain.begin() + e, state);
    }
    for (Page p = 0; p < kPages; ++p) {
      ASSERT_EQ(runs.at(p), plain[p]) << "page " << p << " after step " << i;
      // runEnd: the first page after p with another state.
      Page end = p;
      while (end < kPages && plain[end] == plain[p]) ++end;
      ASSERT_EQ(runs.runEnd(p, kPages), end) << "page " << p << " after step " << i;
    }
    Page seen = 0;
    runs.forEach(0, kPages, [&](Page fb, Page fe, uint8_t st) {
      EXPECT_EQ(fb, seen);
      for (Page p = fb; p < fe; ++p) EXPECT_EQ(plain[p], st);
      seen = fe;
    });
    ASSERT_EQ(seen, kPages);
  }
}

TEST(PageRuns, QueueIsAFifoOfPages) {
  std::mt19937 rng(11);
  PageQueue runs;
  std::deque<Page> plain;
  Page next = 0;
  for (int i = 0; i < 3000; ++i) {
    if (rng() % 2) {
      // Consecutive pushes of consecutive pages, or a jump.
      if (rng() % 3 == 0) next += static_cast<Page>(rng() % 50);
      const Page n = 1 + static_cast<Page>(rng() % 20);
      runs.push({next, next + n});
      for (Page p = next; p < next + n; ++p) plain.push_back(p);
      next += n;
    } else if (!plain.empty()) {
      const auto n = static_cast<int64_t>(1 + rng() % plain.size());
      std::vector<Page> got;
      runs.pop(n, [&](PageRange r) {
        for (Page p = r.begin; p < r.end; ++p) got.push_back(p);
      });
      ASSERT_EQ(static_cast<int64_t>(got.size()), n);
      for (Page p : got) {
        ASSERT_EQ(p, plain.front());
        plain.pop_front();
      }
    }
    ASSERT_EQ(runs.pages(), static_cast<int64_t>(plain.size()));
    ASSERT_EQ(runs.empty(), plain.empty());
    if (!plain.empty()) {
      ASSERT_EQ(runs.front(), plain.front());
    }
  }
}

TEST(PageRuns, ArrivalListKeepsTheOrderPagesCameIn) {
  std::mt19937 rng(3);
  constexpr Page kPages = 400;
  ArrivalList runs;
  std::list<Page> plain;
  std::vector<bool> in(kPages, false);
  auto check = [&] {
    std::vector<Page> walked;
    if (!runs.empty())
      runs.walk(runs.headPage(), [&](Page b, Page e) {
        for (Page p = b; p < e; ++p) walked.push_back(p);
        return true;
      });
    ASSERT_EQ(walked, std::vector<Page>(plain.begin(), plain.end()));
    ASSERT_EQ(runs.headPage(), plain.empty() ? kNoPage : plain.front());
    ASSERT_EQ(runs.tailPage(), plain.empty() ? kNoPage : plain.back());
    for (auto it = plain.begin(); it != plain.end(); ++it) {
      auto after = std::next(it);
      ASSERT_EQ(runs.next(*it), after == plain.end() ? kNoPage : *after);
    }
  };
  for (int i = 0; i < 3000; ++i) {
    const Page b = static_cast<Page>(rng() % kPages);
    Page e = b;
    if (rng() % 2) {
      // Arrive: a run of pages not in the list.
      while (e < kPages && !in[e] && e - b < 16) ++e;
      runs.pushBack({b, e});
      for (Page p = b; p < e; ++p) {
        plain.push_back(p);
        in[p] = true;
      }
    } else {
      // Leave: a run of pages in the list, wherever they are in it.
      while (e < kPages && in[e] && e - b < 16) ++e;
      runs.remove(b, e);
      for (Page p = b; p < e; ++p) {
        plain.remove(p);
        in[p] = false;
      }
    }
    check();
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace ts::memsim
