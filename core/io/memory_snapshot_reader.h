// PyTorch's own memory records, besides the profiler's [memory] events:
//  - the CUDA memory snapshot (torch.cuda.memory._dump_snapshot, a pickle read as data only,
//    io/pickle_data.h): each device's allocator history (alloc, free, segment alloc and free, out
//    of memory) and the blocks live when it was taken;
//  - the memory timeline the profiler exports (profile.export_memory_timeline(path.json)):
//    bytes live per category (parameter, optimizer state, input, temporary, activation,
//    gradient, autograd detail, unknown) over time.
// Both become the device's memory counters, as the Kineto reader makes them: "Memory allocated"
// (samples keep each allocation's size and address, so measured_tensors.h pairs them into
// tensors) and "Memory reserved"; the timeline adds one counter per category.
#pragma once

#include <string>
#include <string_view>

#include "io/import_info.h"
#include "session/session_builder.h"
#include "util/result.h"

namespace ts {

// `bytes` is the whole file. Errors name `path` and, for a pickle, the byte offset.
Result<ImportInfo> importMemorySnapshot(const std::string& path, std::string_view bytes,
                                        SessionBuilder& builder, uint32_t rank);

// Whether JSON text is a memory timeline export: an array whose first item is an array.
bool looksLikeMemoryTimeline(std::string_view head);
Result<ImportInfo> importMemoryTimeline(const std::string& path, std::string_view json,
                                        SessionBuilder& builder, uint32_t rank);

}  // namespace ts
