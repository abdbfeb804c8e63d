#pragma once

// Cooperative cancellation of long computations.
//
// A cancel token is a `const std::atomic<bool> *` owned by whoever started the work (null: the
// work is never cancelled); setting it asks the work to end soon. Functions with a natural place
// for it take the token as a parameter (search, selection summaries, the level-of-detail build).
// The analyses are many small functions calling each other through AnalysisCache, so they get it
// implicitly instead: CancelScope makes a token the calling thread's current one, parallelFor()
// hands it on to its workers, and checkCancelled() at track or block boundaries throws Cancelled.
// runCancellable() installs the scope and catches Cancelled at the entry point, so the exception
// never leaves core and a cancelled computation returns nothing rather than a partial result.
// AnalysisCache keeps nothing for a maker that threw, so the next caller computes the result
// again with its own token.
//
// Thread rules: the current token is per thread; a token may be set from any thread.

#include <atomic>
#include <optional>
#include <type_traits>
#include <utility>

namespace tracedesk::core {

using CancelToken = const std::atomic<bool> *;

// Thrown by checkCancelled(); caught by runCancellable(). Not an error: nobody wants the result.
struct Cancelled
{};

namespace detail {
inline thread_local CancelToken t_currentCancel = nullptr;
} // namespace detail

inline bool isCancelled(CancelToken token)
{
    return token && token->load(std::memory_order_relaxed);
}

// The calling thread's current token (null outside any CancelScope).
inline CancelToken currentCancelToken() { return detail::t_currentCancel; }
inline bool cancelRequested() { return isCancelled(detail::t_currentCancel); }
inline void checkCancelled()
{
    if (cancelRequested())
        throw Cancelled{};
}

// Makes `token` the calling thread's current token for the scope's lifetime.
class CancelScope
{
public:
    explicit CancelScope(CancelToken token) : m_previous(detail::t_currentCancel)
    {
        detail::t_currentCancel = token;
    }
    ~CancelScope() { detail::t_currentCancel = m_previous; }
    CancelScope(const CancelScope &) = delete;
    CancelScope &operator=(const CancelScope &) = delete;

private:
    CancelToken m_previous;
};

// Runs work() with `token` current; nullopt when the work was cancelled (by a Cancelled thrown
// from inside, or the token set by the time it returns).
template<typename Work>
auto runCancellable(CancelToken token, Work &&work) -> std::optional<std::invoke_result_t<Work>>
{
    CancelScope scope(token);
    try {
        auto result = std::forward<Work>(work)();
        if (isCancelled(token))
            return std::nullopt;
        return result;
    } catch (const Cancelled &) {
        return std::nullopt;
    }
}

} // namespace tracedesk::core
