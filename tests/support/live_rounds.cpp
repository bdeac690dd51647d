#include "live_rounds.h"

#include <algorithm>
#include <random>
#include <string>

#include "session/session_builder.h"

namespace ts::testing {

namespace {

struct World {
  uint32_t streams[2];
  uint32_t threads[2];
  uint32_t contexts[2];
};

template <class B>
World makeWorld(B& b) {
  World w;
  const uint32_t r = b.rank(0);
  const uint32_t d = b.device(r, 0);
  const uint32_t p = b.process(r, 42);
  b.processInfo(p).name = "trainer";
  for (int i = 0; i < 2; ++i) {
    w.contexts[i] = b.context(d, 1 + i);
    b.contextInfo(w.contexts[i]).process = p;
    w.streams[i] = b.stream(d, 7 + i, p);
    b.streamInfo(w.streams[i]).context = w.contexts[i];
    w.threads[i] = b.thread(p, 100 + i);
  }
  return w;
}

// Events of a training loop: per thread API calls (some launching kernels or copies on a stream),
// nested NVTX ranges (some whose end arrives later, some never ended), stream syncs; kernels that
// sometimes overlap on a stream (a second lane).
std::vector<LiveRecord> generate(std::mt19937& rng, int n) {
  std::vector<LiveRecord> out;
  std::uniform_int_distribution<int> pick(0, 99);
  TimeNs t[2] = {1'000'000, 1'000'500};
  TimeNs gpu[2] = {1'000'000, 1'000'000};
  uint32_t correlation = 1;
  std::vector<std::pair<size_t, TimeNs>> stack[2];  // open NVTX ranges per thread
  for (int i = 0; i < n; ++i) {
    const uint32_t th = static_cast<uint32_t>(pick(rng) % 2);
    const int what = pick(rng);
    if (what < 45) {  // a launch and its GPU work
      const TimeNs start = t[th], end = start + 2'000 + pick(rng) * 10;
      out.push_back({EventKind::Api, th, start, end, 1, correlation});
      const uint32_t st = static_cast<uint32_t>(pick(rng) % 2);
      const bool overlap = pick(rng) < 10;
      const TimeNs ks = std::max(gpu[st] - (overlap ? 1'500 : 0), start + 1'000);
      const TimeNs ke = ks + 3'000 + pick(rng) * 20;
      out.push_back({pick(rng) < 85 ? EventKind::Kernel : EventKind::Memcpy, st, ks, ke,
                     2 + pick(rng) % 3, correlation, st});
      gpu[st] = std::max(gpu[st], ke);
      ++correlation;
      t[th] = end + 500;
    } else if (what < 60) {  // an API call that launches nothing
      const TimeNs start = t[th], end = start + 1'000 + pick(rng) * 5;
      out.push_back({EventKind::Api, th, start, end, 5, correlation++});
      t[th] = end + 300;
    } else if (what < 75 && stack[th].size() < 4) {  // an NVTX range begins
      stack[th].push_back({out.size(), t[th]});
      out.push_back({EventKind::Nvtx, th, t[th], t[th], 6 + pick(rng) % 2});
      t[th] += 100;
    } else if (what < 90 && !stack[th].empty()) {  // the innermost range ends
      LiveRecord& r = out[stack[th].back().first];
      r.end = t[th];
      r.open = pick(rng) < 70;  // its end arrives now (else it was known at its start)
      r.closeAt = out.size();
      stack[th].pop_back();
      t[th] += 100;
    } else if (what < 95) {  // a stream sync
      const uint32_t st = static_cast<uint32_t>(pick(rng) % 2);
      out.push_back({EventKind::Range, st, gpu[st], gpu[st] + 500, 8});
      gpu[st] += 500;
    } else {
      out.push_back({EventKind::Nvtx, th, t[th], t[th], 9});  // a mark
      t[th] += 50;
    }
  }
  for (auto& s : stack) {
    for (auto& [index, start] : s) out[index].open = true, out[index].neverClosed = true;
  }
  return out;
}

Provenance roundProvenance() {
  Provenance provenance;
  provenance.toolVersion = "test";
  provenance.createdUtc = "2026-12-05T00:00:00Z";
  provenance.sources.push_back({"live.tscope", "capture"});
  return provenance;
}

}  // namespace

Result<LiveRound> playLiveRound(int round, const std::function<void(SessionPtr)>& snapshot) {
  LiveRound out;
  std::mt19937 rng(static_cast<unsigned>(round));
  out.records = generate(rng, 40 + round * 4);
  const std::vector<LiveRecord>& records = out.records;
  // Arrival order: by start, each shuffled within a small window; every 7th round some records
  // come very late (their track has published past them: the track is put in order again).
  std::vector<size_t>& arrival = out.arrival;
  arrival.resize(records.size());
  for (size_t i = 0; i < arrival.size(); ++i) arrival[i] = i;
  std::stable_sort(arrival.begin(), arrival.end(),
                   [&](size_t a, size_t b) { return records[a].start < records[b].start; });
  for (size_t i = 0; i + 4 < arrival.size(); i += 4)
    std::shuffle(arrival.begin() + static_cast<std::ptrdiff_t>(i),
                 arrival.begin() + static_cast<std::ptrdiff_t>(i + 4), rng);
  if (round % 7 == 3 && arrival.size() > 20) {
    std::rotate(arrival.begin() + 2, arrival.begin() + 5, arrival.end());  // 3 come last
  }
  std::vector<size_t> position(records.size());
  for (size_t i = 0; i < arrival.size(); ++i) position[arrival[i]] = i;
  const Provenance provenance = roundProvenance();

  // The live session, fed in arrival order, published in random slices.
  LiveSession live;
  World lw = makeWorld(live.entities());
  std::vector<StringId> names(10);
  for (int i = 0; i < 10; ++i) names[i] = live.intern("name " + std::to_string(i));
  std::vector<LiveSession::OpenRange> handles(records.size(), 0);
  // Ends that arrive after their range: (arrival position of the end, record).
  std::vector<std::pair<size_t, size_t>> closes;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].open && !records[i].neverClosed)
      closes.push_back({std::max(records[i].closeAt, position[i] + 1), i});
  }
  std::sort(closes.begin(), closes.end());
  size_t nextClose = 0;
  std::uniform_int_distribution<int> slice(1, 30);
  size_t fed = 0, sliceSize = static_cast<size_t>(slice(rng));
  TimeNs& latest = out.latest;
  for (size_t a = 0; a < arrival.size(); ++a) {
    const LiveRecord& r = records[arrival[a]];
    while (nextClose < closes.size() && closes[nextClose].first <= a) {
      const LiveRecord& c = records[closes[nextClose].second];
      live.sawTime(c.end);
      live.closeNvtx(handles[closes[nextClose].second], c.end);
      ++nextClose;
    }
    switch (r.kind) {
      case EventKind::Api:
        live.addApi(lw.threads[r.owner], r.start, r.end, names[r.name],
                    {r.correlation, 0, ApiDomain::Runtime});
        break;
      case EventKind::Kernel: {
        KernelDetail d;
        d.correlation = r.correlation;
        d.context = 1 + r.context;
        d.gridX = 1 + static_cast<uint32_t>(r.name);
        live.addKernel(lw.streams[r.owner], r.start, r.end, names[r.name], d);
        break;
      }
      case EventKind::Memcpy: {
        MemcpyDetail d;
        d.correlation = r.correlation;
        d.context = 1 + r.context;
        d.bytes = 4096;
        live.addMemcpy(lw.streams[r.owner], r.start, r.end, names[r.name], d);
        break;
      }
      case EventKind::Range:
        live.addStreamRange(lw.streams[r.owner], r.start, r.end, names[r.name], {});
        break;
      case EventKind::Nvtx:
        if (r.open)
          handles[arrival[a]] = live.openNvtx(lw.threads[r.owner], r.start, names[r.name], {});
        else
          live.addNvtx(lw.threads[r.owner], r.start, r.end, names[r.name], {});
        break;
      default:
        break;
    }
    live.sawTime(r.open ? r.start : r.end);
    latest = std::max(latest, r.open ? r.start : r.end);
    if (++fed == sliceSize) {
      fed = 0;
      sliceSize = static_cast<size_t>(slice(rng));
      const TimeNs holdback = rng() % 3 == 0 ? 0 : static_cast<TimeNs>(rng() % 20'000);
      Result<SessionPtr> s = live.publish(provenance, holdback);
      if (!s) return Error{s.error()};
      snapshot(*s);
    }
  }
  for (; nextClose < closes.size(); ++nextClose) {
    const LiveRecord& c = records[closes[nextClose].second];
    live.sawTime(c.end);
    live.closeNvtx(handles[closes[nextClose].second], c.end);
    latest = std::max(latest, c.end);
  }
  Result<SessionPtr> final = live.publish(provenance, 0, true);
  if (!final) return Error{final.error()};
  out.final = *final;
  out.lateRebuilds = live.lateRebuilds();
  return out;
}

