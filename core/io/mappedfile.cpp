#include "core/io/mappedfile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tracedesk::core {

MappedFile::MappedFile(MappedFile &&other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)),
      m_borrowed(std::exchange(other.m_borrowed, false))
{}

MappedFile &MappedFile::operator=(MappedFile &&other) noexcept
{
    if (this != &other) {
        reset();
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
        m_borrowed = std::exchange(other.m_borrowed, false);
    }
    return *this;
}

MappedFile::~MappedFile()
{
    reset();
}

void MappedFile::reset()
{
    if (m_data && m_size > 0 && !m_borrowed)
        ::munmap(const_cast<uint8_t *>(m_data), m_size);
    m_data = nullptr;
    m_size = 0;
    m_borrowed = false;
}

MappedFile MappedFile::borrow(std::string_view bytes)
{
    MappedFile file;
    if (!bytes.empty()) {
        file.m_data = reinterpret_cast<const uint8_t *>(bytes.data());
        file.m_size = bytes.size();
        file.m_borrowed = true;
    }
    return file;
}

void MappedFile::release(const uint8_t *begin, const uint8_t *end) const
{
    // Dropping pages of memory this object does not own would zero someone else's data.
    if (m_borrowed)
        return;
    static const auto page = uintptr_t(::sysconf(_SC_PAGESIZE));
    begin = std::max(begin, m_data);
    end = std::min(end, m_data + m_size);
    const uintptr_t first = (uintptr_t(begin) + page - 1) & ~(page - 1);
    const uintptr_t last = uintptr_t(end) & ~(page - 1);
    if (m_data && last > first)
        ::madvise(reinterpret_cast<void *>(first), last - first, MADV_DONTNEED);
}

Result<MappedFile> MappedFile::open(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fileError(path, std::string("cannot be opened for reading (") + std::strerror(errno)
                                   + ")");
    struct stat st = {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return fileError(path, std::string("cannot be examined (") + std::strerror(err) + ")");
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return fileError(path, "is not a regular file");
    }
    MappedFile file;
    if (st.st_size > 0) {
        void *p = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            return fileError(path, std::string("cannot be mapped into memory (")
                                       + std::strerror(err) + ")");
        }
        // Every byte will be read soon (by several threads, so not strictly in order).
        ::madvise(p, size_t(st.st_size), MADV_WILLNEED);
        file.m_data = static_cast<const uint8_t *>(p);
        file.m_size = size_t(st.st_size);
    }
    ::close(fd);
    return file;
}

} // namespace tracedesk::core
