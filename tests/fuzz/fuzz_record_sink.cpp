// The capture's wire stream as the launcher receives it from a captured process. Random bytes
// rarely get past a frame header, so the input is read as a recipe: each step picks a frame type,
// fills its fixed part and strings from the input (any values at all, as a broken or hostile
// target could send), then the stream is fed in chunks whose sizes the input also picks (frames
// split across reads), and a session is built from whatever arrived.
#include <cstring>
#include <string>

#include "capture/record_sink.h"
#include "capture/wire_format.h"

namespace {

using namespace ts::capture;

class Recipe {
 public:
  Recipe(const uint8_t* data, size_t size) : p_(data), left_(size) {}
  bool empty() const { return left_ == 0; }
  uint8_t byte() {
    if (!left_) return 0;
    --left_;
    return *p_++;
  }
  template <class T>
  T fixed() {
    T value{};
    size_t n = std::min(sizeof(T), left_);
    std::memcpy(&value, p_, n);  // trivially copyable frame structs: any bytes are a value
    p_ += n, left_ -= n;
    return value;
  }
  std::string text() {
    size_t n = std::min<size_t>(byte() % 48, left_);
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n, left_ -= n;
    return s;
  }

 private:
  const uint8_t* p_;
  size_t left_;
};

template <class T>
void frame(FrameWriter& w, FrameType type, Recipe& r, int strings) {
  w.begin(type, r.fixed<T>());
  for (int i = 0; i < strings; ++i) w.string(r.text());
  w.end();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Recipe r(data, size);
  FrameWriter w;
  // Mostly a well-formed start, sometimes none: a stream that does not begin with Hello.
  if (r.byte() % 8) {
    HelloFrame hello = r.fixed<HelloFrame>();
    hello.version = kWireVersion;
    w.begin(FrameType::Hello, hello).string(r.text()).string(r.text()).end();
  }
  for (int steps = 0; steps < 400 && !r.empty(); ++steps) {
    switch (r.byte() % 17) {
      case 0:
        frame<KernelFrame>(w, FrameType::Kernel, r, 1);
        break;
      case 1:
        frame<MemcpyFrame>(w, FrameType::Memcpy, r, 0);
        break;
      case 2:
        frame<MemsetFrame>(w, FrameType::Memset, r, 0);
        break;
      case 3:
        frame<ApiFrame>(w, FrameType::Api, r, 1);
        break;
      case 4:
        frame<MarkerFrame>(w, FrameType::Marker, r, 2);
        break;
      case 5:
        frame<DeviceFrame>(w, FrameType::Device, r, 2);
        break;
      case 6:
        frame<ContextFrame>(w, FrameType::Context, r, 0);
        break;
      case 7:
        frame<StreamFrame>(w, FrameType::Stream, r, 0);
        break;
      case 8:
        frame<SyncFrame>(w, FrameType::Sync, r, 0);
        break;
      case 9:
        frame<CountFrame>(w, FrameType::Dropped, r, 0);
        break;
      case 10:
        frame<CountFrame>(w, FrameType::Overhead, r, 0);
        break;
      case 11:
        frame<CountFrame>(w, FrameType::Unknown, r, 0);
        break;
      case 12:
        w.begin(FrameType::Message).string(r.text()).end();
        break;
      case 13:
        w.begin(FrameType::End).end();
        break;
      case 14:
        w.begin(FrameType::FlushDone).end();
        break;
      case 15: {  // a frame of any type and length: the header itself damaged
        auto type = static_cast<FrameType>(r.fixed<uint32_t>());
        w.begin(type).string(r.text()).end();
        break;
      }
      default:
        w.bytes() += r.text();
        break;  // raw bytes between frames
    }
  }
  const std::string stream = w.take();
  RecordSink sink;
  size_t c = sink.open();
  // Live snapshots while the stream comes (some holding back the latest records), as the live
  // view takes them; each must be a valid session, and so must the final one.
  size_t pieces = 0;
  for (size_t at = 0; at < stream.size();) {
    size_t n = 1 + (stream.size() - at) % 997;
    if (!sink.feed(c, std::string_view(stream).substr(at, n))) break;
    at += n;
    if (++pieces % 3 == 0) {
      auto live = sink.snapshot({}, pieces % 2 ? 1'000 : 0);
      if (!live || !copySession(**live)->finalize()) __builtin_trap();
    }
  }
  sink.close(c);
  auto last = sink.snapshot({});
  if (!last || !copySession(**last)->finalize()) __builtin_trap();
  return 0;
}
