// Pages kept as runs, for G10's unified-memory simulator (g10_um_simulator.cpp): tensors' pages
// move in order (a tensor is queued first page first, the batcher takes queues from the front,
// eviction takes the oldest arrivals first), so a state per page, a queue of pages and an
// arrival list of pages are each held as a few runs of consecutive pages. Memory then grows with
// the runs, not with the pages (SENet154 at batch 1024 has 440 M pages of 4 KiB).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <memory_resource>
#include <vector>

namespace ts::memsim {

using Page = int64_t;
constexpr Page kNoPage = -1;

struct PageRange {
  Page begin = 0, end = 0;
  int64_t size() const { return end - begin; }
};

// One byte of state per page over [0, pages), stored as the pages where it changes.
class PageStates {
 public:
  explicit PageStates(Page pages = 0, uint8_t initial = 0);
  PageStates(const PageStates& o);  // the finger is not copied: it points into o
  PageStates& operator=(const PageStates& o);

  uint8_t at(Page p) const;
  // The end of the run of pages from p with p's state, at most `limit`.
  Page runEnd(Page p, Page limit) const;
  void set(Page begin, Page end, uint8_t state);
  // state = (state & ~mask) | bits over [begin, end).
  void setBits(Page begin, Page end, uint8_t mask, uint8_t bits);
  // Calls f(begin, end, state) for each run of one state in [begin, end), in order.
  template <class F>
  void forEach(Page begin, Page end, F&& f) const {
    auto it = runAt(begin);
    for (Page b = begin; b < end; ++it) {
      const Page e = std::next(it) == runs_.end() ? end : std::min(end, std::next(it)->first);
      f(b, e, it->second);
      b = e;
    }
  }

 private:
  using Runs = std::pmr::map<Page, uint8_t>;
  // The run holding p. Lookups come in order (a walk asks for a run, then the next), so the
  // last run found is tried first, then the one after it.
  Runs::const_iterator runAt(Page p) const;
  void split(Page p);
  // The run starting at p, made by splitting the one holding it (looked for from `from`, a run
  // at or before p); end() for p at or past the last page.
  Runs::iterator splitAt(Runs::iterator from, Page p);
  void merge(Page p);  // joins the run starting at p with the one before, when equal
  // The runs' nodes come from a pool of their own: runs are split and joined all the time.
  std::unique_ptr<std::pmr::unsynchronized_pool_resource> pool_ =
      std::make_unique<std::pmr::unsynchronized_pool_resource>();
  Runs runs_{pool_.get()};
  mutable Runs::const_iterator finger_ = runs_.end();  // end(): none (a change may erase it)
  Page pages_ = 0;
  std::vector<Page> scratch_;
};

// A FIFO of pages held as runs; consecutive pushes of consecutive pages make one run.
class PageQueue {
 public:
  bool empty() const { return pages_ == 0; }
  int64_t pages() const { return pages_; }
  Page front() const { return runs_.front().begin; }
  void push(PageRange r);
  // The fewest pages the queue held since markLow() (pages taken lower it; pages pushed do not).
  int64_t low() const { return low_; }
  void markLow() { low_ = pages_; }
  // Removes the first n pages (n ≤ pages()) and hands their runs to f(PageRange) in order.
  template <class F>
  void pop(int64_t n, F&& f) {
    pages_ -= n;
    low_ = std::min(low_, pages_);
    while (n > 0) {
      PageRange& r = runs_.front();
      const int64_t take = std::min(n, r.size());
      f(PageRange{r.begin, r.begin + take});
      n -= take;
      r.begin += take;
      if (r.begin == r.end) runs_.pop_front();
    }
  }
  // The runs from the front, for looking ahead.
  const std::deque<PageRange>& runs() const { return runs_; }

 private:
  std::deque<PageRange> runs_;
  int64_t pages_ = 0, low_ = 0;
};

// Pages in the order they arrived on the GPU (G10's "LRU" list), as runs of consecutive pages
// that arrived one after another. Any page can be removed; a page's place is found by its number.
class ArrivalList {
 public:
  ArrivalList() = default;
  // Not copied or moved: the index's nodes live in the list's own pool.
  ArrivalList(const ArrivalList&) = delete;
  ArrivalList& operator=(const ArrivalList&) = delete;
  bool empty() const { return head_ < 0; }
  Page headPage() const { return head_ < 0 ? kNoPage : nodes_[head_].begin; }
  Page tailPage() const { return tail_ < 0 ? kNoPage : nodes_[tail_].end - 1; }
  void pushBack(PageRange r);
  // Removes [begin, end), every page of which is in the list.
  void remove(Page begin, Page end);
  // The page after p in the list (p in it), or kNoPage.
  Page next(Page p) const;
  // Walks the list from page p (in it) to its end: f(begin, end) for each run, in order, until f
  // returns false.
  template <class F>
  void walk(Page p, F&& f) const {
    int32_t n = nodeOf(p);
    if (n < 0 || !f(p, nodes_[n].end)) return;
    for (n = nodes_[n].next; n >= 0; n = nodes_[n].next)
      if (!f(nodes_[n].begin, nodes_[n].end)) return;
  }
  size_t runs() const { return index_.size(); }

 private:
  struct Node {
    Page begin = 0, end = 0;
    int32_t prev = -1, next = -1;
  };
  int32_t nodeOf(Page p) const;  // tries the last node found and the one after it first
  int32_t newNode(Page begin, Page end);
  void unlink(int32_t n);
  std::vector<Node> nodes_;
  std::vector<int32_t> free_;
  std::unique_ptr<std::pmr::unsynchronized_pool_resource> pool_ =
      std::make_unique<std::pmr::unsynchronized_pool_resource>();
  std::pmr::map<Page, int32_t> index_{pool_.get()};  // a run's first page → its node (pooled)
  int32_t head_ = -1, tail_ = -1;
  mutable int32_t finger_ = -1;
};

}  // namespace ts::memsim
