#include "capture/cupti_decoder.h"

#include <cstdio>
#include <cstdlib>

namespace ts::capture {

namespace {

std::string uuidHex(const CUuuid& u) {
  std::string out;
  char buf[4];
  for (char c : u.bytes) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(c));
    out += buf;
  }
  return out;
}

DeviceFrame deviceFrame(const CUpti_ActivityDevice5& d) {
  DeviceFrame f;
  f.id = d.id;
  f.computeMajor = static_cast<int32_t>(d.computeCapabilityMajor);
  f.computeMinor = static_cast<int32_t>(d.computeCapabilityMinor);
  f.smCount = static_cast<int32_t>(d.numMultiprocessors);
  f.globalMemoryBytes = d.globalMemorySize;
  f.globalMemoryBandwidthKBs = d.globalMemoryBandwidth;
  f.coreClockKHz = static_cast<int32_t>(d.coreClockRate);
  f.maxWarpsPerSm = static_cast<int32_t>(d.maxWarpsPerMultiprocessor);
  f.maxBlocksPerSm = static_cast<int32_t>(d.maxBlocksPerMultiprocessor);
  f.maxThreadsPerBlock = static_cast<int32_t>(d.maxThreadsPerBlock);
  f.maxRegistersPerSm = static_cast<int32_t>(d.maxRegistersPerMultiprocessor);
  f.maxRegistersPerBlock = static_cast<int32_t>(d.maxRegistersPerBlock);
  f.maxSharedMemoryPerSm = static_cast<int32_t>(d.maxSharedMemoryPerMultiprocessor);
  f.maxSharedMemoryPerBlock = static_cast<int32_t>(d.maxSharedMemoryPerBlock);
  return f;
}

MemoryFrame memoryFrame(const CUpti_ActivityMemory4& m) {
  MemoryFrame f;
  f.timestamp = static_cast<int64_t>(m.timestamp);
  f.address = m.address, f.bytes = m.bytes;
  f.deviceId = m.deviceId, f.contextId = m.contextId, f.streamId = m.streamId;
  f.processId = m.processId, f.correlationId = m.correlationId;
  f.operation = static_cast<uint8_t>(m.memoryOperationType);
  f.memoryKind = static_cast<uint8_t>(m.memoryKind);
  f.poolType = static_cast<uint8_t>(m.memoryPoolConfig.memoryPoolType);
  return f;
}

}  // namespace

const std::string& CuptiDecoder::apiName(bool driver, uint32_t cbid) {
  uint64_t key = (static_cast<uint64_t>(driver) << 32) | cbid;
  auto it = apiNames_.find(key);
  if (it == apiNames_.end()) {
    std::string name = namer_ ? namer_(driver, cbid) : std::string();
    if (name.empty())
      name = std::string(driver ? "driver API " : "runtime API ") + std::to_string(cbid);
    it = apiNames_.emplace(key, std::move(name)).first;
  }
  return it->second;
}

uint64_t CuptiDecoder::takeUnknown(uint32_t& lastKind) {
  uint64_t n = unknown_;
  lastKind = lastUnknownKind_;
  unknown_ = 0;
  return n;
}

