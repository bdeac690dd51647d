// PyTorch's memory snapshot and memory timeline opened as sessions: the snapshot written from a
// real H100 trace's allocations (tests/memory/make_snapshot.py) gives the tensors and peak the
// trace's own [memory] records give; bad files are refused naming the file and the offset.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "analysis/measured_tensors.h"
#include "io/open_session.h"
#include "session/memory_counter.h"

namespace ts {

namespace {

const std::string kSnapshots = std::string(TSCOPE_TEST_DATA) + "/memory_snapshot/";
const std::string kVitTrace =
    std::string(TSCOPE_SHARED_DATA) +
    "/kineto/tracelens-h100-Falconsai_nsfw_image_detection__1016002.json.gz";

std::string writeTemp(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST(MemorySnapshot, HoldsTheTensorsOfTheTraceItWasWrittenFrom) {
  auto trace = openSessionFile(kVitTrace);
  ASSERT_TRUE(trace.ok()) << trace.error();
  auto snapshot = openSessionFile(kSnapshots + "vit_h100.pickle");
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const std::vector<MeasuredMemory> fromTrace = measureTensorLifetimes(**trace);
  const std::vector<MeasuredMemory> fromSnapshot = measureTensorLifetimes(**snapshot);
  ASSERT_EQ(fromTrace.size(), 1u);
  ASSERT_EQ(fromSnapshot.size(), 1u);
  const MeasuredMemory& a = fromTrace[0];
  const MeasuredMemory& b = fromSnapshot[0];
  EXPECT_TRUE(b.addresses);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  ASSERT_GT(b.tensors.size(), 200u);
  // The trace's clock is shifted to the Unix epoch (Kineto's baseTimeNanoseconds), the snapshot
  // keeps the trace's raw microseconds: times agree from the first allocation on.
  const TimeNs shift = a.tensors[0].allocated - b.tensors[0].allocated;
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    // The snapshot keeps whole microseconds, the trace fractions of one.
    EXPECT_NEAR(a.tensors[i].allocated - shift, b.tensors[i].allocated, 1000) << i;
    EXPECT_EQ(a.tensors[i].bytes, b.tensors[i].bytes) << i;
    EXPECT_EQ(a.tensors[i].address, b.tensors[i].address) << i;
    EXPECT_EQ(a.tensors[i].freed == kStillAllocated, b.tensors[i].freed == kStillAllocated) << i;
  }
  EXPECT_EQ(a.unmatchedFrees, b.unmatchedFrees);
  // The snapshot replays its history from what was held before it began (what the segments hold
  // at the end less what the history added): the same peak as the trace's own totals.
  EXPECT_EQ(a.peak, b.peak);
  EXPECT_TRUE((*snapshot)->provenance.profiler.find("memory snapshot") != std::string::npos);
  // Each allocation names the code that made it: its stack's frame outside PyTorch.
  const Session& s = **snapshot;
  for (const MeasuredTensor& t : b.tensors) {
    ASSERT_NE(t.allocTrack, kNone);
    EXPECT_EQ(s.str(s.tracks[t.allocTrack].hot.name[t.allocEvent]), "step (train.py:42)");
  }
  // The counters reach the last record, not only the first.
  for (const CounterTrack& c : s.counters)  // a site's range lasts a nanosecond past it
    EXPECT_GE(c.samples.time.back(), s.endTime() - 1) << c.name;
}

// PyTorch 2.0 kept no times: the records are drawn a microsecond apart, in order, and it says so.
TEST(MemorySnapshot, WithoutTimesKeepsOrderAndSaysSo) {
  auto snapshot = openSessionFile(kSnapshots + "vit_h100_untimed_p2.pickle");
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  EXPECT_NE((*snapshot)->provenance.profiler.find("carry no times"), std::string::npos);
  const std::vector<MeasuredMemory> m = measureTensorLifetimes(**snapshot);
  ASSERT_EQ(m.size(), 1u);
  ASSERT_GT(m[0].tensors.size(), 200u);
  for (size_t i = 1; i < m[0].tensors.size(); ++i)
    EXPECT_LT(m[0].tensors[i - 1].allocated, m[0].tensors[i].allocated);
}

TEST(MemorySnapshot, BadFilesNameTheFileAndTheOffset) {
  const std::string good = readAll(kSnapshots + "vit_h100.pickle");
  ASSERT_GT(good.size(), 1000u);
  auto cut = openSessionFile(writeTemp("ts_cut.pickle", good.substr(0, good.size() / 2)));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().find("ts_cut.pickle: not a readable memory snapshot: at byte"),
            std::string::npos)
      << cut.error();
  auto notPickle = openSessionFile(writeTemp("ts_text.pickle", "segments: []\n"));
  ASSERT_FALSE(notPickle.ok());
  EXPECT_NE(notPickle.error().find("ts_text.pickle: not a readable memory snapshot: at byte 0"),
            std::string::npos)
      << notPickle.error();
  // A pickle that builds an object (what a malicious "snapshot" would do) is refused, not run.
  const std::string reduce = std::string("\x80\x04\x8c\x02os\x8c\x06system\x93)R.", 18);
  auto evil = openSessionFile(writeTemp("ts_evil.pickle", reduce));
  ASSERT_FALSE(evil.ok());
  EXPECT_NE(evil.error().find("ts_evil.pickle"), std::string::npos);
  EXPECT_NE(evil.error().find("at byte 14: opcode STACK_GLOBAL"), std::string::npos)
      << evil.error();
  // A snapshot with nothing in it, and a JSON trace named as a pickle (read by its content).
  static const char kEmpty[] =
      "\x80\x04}(\x8c\x08segments]\x8c\x0d"
      "device_traces]u.";
  const std::string empty(kEmpty, sizeof kEmpty - 1);
  auto nothing = openSessionFile(writeTemp("ts_empty.pickle", empty));
  ASSERT_FALSE(nothing.ok());
  EXPECT_NE(nothing.error().find("holds no segments and no allocator history"), std::string::npos)
      << nothing.error();
  auto json = openSessionFile(writeTemp("ts_json.pickle",
                                        "[{\"ph\": \"X\", \"name\": \"k\", "
                                        "\"ts\": 1, \"dur\": 2, \"pid\": 1, "
                                        "\"tid\": 1}]"));
  EXPECT_TRUE(json.ok()) << json.error();
  // A pickle of data that is no snapshot.
  auto list = openSessionFile(writeTemp("ts_list.pickle", std::string("\x80\x04}.", 4)));
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.error().find("no 'segments'"), std::string::npos) << list.error();
}

