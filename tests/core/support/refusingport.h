#pragma once

// A loopback address where connections are refused, for as long as this object lives: a TCP
// socket bound to an ephemeral port and never listening. Holding the port (instead of taking a
// free one and closing it) means no other process can start listening there meanwhile, which
// would turn "nothing answers" into a flaky "something answered".

#include <string>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

class RefusingPort
{
public:
    RefusingPort()
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (m_fd >= 0 && ::bind(m_fd, reinterpret_cast<sockaddr *>(&a), len) == 0
            && ::getsockname(m_fd, reinterpret_cast<sockaddr *>(&a), &len) == 0) {
            m_port = ntohs(a.sin_port);
        }
    }
    ~RefusingPort()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    RefusingPort(const RefusingPort &) = delete;
    RefusingPort &operator=(const RefusingPort &) = delete;

    // 0 when no socket could be bound.
    int port() const { return m_port; }
    std::string address() const { return "127.0.0.1:" + std::to_string(m_port); }

private:
    int m_fd = -1;
    int m_port = 0;
};
