// Column<T>: one column of events, shared between sessions that hold the same values.
//
// Copying a column copies no values: the copy shares the blocks that hold them. That is what lets
// a live capture publish a snapshot every second in time bounded by what is new rather than by
// everything recorded (capture/record_sink.h): the snapshot is a copy of the growing session, and
// the growing one goes on appending after the copy's end, where no reader of the copy looks.
//
// Two layouts, read the same way (operator[] costs two dependent loads, not one):
//  - contiguous: one block, as a std::vector would hold it — what builders and readers make;
//  - chunked: blocks of kChunk values (2^ChunkShift: 64 k unless the type asks for smaller) that
//    never move once allocated (append()) — what live sessions grow. A copy never appends into a
//    block it shares: it copies the last, partly filled block first (appendable_), so the one that
//    wrote it is the only one that may. A block that holds one value throughout takes no memory
//    of its own: zeros from the start, another value (a run such as a kernel track's context)
//    once a block of it has filled, for a few values per type (append()).
// Writing through data(), resize(), assign() and friends first makes the column a contiguous one
// of its own (a copy when shared): sessions are immutable once published, and builders that
// mutate hold the only reference.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace ts {

template <class T, unsigned ChunkShift = 16>
class Column {
 public:
  using value_type = T;
  using size_type = size_t;
  using const_reference = const T&;
  static constexpr unsigned kChunkShift = ChunkShift;
  static constexpr size_t kChunk = size_t{1} << kChunkShift;  // values per block when chunked

  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;
    const_iterator() = default;
    const_iterator(const Column* c, size_t i) : c_(c), i_(i) {}
    const T& operator*() const { return (*c_)[i_]; }
    const T* operator->() const { return &(*c_)[i_]; }
    const T& operator[](difference_type d) const { return (*c_)[i_ + d]; }
    const_iterator& operator++() { return ++i_, *this; }
    const_iterator operator++(int) { return {c_, i_++}; }
    const_iterator& operator--() { return --i_, *this; }
    const_iterator operator--(int) { return {c_, i_--}; }
    const_iterator& operator+=(difference_type d) { return i_ += d, *this; }
    const_iterator& operator-=(difference_type d) { return i_ -= d, *this; }
    friend const_iterator operator+(const_iterator a, difference_type d) { return a += d; }
    friend const_iterator operator+(difference_type d, const_iterator a) { return a += d; }
    friend const_iterator operator-(const_iterator a, difference_type d) { return a -= d; }
    friend difference_type operator-(const_iterator a, const_iterator b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const_iterator a, const_iterator b) { return a.i_ == b.i_; }
    friend auto operator<=>(const_iterator a, const_iterator b) { return a.i_ <=> b.i_; }
    size_t index() const { return i_; }

