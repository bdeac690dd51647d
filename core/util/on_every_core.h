// Independent pieces of work spread over the cores: work(i) for every i in [0, count), each once,
// on up to one thread per core (the caller's is one of them). Returns when all are done; an
// exception thrown by a piece is rethrown here, after every thread has stopped (the first one
// thrown; the pieces not yet started are skipped).
#pragma once

#include <cstddef>
#include <functional>

namespace ts {

void onEveryCore(size_t count, const std::function<void(size_t)>& work);

}  // namespace ts