Result<SessionPtr> buildLiveRound(const LiveRound& played) {
  SessionBuilder b;
  World bw = makeWorld(b);
  std::vector<StringId> names(10);
  for (int i = 0; i < 10; ++i) names[i] = b.intern("name " + std::to_string(i));
  for (size_t i : played.arrival) {
    const LiveRecord& r = played.records[i];
    const StringId name = names[r.name];
    switch (r.kind) {
      case EventKind::Api:
        b.addApi(bw.threads[r.owner], r.start, r.end, name, {r.correlation, 0, ApiDomain::Runtime});
        break;
      case EventKind::Kernel: {
        KernelDetail d;
        d.correlation = r.correlation;
        d.context = 1 + r.context;
        d.gridX = 1 + static_cast<uint32_t>(r.name);
        b.addKernel(bw.streams[r.owner], r.start, r.end, name, d);
        break;
      }
      case EventKind::Memcpy: {
        MemcpyDetail d;
        d.correlation = r.correlation;
        d.context = 1 + r.context;
        d.bytes = 4096;
        b.addMemcpy(bw.streams[r.owner], r.start, r.end, name, d);
        break;
      }
      case EventKind::Range:
        b.addStreamRange(bw.streams[r.owner], r.start, r.end, name, {});
        break;
      case EventKind::Nvtx:
        b.addNvtx(bw.threads[r.owner], r.start, r.neverClosed ? played.latest : r.end, name, {});
        break;
      default:
        break;
    }
  }
  b.provenance() = roundProvenance();
  return b.build();
}

}  // namespace ts::testing
