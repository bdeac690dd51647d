#include "memsim/engine/page_runs.h"

#include <cassert>
#include <iterator>

namespace ts::memsim {

// --- PageStates ---

PageStates::PageStates(Page pages, uint8_t initial) : pages_(pages) {
  runs_[0] = initial;
}

PageStates::PageStates(const PageStates& o) : pages_(o.pages_) {
  runs_ = o.runs_;
}

PageStates& PageStates::operator=(const PageStates& o) {
  runs_ = o.runs_;
  pages_ = o.pages_;
  finger_ = runs_.end();
  return *this;
}

PageStates::Runs::const_iterator PageStates::runAt(Page p) const {
  for (int tries = 0; tries < 2 && finger_ != runs_.end() && finger_->first <= p; ++tries) {
    const auto next = std::next(finger_);
    if (next == runs_.end() || next->first > p) return finger_;
    finger_ = next;
  }
  finger_ = std::prev(runs_.upper_bound(p));
  return finger_;
}

uint8_t PageStates::at(Page p) const {
  return runAt(p)->second;
}

Page PageStates::runEnd(Page p, Page limit) const {
  const auto next = std::next(runAt(p));
  return next == runs_.end() ? limit : std::min(limit, next->first);
}

void PageStates::split(Page p) {
  finger_ = runs_.end();
  if (p >= pages_) return;
  auto it = runs_.upper_bound(p);
  auto at = std::prev(it);
  if (at->first != p) runs_.emplace_hint(it, p, at->second);
}

void PageStates::merge(Page p) {
  finger_ = runs_.end();
  if (p <= 0 || p >= pages_) return;
  auto it = runs_.find(p);
  if (it == runs_.end() || it == runs_.begin()) return;
  if (std::prev(it)->second == it->second) runs_.erase(it);
}

PageStates::Runs::iterator PageStates::splitAt(Runs::iterator from, Page p) {
  if (p >= pages_) return runs_.end();
  // p is usually a few runs after `from` (a tensor's pages, a batch's worth).
  auto next = from;
  for (int steps = 0; next != runs_.end() && next->first <= p; ++steps) {
    if (steps == 8) {
      next = runs_.upper_bound(p);
      break;
    }
    ++next;
  }
  const auto at = std::prev(next);
  return at->first == p ? at : runs_.emplace_hint(next, p, at->second);
}

void PageStates::set(Page begin, Page end, uint8_t state) {
  if (begin >= end) return;
  const auto holder = runAt(begin);
  finger_ = runs_.end();
  auto first = runs_.erase(holder, holder);  // the same run, not const
  first = splitAt(first, begin);
  const auto last = splitAt(first, end);
  runs_.erase(std::next(first), last);
  first->second = state;
  // Join the neighbours that now have the same state.
  if (last != runs_.end() && last->second == state) runs_.erase(last);
  if (first != runs_.begin() && std::prev(first)->second == state) runs_.erase(first);
}

void PageStates::setBits(Page begin, Page end, uint8_t mask, uint8_t bits) {
  if (begin >= end) return;
  split(begin);
  split(end);
  for (auto it = runs_.find(begin); it != runs_.end() && it->first < end; ++it)
    it->second = static_cast<uint8_t>((it->second & ~mask) | bits);
  // Join the runs that became equal (the ones set and their two neighbours).
  scratch_.clear();
  for (auto it = runs_.find(begin); it != runs_.end() && it->first <= end; ++it)
    scratch_.push_back(it->first);
  for (Page p : scratch_) merge(p);
}

// --- PageQueue ---

void PageQueue::push(PageRange r) {
  if (r.begin >= r.end) return;
  pages_ += r.size();
  if (!runs_.empty() && runs_.back().end == r.begin) {
    runs_.back().end = r.end;
    return;
  }
  runs_.push_back(r);
}

// --- ArrivalList ---

int32_t ArrivalList::nodeOf(Page p) const {
  // A freed node holds no pages (unlink empties it), so a node holding p is p's node.
  for (int32_t n : {finger_, finger_ >= 0 ? nodes_[finger_].next : -1})
    if (n >= 0 && nodes_[n].begin <= p && p < nodes_[n].end) return finger_ = n;
  auto it = index_.upper_bound(p);
  if (it == index_.begin()) return -1;
  --it;
  if (p >= nodes_[it->second].end) return -1;
  return finger_ = it->second;
}

int32_t ArrivalList::newNode(Page begin, Page end) {
  int32_t n;
  if (!free_.empty()) {
    n = free_.back();
    free_.pop_back();
  } else {
    n = static_cast<int32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  nodes_[n] = Node{begin, end, -1, -1};
  index_.emplace(begin, n);
  return n;
}

void ArrivalList::pushBack(PageRange r) {
  if (r.begin >= r.end) return;
  if (tail_ >= 0 && nodes_[tail_].end == r.begin) {
    nodes_[tail_].end = r.end;
    return;
  }
  const int32_t n = newNode(r.begin, r.end);
  nodes_[n].prev = tail_;
  if (tail_ >= 0) nodes_[tail_].next = n;
  tail_ = n;
  if (head_ < 0) head_ = n;
}

void ArrivalList::unlink(int32_t n) {
  Node& x = nodes_[n];
  if (x.prev >= 0) nodes_[x.prev].next = x.next;
  if (x.next >= 0) nodes_[x.next].prev = x.prev;
  if (head_ == n) head_ = x.next;
  if (tail_ == n) tail_ = x.prev;
  index_.erase(x.begin);
  x.begin = x.end = 0;
  free_.push_back(n);
}

void ArrivalList::remove(Page begin, Page end) {
  while (begin < end) {
    int32_t n = nodeOf(begin);
    assert(n >= 0);
    if (nodes_[n].begin < begin) {
      // Keep the part before `begin` in this node; the rest becomes a node right after it.
      const int32_t m = newNode(begin, nodes_[n].end);
      nodes_[n].end = begin;
      nodes_[m].prev = n;
      nodes_[m].next = nodes_[n].next;
      if (nodes_[n].next >= 0) nodes_[nodes_[n].next].prev = m;
      nodes_[n].next = m;
      if (tail_ == n) tail_ = m;
      n = m;
    }
    if (nodes_[n].end > end) {
      // The pages after `end` stay, where the node was.
      index_.erase(nodes_[n].begin);
      nodes_[n].begin = end;
      index_.emplace(end, n);
      return;
    }
    const Page e = nodes_[n].end;
    unlink(n);
    begin = e;
  }
}

Page ArrivalList::next(Page p) const {
  const int32_t n = nodeOf(p);
  if (n < 0) return kNoPage;
  if (p + 1 < nodes_[n].end) return p + 1;
  const int32_t m = nodes_[n].next;
  return m < 0 ? kNoPage : nodes_[m].begin;
}

}  // namespace ts::memsim
