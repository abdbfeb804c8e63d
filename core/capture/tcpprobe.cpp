#include "core/capture/tcpprobe.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace tracedesk::core::capture {

namespace {

// Connects one resolved address without blocking past `deadline`.
TcpProbe connectOne(const addrinfo &a, std::chrono::steady_clock::time_point deadline)
{
    TcpProbe out;
    const int fd = ::socket(a.ai_family, a.ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                            a.ai_protocol);
    if (fd < 0) {
        out.detail = std::strerror(errno);
        return out;
    }
    int error = 0;
    if (::connect(fd, a.ai_addr, a.ai_addrlen) != 0) {
        error = errno;
        if (error == EINPROGRESS) {
            pollfd p{fd, POLLOUT, 0};
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            const int ready = ::poll(&p, 1, int(std::max<int64_t>(0, left.count())));
            if (ready == 0) {
                ::close(fd);
                out.result = TcpProbeResult::TimedOut;
                return out;
            }
            socklen_t len = sizeof error;
            if (ready < 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0)
                error = errno;
        }
    }
    ::close(fd);
    if (error == 0)
        out.result = TcpProbeResult::Connected;
    else if (error == ECONNREFUSED)
        out.result = TcpProbeResult::Refused;
    else if (error == ETIMEDOUT)
        out.result = TcpProbeResult::TimedOut;
    out.detail = error ? std::strerror(error) : "";
    return out;
}

} // namespace

TcpProbe probeTcp(const std::string &address, uint64_t timeoutMs)
{
    TcpProbe out;
    const auto colon = address.rfind(':');
    if (colon == std::string::npos || colon == 0) {
        out.detail = "no port";
        return out;
    }
    std::string host = address.substr(0, colon);
    const std::string port = address.substr(colon + 1);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    if (const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
        out.result = TcpProbeResult::Unresolved;
        out.detail = ::gai_strerror(rc);
        return out;
    }
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    // The first address that connects wins; "refused" only when every address refused.
    bool refused = true, timedOut = false;
    for (addrinfo *a = found; a; a = a->ai_next) {
        const TcpProbe p = connectOne(*a, deadline);
        if (p.result == TcpProbeResult::Connected) {
            ::freeaddrinfo(found);
            return p;
        }
        refused = refused && p.result == TcpProbeResult::Refused;
        timedOut = timedOut || p.result == TcpProbeResult::TimedOut;
        out.detail = p.detail;
    }
    ::freeaddrinfo(found);
    out.result = refused && !out.detail.empty() ? TcpProbeResult::Refused
                 : timedOut                     ? TcpProbeResult::TimedOut
                                                : TcpProbeResult::Failed;
    return out;
}

} // namespace tracedesk::core::capture
