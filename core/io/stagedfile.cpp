#include "core/io/stagedfile.h"

#include <filesystem>

namespace tracedesk::core {

StagedFile::StagedFile(std::string path) : m_path(std::move(path)), m_partial(m_path + ".partial")
{}

StagedFile::~StagedFile()
{
    if (m_file) {
        std::fclose(m_file);
        std::error_code ec;
        std::filesystem::remove(m_partial, ec);
    }
}

Result<bool> StagedFile::open()
{
    m_file = std::fopen(m_partial.c_str(), "wb");
    if (!m_file)
        return fileError(m_path, "cannot be created");
    return true;
}

void StagedFile::write(std::string &buffer)
{
    if (std::fwrite(buffer.data(), 1, buffer.size(), m_file) != buffer.size())
        m_failed = true;
    m_written += buffer.size();
    buffer.clear();
}

void StagedFile::flushIfFull(std::string &buffer, size_t threshold)
{
    if (buffer.size() >= threshold)
        write(buffer);
}

Result<uint64_t> StagedFile::commit(std::string &buffer)
{
    if (!m_file)
        return fileError(m_path, "was not opened");
    write(buffer);
    const bool closed = std::fclose(m_file) == 0;
    m_file = nullptr;
    std::error_code ec;
    if (closed && !m_failed)
        std::filesystem::rename(m_partial, m_path, ec);
    if (!closed || m_failed || ec) {
        std::filesystem::remove(m_partial, ec);
        return fileError(m_path, "could not be written (disk full or no permission?)");
    }
    return m_written;
}

} // namespace tracedesk::core
