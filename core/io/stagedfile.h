#pragma once

// StagedFile: a file written through `<path>.partial` and renamed into place only when every
// byte reached the disk, so a failed or interrupted write never leaves a truncated file under
// the real name. The writers that stream JSON (ChromeJsonWriter, KinetoJsonWriter) fill their
// own buffer and hand it over here. One thread.

#include "core/base/result.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace tracedesk::core {

class StagedFile
{
public:
    explicit StagedFile(std::string path);
    ~StagedFile();   // removes the partial file unless commit() renamed it
    StagedFile(const StagedFile &) = delete;
    StagedFile &operator=(const StagedFile &) = delete;

    Result<bool> open();
    bool isOpen() const { return m_file != nullptr; }
    const std::string &path() const { return m_path; }
    // Writes `buffer` once it holds `threshold` bytes or more, and empties it.
    void flushIfFull(std::string &buffer, size_t threshold);
    // Writes the rest, closes and renames into place; the file's size in bytes.
    Result<uint64_t> commit(std::string &buffer);

private:
    void write(std::string &buffer);

    std::string m_path;
    std::string m_partial;
    std::FILE *m_file = nullptr;
    uint64_t m_written = 0;
    bool m_failed = false;
};

} // namespace tracedesk::core