void CuptiDecoder::decode(const CUpti_Activity* record) {
  ++decoded_;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      KernelFrame f;
      f.start = static_cast<int64_t>(k->start), f.end = static_cast<int64_t>(k->end);
      f.deviceId = k->deviceId, f.contextId = k->contextId, f.streamId = k->streamId;
      f.correlationId = k->correlationId;
      f.gridX = k->gridX, f.gridY = k->gridY, f.gridZ = k->gridZ;
      f.blockX = k->blockX, f.blockY = k->blockY, f.blockZ = k->blockZ;
      f.registersPerThread = k->registersPerThread;
      f.staticSharedMemory = static_cast<uint32_t>(k->staticSharedMemory);
      f.dynamicSharedMemory = static_cast<uint32_t>(k->dynamicSharedMemory);
      f.localMemoryPerThread = k->localMemoryPerThread;
      f.graphId = k->graphId;
      out_.begin(FrameType::Kernel, f).string(k->name ? k->name : "").end();
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      MemcpyFrame f;
      f.start = static_cast<int64_t>(m->start), f.end = static_cast<int64_t>(m->end);
      f.deviceId = m->deviceId, f.contextId = m->contextId, f.streamId = m->streamId;
      f.correlationId = m->correlationId, f.runtimeCorrelationId = m->runtimeCorrelationId;
      f.bytes = m->bytes;
      f.copyKind = m->copyKind, f.srcKind = m->srcKind, f.dstKind = m->dstKind;
      f.async = (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? 1 : 0;
      f.srcDeviceId = f.dstDeviceId = m->deviceId;
      out_.begin(FrameType::Memcpy, f).end();
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
      MemcpyFrame f;
      f.start = static_cast<int64_t>(m->start), f.end = static_cast<int64_t>(m->end);
      f.deviceId = m->deviceId, f.contextId = m->contextId, f.streamId = m->streamId;
      f.correlationId = m->correlationId;
      f.bytes = m->bytes;
      f.copyKind = m->copyKind, f.srcKind = m->srcKind, f.dstKind = m->dstKind;
      f.async = (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? 1 : 0;
      f.peer = 1;
      f.srcDeviceId = m->srcDeviceId, f.dstDeviceId = m->dstDeviceId;
      out_.begin(FrameType::Memcpy, f).end();
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      MemsetFrame f;
      f.start = static_cast<int64_t>(m->start), f.end = static_cast<int64_t>(m->end);
      f.deviceId = m->deviceId, f.contextId = m->contextId, f.streamId = m->streamId;
      f.correlationId = m->correlationId;
      f.bytes = m->bytes, f.value = m->value;
      f.memoryKind = static_cast<uint8_t>(m->memoryKind);
      out_.begin(FrameType::Memset, f).end();
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      out_.begin(FrameType::Memory,
                 memoryFrame(*reinterpret_cast<const CUpti_ActivityMemory4*>(record)))
          .end();
      return;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      ApiFrame f;
      f.start = static_cast<int64_t>(a->start), f.end = static_cast<int64_t>(a->end);
      f.processId = a->processId, f.threadId = a->threadId, f.correlationId = a->correlationId;
      f.cbid = a->cbid;
      f.driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
      f.returnValue = static_cast<int32_t>(a->returnValue);
      out_.begin(FrameType::Api, f).string(apiName(f.driver, f.cbid)).end();
      return;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
      MarkerFrame f;
      f.timestamp = static_cast<int64_t>(m->timestamp);
      f.id = m->id;
      f.flags = m->flags;
      if (m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
          m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        f.processId = m->objectId.pt.processId, f.threadId = m->objectId.pt.threadId;
      }
      out_.begin(FrameType::Marker, f)
          .string(m->name ? m->name : "")
          .string(m->domain ? m->domain : "")
          .end();
      return;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
      // CUPTI describes every GPU in the machine, also those CUDA_VISIBLE_DEVICES hides from the
      // program: they can run none of its work, and a row or a device count for them would be
      // wrong.
      if (!d->isCudaVisible) return;
      out_.begin(FrameType::Device, deviceFrame(*d))
          .string(d->name ? d->name : "")
          .string(uuidHex(d->uuid))
          .end();
      return;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto* c = reinterpret_cast<const CUpti_ActivityContext3*>(record);
      ContextFrame f;
      f.contextId = c->contextId, f.deviceId = c->deviceId, f.nullStreamId = c->nullStreamId;
      out_.begin(FrameType::Context, f).end();
      return;
    }
    case CUPTI_ACTIVITY_KIND_STREAM: {
      const auto* s = reinterpret_cast<const CUpti_ActivityStream*>(record);
      StreamFrame f;
      f.contextId = s->contextId, f.streamId = s->streamId;
      f.priority = static_cast<int32_t>(s->priority);
      f.flags = static_cast<uint32_t>(s->flag);
      out_.begin(FrameType::Stream, f).end();
      return;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      // A failed synchronisation (a cudaEventQuery on an event not reached yet: NOT_READY) waited
      // for nothing; shown, a polling loop would flood the row with "Event Sync" ranges.
      if (s->returnValue != 0) return;
      SyncFrame f;
      f.start = static_cast<int64_t>(s->start), f.end = static_cast<int64_t>(s->end);
      f.contextId = s->contextId, f.streamId = s->streamId, f.correlationId = s->correlationId;
      f.type = static_cast<uint32_t>(s->type);
      out_.begin(FrameType::Sync, f).end();
      return;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      CountFrame f;
      f.count = 1;
      out_.begin(FrameType::Overhead, f).end();
      return;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return;  // not enabled by the injection (nothing of ours reads framework ids): ignored
    default:
      --decoded_;
      ++unknown_;
      lastUnknownKind_ = static_cast<uint32_t>(record->kind);
      return;
  }
}

void releaseClientMemory(CUpti_Activity* record) {
  if (record->kind == CUPTI_ACTIVITY_KIND_DEVICE) {
    auto* d = reinterpret_cast<CUpti_ActivityDevice5*>(record);
    std::free(const_cast<char*>(d->name));
    d->name = nullptr;
  } else if (record->kind == CUPTI_ACTIVITY_KIND_OVERHEAD) {
    auto* o = reinterpret_cast<CUpti_ActivityOverhead3*>(record);
    std::free(o->overheadData);
    o->overheadData = nullptr;
  }
}

}  // namespace ts::capture
