#include "core/capture/capturefiles.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tracedesk::core::capture {

namespace fs = std::filesystem;

namespace {

std::string errnoText() { return std::strerror(errno); }

// "host.xplane.pb" -> "host_1.xplane.pb": the suffix goes before the first dot after the stem.
std::string suffixed(const std::string &name, int n)
{
    const auto dot = name.find(".xplane.pb");
    const size_t at = dot == std::string::npos ? name.size() : dot;
    return name.substr(0, at) + "_" + std::to_string(n) + name.substr(at);
}

} // namespace

Result<std::string> reserveRunDirectory(const std::string &logdir, const std::string &name)
{
    const fs::path root = fs::path(logdir) / "plugins" / "profile";
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec)
        return fileError(root.string(), "cannot create the folder: " + ec.message());
    for (int n = 0; n < 1000; ++n) {
        const fs::path dir = root / (n == 0 ? name : name + "_" + std::to_string(n));
        if (::mkdir(dir.c_str(), 0777) == 0)
            return dir.string();
        if (errno != EEXIST)
            return fileError(dir.string(), "cannot create the run folder: " + errnoText());
    }
    return fileError((root / name).string(), "too many runs with this name");
}

void removeIfEmpty(const std::string &dir)
{
    std::error_code ec;
    if (fs::is_directory(dir, ec) && fs::is_empty(dir, ec))
        fs::remove(dir, ec);
}

PendingFile::~PendingFile() { discard(); }

Result<bool> PendingFile::open(const std::string &dir, const std::string &name)
{
    discard();
    m_dir = dir;
    m_name = name;
    m_written = 0;
    m_error.clear();
    std::string pattern = (fs::path(dir) / ("." + name + ".partial-XXXXXX")).string();
    m_fd = ::mkstemp(pattern.data());
    if (m_fd < 0)
        return fileError(pattern, "cannot create a temporary file: " + errnoText());
    ::fchmod(m_fd, 0644);
    m_tempPath = pattern;
    return true;
}

bool PendingFile::write(const char *data, size_t size)
{
    if (m_fd < 0)
        return false;
    while (size > 0) {
        const ssize_t n = ::write(m_fd, data, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            m_error = fileError(m_tempPath, "write failed: " + errnoText()).message;
            return false;
        }
        data += n;
        size -= size_t(n);
        m_written += uint64_t(n);
    }
    return true;
}

Result<std::string> PendingFile::commit()
{
    if (m_fd < 0)
        return Error{"nothing to save"};
    if (::fsync(m_fd) != 0 || ::close(m_fd) != 0) {
        m_fd = -1;
        const Error e = fileError(m_tempPath, "cannot finish writing: " + errnoText());
        discard();
        return e;
    }
    m_fd = -1;
    // link() refuses an existing name, unlike rename(), so nothing is ever replaced.
    for (int n = 0; n < 1000; ++n) {
        const std::string target = (fs::path(m_dir) / (n == 0 ? m_name : suffixed(m_name, n)))
                                       .string();
        if (::link(m_tempPath.c_str(), target.c_str()) == 0) {
            ::unlink(m_tempPath.c_str());
            m_tempPath.clear();
            return target;
        }
        if (errno != EEXIST) {
            const Error e = fileError(target, "cannot save: " + errnoText());
            discard();
            return e;
        }
    }
    const Error e = fileError(m_dir, "too many files named " + m_name);
    discard();
    return e;
}

void PendingFile::discard()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
    if (!m_tempPath.empty()) {
        ::unlink(m_tempPath.c_str());
        m_tempPath.clear();
    }
}

} // namespace tracedesk::core::capture