   private:
    const Column* c_ = nullptr;
    size_t i_ = 0;
  };
  using iterator = const_iterator;

  Column() = default;
  explicit Column(size_t n) : Column(std::vector<T>(n)) {}
  Column(size_t n, const T& v) : Column(std::vector<T>(n, v)) {}
  Column(std::initializer_list<T> values) : Column(std::vector<T>(values)) {}
  Column(std::vector<T>&& values) { adopt(std::move(values)); }
  Column(const Column& o)
      : blocks_(o.blocks_), ptrs_(o.ptrs_), size_(o.size_), shift_(o.shift_), mask_(o.mask_) {}
  Column& operator=(const Column& o) {
    if (this != &o) {
      blocks_ = o.blocks_, ptrs_ = o.ptrs_, size_ = o.size_, shift_ = o.shift_, mask_ = o.mask_;
      appendable_ = false;
    }
    return *this;
  }
  Column(Column&& o) noexcept { swap(o); }
  Column& operator=(Column&& o) noexcept {
    Column(std::move(o)).swap(*this);
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return ptrs_[i >> shift_][i & mask_]; }
  const T& front() const { return (*this)[0]; }
  const T& back() const { return (*this)[size_ - 1]; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }
  bool chunked() const { return shift_ == kChunkShift; }

  // The values as contiguous runs, in order: f(std::span<const T>).
  template <class F>
  void forEachSpan(F&& f) const {
    for (size_t b = 0, first = 0; first < size_; ++b) {
      const size_t n = std::min(size_ - first, blockValues());
      f(std::span<const T>(ptrs_[b], n));
      first += n;
    }
  }
  // Values [first, first + n): in place when they lie in one block, else copied into `scratch`.
  std::span<const T> span(size_t first, size_t n, std::vector<T>& scratch) const {
    if (n == 0) return {};
    if ((first >> shift_) == ((first + n - 1) >> shift_))
      return std::span<const T>(&(*this)[first], n);
    scratch.assign(begin() + static_cast<std::ptrdiff_t>(first),
                   begin() + static_cast<std::ptrdiff_t>(first + n));
    return scratch;
  }
  std::vector<T> toVector() const { return std::vector<T>(begin(), end()); }
  friend bool operator==(const Column& a, const Column& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const Column& a, const std::vector<T>& b) {
    return a.size_ == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  const T& at(size_t i) const {
    if (i >= size_) throw std::out_of_range("column index " + std::to_string(i));
    return (*this)[i];
  }

  // ---- Building: a contiguous column of its own (copied first when shared or chunked).
  T* data() {
    own();
    return ptrs_.empty() ? nullptr : ptrs_[0];
  }
  std::span<T> values() { return {data(), size_}; }
  void push_back(const T& v) {
    if (chunked()) return append(v);
    own();
    std::vector<T>& values = vec();
    values.push_back(v);
    ptrs_[0] = values.data();
    ++size_;
  }
  void resize(size_t n) {
    own();
    vec().resize(n);
    sync();
  }
  void resize(size_t n, const T& v) {
    own();
    vec().resize(n, v);
    sync();
  }
  void reserve(size_t n) {
    if (chunked()) return;
    own();
    vec().reserve(n);
    sync();
  }
  void assign(size_t n, const T& v) {
    own();
    vec().assign(n, v);
    sync();
  }
  template <class It>
  void assign(It first, It last) {
    own();
    vec().assign(first, last);
    sync();
  }
  void pop_back() {
    own();
    vec().pop_back();
    sync();
  }
  void clear() { Column().swap(*this); }
  void swap(Column& o) noexcept {
    blocks_.swap(o.blocks_), ptrs_.swap(o.ptrs_);
    std::swap(size_, o.size_), std::swap(shift_, o.shift_), std::swap(mask_, o.mask_);
    std::swap(appendable_, o.appendable_);
  }

  // ---- Growing a live column: blocks of kChunk values that never move.
  // Makes an empty column a chunked one (a column with values is left as it is).
  void makeChunked() {
    if (size_ != 0) return;
    clear();
    shift_ = kChunkShift;
    mask_ = kChunk - 1;
  }
  // Adds v at the end without moving a value already there (chunked), or as push_back does.
  // A block that has held one value throughout takes no memory of its own: zeros (many columns
  // are mostly 0: a capture's graph and external ids, return codes), or a run of another value —
  // a kernel track's context, the track that launched a flow's GPU work, often a name — once one
  // block of it has filled (sameValue()). Such a block reads from one shared block of that value.
  void append(const T& v) {
    if (!chunked()) return push_back(v);
    const size_t at = size_ & mask_;
    if (at == 0) {
      // No block: reads see zeros, or the value the block before held throughout, when v is it.
      const T* like = !blocks_.empty() && !blocks_.back() && sameBytes(ptrs_.back()[0], v)
                          ? ptrs_.back()
                          : zeros();
      blocks_.emplace_back();
      ptrs_.push_back(const_cast<T*>(like));
      appendable_ = true;
    }
    if (!blocks_.back()) {
      if (sameBytes(ptrs_.back()[0], v)) return void(++size_);
      materialize(blocks_.size() - 1, at);
    } else if (!appendable_) {
      // The last block is shared with a copy that may append to it too: continue in a copy of it.
      materialize(blocks_.size() - 1, at);
    }
    blocks_.back()->push_back(v);
    ++size_;
    if ((size_ & mask_) == 0) settle();
  }
  // Appends v to a column that is copied and extended again and again (a live layout's, each
  // snapshot's extending the last one's): contiguous while small — a copy extended copies it
  // whole, at most kChunk values — and chunked once it outgrows a chunk, after which a copy
  // extended copies at most its last block. Small columns so take no chunk's worth of memory.
  void grow(const T& v) {
    if (!chunked() && size_ >= kChunk) {
      Column c;
      c.makeChunked();
      for (const T& x : *this) c.append(x);
      swap(c);
    }
    append(v);
  }
  // Drops the values from n on (a tail computed again): whole blocks are let go, the last one
  // kept is copied first when another column shares it.
  void truncate(size_t n) {
    if (n >= size_) return;
    if (!chunked()) {
      own();
      vec().resize(n);
      return sync();
    }
    const size_t keep = (n + kChunk - 1) >> kChunkShift;
    blocks_.resize(keep);
    ptrs_.resize(keep);
    size_ = n;
    appendable_ = false;
    if (keep == 0) return;
    const size_t at = n - ((keep - 1) << kChunkShift);  // values kept in the last block
    if (at == kChunk) return;                           // full: the next append starts one
    if (blocks_.back() && unique(blocks_.back())) {
      blocks_.back()->resize(at);
      appendable_ = true;
    } else if (blocks_.back()) {
      materialize(keep - 1, at);
    }
  }
  // Replaces value i (an open range's end, in a live column): the block that holds it is copied
  // first when another column shares it, so copies keep what they saw.
  void set(size_t i, const T& v) {
    const size_t b = i >> shift_;
    if (!blocks_[b]) {
      materialize(b, std::min(size_ - (b << shift_), blockValues()));
    } else if (!unique(blocks_[b])) {
      const size_t n = std::min(size_ - (b << shift_), blockValues());
      auto fresh = std::make_shared<std::vector<T>>();
      if (chunked()) fresh->reserve(kChunk);
      fresh->assign(ptrs_[b], ptrs_[b] + n);
      blocks_[b] = std::move(fresh);
      ptrs_[b] = blocks_[b]->data();
      if (b + 1 == blocks_.size()) appendable_ = true;
    }
    ptrs_[b][i & mask_] = v;
  }

  // Bytes the values take (allocated blocks, the unfilled part of the last one included).
  size_t allocatedBytes() const {
    size_t bytes = 0;
    for (const auto& b : blocks_) bytes += b ? b->capacity() * sizeof(T) : 0;
    return bytes;
  }

 private:
  static constexpr unsigned kWhole = 63;  // contiguous: every index is in block 0

  std::vector<T>& vec() { return *blocks_[0]; }
  // Whether this column alone holds `block`. The count is read relaxed: the fence orders what
  // the last other holder (a snapshot on another thread) read before letting go of it before
  // what this column writes next.
  static bool unique(const std::shared_ptr<std::vector<T>>& block) {
    if (block.use_count() != 1) return false;
    std::atomic_thread_fence(std::memory_order_acquire);
    return true;
  }
  // What a block that has held only zeros reads as: one shared, never written.
  static const T* zeros() {
    alignas(T) static const unsigned char block[kChunk * sizeof(T)] = {};
    return reinterpret_cast<const T*>(block);
  }
  static bool sameBytes(const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }
  // Distinct values (besides 0) that blocks of one value may read from, per column type (all
  // columns of a type draw on them: a track's context, names and flow tracks, kernel launch
  // settings, lanes — for every capture the process makes). Each takes a block's memory for the
  // life of the process, so they are few; the runs a capture has are of small numbers (ids,
  // indices, settings) that recur from one capture to the next. A block of any other value keeps
  // its own memory, as before.
  static constexpr size_t kSameValues = 16;
  // A block of kChunk copies of v, shared by every column of this type; null once kSameValues
  // values have one. Never freed, not even at exit: a column still read then reads them.
  static const T* sameValue(const T& v) {
    static std::mutex& lock = *new std::mutex;
    static std::vector<const T*>& blocks = *new std::vector<const T*>;
    std::lock_guard<std::mutex> hold(lock);
    for (const T* b : blocks)
      if (sameBytes(b[0], v)) return b;
    if (blocks.size() >= kSameValues) return nullptr;
    T* fresh = new T[kChunk];
    std::fill_n(fresh, kChunk, v);
    blocks.push_back(fresh);
    return fresh;
  }
  // The last block just filled: when it holds one value throughout, it reads from the shared
  // block of that value and lets its own go (a copy that shares it keeps it).
  void settle() {
    const T* values = ptrs_.back();
    const T first = values[0];
    for (size_t i = 1; i < kChunk; ++i)
      if (!sameBytes(values[i], first)) return;
    const T* same = sameBytes(first, zeros()[0]) ? zeros() : sameValue(first);
    if (!same) return;
    blocks_.back().reset();
    ptrs_.back() = const_cast<T*>(same);
  }
  // Block b becomes one of this column's own, with its first `n` values (a chunked block).
  void materialize(size_t b, size_t n) {
    auto fresh = std::make_shared<std::vector<T>>();
    fresh->reserve(kChunk);
    fresh->assign(ptrs_[b], ptrs_[b] + n);
    blocks_[b] = std::move(fresh);
    ptrs_[b] = blocks_[b]->data();
    if (b + 1 == blocks_.size()) appendable_ = true;
  }
  // Values a full block holds.
  size_t blockValues() const { return chunked() ? kChunk : size_; }
  // After a change to the contiguous block: its address and size.
  void sync() {
    if (ptrs_.size() != 1) ptrs_.assign(1, nullptr);
    ptrs_[0] = vec().data();
    size_ = vec().size();
  }
  void adopt(std::vector<T>&& values) {
    blocks_.assign(1, std::make_shared<std::vector<T>>(std::move(values)));
    shift_ = kWhole, mask_ = ~size_t{0};
    sync();
  }
  // Makes this a contiguous column that shares no block.
  void own() {
    if (!chunked() && blocks_.size() == 1 && unique(blocks_[0])) return;
    if (blocks_.empty()) return adopt({});
    adopt(toVector());
    appendable_ = false;
  }

  std::vector<std::shared_ptr<std::vector<T>>> blocks_;
  std::vector<T*> ptrs_;  // each block's values, read by operator[]
  size_t size_ = 0;
  unsigned shift_ = kWhole;
  size_t mask_ = ~size_t{0};
  bool appendable_ = false;  // chunked: the last block was filled by this column alone
};

}  // namespace ts
