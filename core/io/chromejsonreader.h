#pragma once

// Reads Chrome Trace Event Format JSON (`.json`, `.json.gz`, `.json.zst`; object or bare-array
// form) with simdjson into the event store. Phases X, B/E, i/I, C, M, b/e/n, s/t/f and flow v2
// bind ids; PyTorch/Kineto extensions. Malformed records are counted as warnings.
//
// Memory: before anything big is allocated the store's size is estimated from the JSON size
// (the file's, or the size a zstd header declares) and checked with MemoryGuard; a compressed
// input may expand only as far as the guard allows (and LoadOptions::maxDecompressedBytes), so a
// decompression bomb stops with a message naming the file and the memory available. The guard's
// growth check runs between parse batches.

#include "core/base/loadcontrol.h"
#include "core/base/result.h"
#include "core/io/loadoptions.h"
#include "core/model/trace.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tracedesk::core {

Result<std::shared_ptr<Trace>> readChromeJson(const std::string &path, LoadControl *control,
                                              const LoadOptions &options);

// The same over bytes in memory (plain, gzip or zstd, told apart by magic bytes); `name` stands
// for the file in messages and LoadInfo::sources.
Result<std::shared_ptr<Trace>> readChromeJsonBytes(const std::string &name, const void *data,
                                                   size_t size, LoadControl *control,
                                                   const LoadOptions &options);

// Conservative peak memory of loading `jsonBytes` of (decompressed) Chrome JSON: the text
// itself, the parser's batch and the store with the builder's transient staging.
uint64_t chromeJsonLoadEstimate(uint64_t jsonBytes);

} // namespace tracedesk::core