// export_memory_timeline's [times, sizes]: bytes live per category, summed into the allocated
// counter the memory views read, each category its own counter.
TEST(MemoryTimeline, CategoriesAndTheirSum) {
  const std::string json =
      "[[-1, 1700000000000000, 1700000000000010],"
      " [[0, 100, 10, 5, 0, 0, 0, 0, 0], [0, 100, 10, 5, 7, 50, 0, 0, 1],"
      "  [0, 100, 10, 5, 0, 20, 30, 0, 0]]]";
  auto s = openSessionFile(writeTemp("ts_timeline.json", json));
  ASSERT_TRUE(s.ok()) << s.error();
  const CounterTrack* total = nullptr;
  const CounterTrack* activation = nullptr;
  for (const CounterTrack& c : (*s)->counters) {
    if (isAllocatedCounter(c)) total = &c;
    if (c.name == "Memory (activation)") activation = &c;
  }
  ASSERT_NE(total, nullptr);
  ASSERT_NE(activation, nullptr);
  ASSERT_EQ(total->size(), 3u);
  EXPECT_EQ(total->samples.value[0], 115);
  EXPECT_EQ(total->samples.value[1], 173);
  EXPECT_EQ(total->samples.value[2], 165);
  // Microseconds since 1970; the row before the profile began is drawn at its first moment.
  EXPECT_EQ(total->samples.time[0], 1700000000000000 * 1000);
  EXPECT_EQ(total->samples.time[2], 1700000000000010 * 1000);
  EXPECT_EQ(activation->samples.value[1], 50);
  auto ragged = openSessionFile(writeTemp("ts_ragged.json", "[[1, 2], [[0, 1, 2]]]"));
  ASSERT_FALSE(ragged.ok());
  EXPECT_NE(ragged.error().find("ts_ragged.json: memory timeline: 2 times but 1 rows"),
            std::string::npos)
      << ragged.error();
}

}  // namespace ts
