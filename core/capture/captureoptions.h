#pragma once

// CaptureOptions: everything one live capture needs (FORMATS.md 3.4), plus the small pure
// helpers around it: address list parsing, "key=value" option parsing, the session deadline rule,
// run and file names, and building the ProfileRequest sent to each host.
//
// Plain values; no threads, no I/O. The request builder is the only place that knows how the
// dialog's fields map onto ProfileRequest / ProfileOptions field numbers.

#include "core/base/result.h"

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

namespace tensorflow {
class ProfileRequest;
}

namespace tracedesk::core::capture {

struct AdvancedOption
{
    std::string key;
    std::string value;
};

struct CaptureOptions
{
    std::vector<std::string> addresses;   // "host:port", one Profile call each, in parallel
    uint64_t durationMs = 1000;
    uint64_t delayMs = 0;
    uint32_t hostTracerLevel = 2;         // 0 off, 1 user, 2 + framework (default), 3 verbose
    uint32_t deviceTracerLevel = 1;       // 0 off, 1 on
    uint32_t pythonTracerLevel = 0;       // 0 off, 1 on
    int retries = 3;                      // extra rounds when every host was empty or unavailable
    std::vector<AdvancedOption> advanced; // standard option names set fields; others are forwarded
    std::string logdir;                   // the run lands in <logdir>/plugins/profile/<run>/
    std::string runName;                  // empty: local time %Y_%m_%d_%H_%M_%S
    uint64_t deadlineMs = 0;              // 0: sessionDeadlineMs(); tests use a short override
    // Largest response accepted from one host. gRPC holds a whole response in memory before the
    // client sees any of it, so this is what keeps a huge trace from exhausting memory: a larger
    // one fails that host with a "too large" message. 0: responseLimitBytes() decides.
    uint64_t maxResponseBytes = 0;
    // How much the process may grow while the capture runs; past it, calls still receiving are
    // cancelled as TooLarge (gRPC checks its limit only once a message is complete, so this is
    // what stops a huge response before it exhausts memory). 0: three quarters of the memory
    // available when the capture starts.
    uint64_t memoryLimitBytes = 0;
    // Hosts captured at the same time, each on its own thread; the rest wait for a free slot.
    // 0: kDefaultParallelHosts.
    int maxParallelHosts = 0;
};

inline constexpr int kDefaultParallelHosts = 32;
// gRPC's message size limit is an int: no response can be larger than this.
inline constexpr uint64_t kMaxGrpcMessageBytes = 0x7fffffff;

// Splits "a:1, b:2" on commas. Each entry must be host:port (IPv6 as [addr]:port, an optional
// grpc:// prefix is dropped); duplicates are rejected.
Result<std::vector<std::string>> parseAddresses(const std::string &text);

// Validates one host:port entry; returns it without the optional grpc:// prefix.
Result<std::string> parseAddress(const std::string &text);

// "key=value" (the value may be empty or contain '=').
Result<AdvancedOption> parseAdvancedOption(const std::string &text);

// Checks addresses, levels, duration, logdir and every advanced option.
Result<bool> validateOptions(const CaptureOptions &options);

// max(60 s, 2 x duration) + delay: how long each call may take before it is abandoned.
uint64_t sessionDeadlineMs(const CaptureOptions &options);

// How many hosts run at the same time: min(addresses, maxParallelHosts or the default).
size_t parallelHosts(const CaptureOptions &options);

// The memory a capture may take: memoryLimitBytes when set, else three quarters of
// `availableBytes`; 0 (no limit) when `availableBytes` is 0, i.e. unknown.
uint64_t memoryBudgetBytes(const CaptureOptions &options, uint64_t availableBytes);

// The per-host receive limit: maxResponseBytes when set, else the memory budget shared by the
// hosts that run at the same time. Never above kMaxGrpcMessageBytes.
uint64_t responseLimitBytes(const CaptureOptions &options, uint64_t availableBytes);

// Local time formatted %Y_%m_%d_%H_%M_%S, the run directory name used by TensorBoard and XProf.
std::string runNameForTime(std::time_t time);

// File-name stem for a host: the override_hostname option when given, else the address, with
// ':' replaced by '_' (and other characters unsafe in file names replaced too).
std::string hostFileStem(const CaptureOptions &options, const std::string &address);

// The request for one host. `startNs` is the absolute start time (now + delay).
Result<bool> buildProfileRequest(const CaptureOptions &options, const std::string &address,
                                 const std::string &sessionId, const std::string &repositoryRoot,
                                 uint64_t startNs, tensorflow::ProfileRequest *request);

} // namespace tracedesk::core::capture
