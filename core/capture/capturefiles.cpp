#include "core/capture/capturefiles.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tracedesk::core::capture {

namespace fs = std::filesystem;

namespace {

std::string errnoText() { return std::strerror(errno); }

int systemLink(const char *from, const char *to) { return ::link(from, to); }

int systemRenameNoReplace(const char *from, const char *to)
{
    return ::renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int systemCreateExclusive(const char *path)
{
    return ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

// link() fails this way on file systems without hard links (vfat and exFAT say EPERM).
bool linkUnsupported(int error)
{
    return error == EPERM || error == ENOTSUP || error == EOPNOTSUPP || error == ENOSYS
           || error == EMLINK || error == EXDEV;
}

// renameat2() fails this way where the kernel or the file system lacks RENAME_NOREPLACE.
bool renameUnsupported(int error)
{
    return error == EINVAL || error == ENOSYS || error == ENOTSUP || error == EOPNOTSUPP;
}

// Makes a new name in `dir` durable; best effort (some file systems cannot sync a folder).
void syncFolder(const std::string &dir)
{
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    ::fsync(fd);
    ::close(fd);
}

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
    int error = ::fsync(m_fd) == 0 ? 0 : errno;
    if (::close(m_fd) != 0 && error == 0)
        error = errno;
    m_fd = -1;
    if (error != 0) {
        errno = error;
        // Whatever reached the file stays: a capture is never deleted by a failed save.
        const Error e = fileError(m_tempPath, "cannot finish writing: " + errnoText()
                                                  + "; the capture is kept there");
        m_tempPath.clear();
        return e;
    }
    return publish();
}

Result<std::string> PendingFile::publish()
{
    const auto link = m_calls.link ? m_calls.link : systemLink;
    const auto rename = m_calls.renameNoReplace ? m_calls.renameNoReplace : systemRenameNoReplace;
    const auto create = m_calls.createExclusive ? m_calls.createExclusive : systemCreateExclusive;
    enum class Way { Link, Rename, Copy } way = Way::Link;
    std::string published;
    std::string failure;
    auto fail = [&](const std::string &target) {
        failure = fileError(target, "cannot save: " + errnoText()).message;
    };
    // Each way refuses an existing name, unlike rename(), so nothing is ever replaced; a taken
    // name moves on to the next suffix, an unsupported way to the next way.
    for (int n = 0; n < 1000 && published.empty() && failure.empty(); ++n) {
        const std::string target = (fs::path(m_dir) / (n == 0 ? m_name : suffixed(m_name, n)))
                                       .string();
        if (way == Way::Link) {
            if (link(m_tempPath.c_str(), target.c_str()) == 0) {
                ::unlink(m_tempPath.c_str());
                published = target;
                break;
            }
            if (errno == EEXIST)
                continue;
            if (!linkUnsupported(errno)) {
                fail(target);
                break;
            }
            way = Way::Rename;
        }
        if (way == Way::Rename) {
            if (rename(m_tempPath.c_str(), target.c_str()) == 0) {
                published = target;
                break;
            }
            if (errno == EEXIST)
                continue;
            if (!renameUnsupported(errno)) {
                fail(target);
                break;
            }
            way = Way::Copy;
        }
        const int fd = create(target.c_str());
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            fail(target);
            break;
        }
        if (!copyInto(fd)) {
            fail(target);
            ::unlink(target.c_str());   // our own partial copy; the temporary is whole
            break;
        }
        ::unlink(m_tempPath.c_str());
        published = target;
    }
    if (published.empty()) {
        if (failure.empty())
            failure = fileError(m_dir, "too many files named " + m_name).message;
        // Never delete the only copy of a capture: the temporary stays where the message says.
        const std::string kept = m_tempPath;
        m_tempPath.clear();
        return Error{failure + "; the capture is kept in " + kept};
    }
    m_tempPath.clear();
    syncFolder(m_dir);
    return published;
}

bool PendingFile::copyInto(int fd)
{
    int error = 0;   // the first failure's errno
    const int in = ::open(m_tempPath.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0)
        error = errno;
    std::vector<char> buffer(error ? 0 : 1 << 20);
    while (!error) {
        const ssize_t n = ::read(in, buffer.data(), buffer.size());
        if (n == 0)
            break;
        if (n < 0) {
            if (errno != EINTR)
                error = errno;
            continue;
        }
        for (ssize_t done = 0; !error && done < n;) {
            const ssize_t w = ::write(fd, buffer.data() + done, size_t(n - done));
            if (w >= 0)
                done += w;
            else if (errno != EINTR)
                error = errno;
        }
    }
    if (in >= 0)
        ::close(in);
    if (!error && ::fsync(fd) != 0)
        error = errno;
    if (::close(fd) != 0 && !error)
        error = errno;
    errno = error;
    return error == 0;
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
