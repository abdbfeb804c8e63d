#pragma once

// Where captured traces land: `<logdir>/plugins/profile/<run>/<host>.xplane.pb` (FORMATS.md 4.1).
//
// reserveRunDirectory() claims a run directory with an atomic mkdir, adding a suffix when the
// name is taken, so an earlier run is never written into. PendingFile streams one file into a
// hidden temporary next to its destination and publishes it with a hard link that fails when
// the name exists, so a file is either complete under its final name or absent; destroying an
// uncommitted PendingFile removes the temporary. One thread per PendingFile.

#include "core/base/result.h"

#include <cstdint>
#include <string>

namespace tracedesk::core::capture {

// Creates `<logdir>/plugins/profile/<name>` (or `<name>_1`, `<name>_2`, ... when taken),
// creating the parents as needed. Returns the new directory's path.
Result<std::string> reserveRunDirectory(const std::string &logdir, const std::string &name);

// Removes `dir` when it holds nothing (a run where no host was saved).
void removeIfEmpty(const std::string &dir);

class PendingFile
{
public:
    PendingFile() = default;
    ~PendingFile();
    PendingFile(const PendingFile &) = delete;
    PendingFile &operator=(const PendingFile &) = delete;

    // Opens a temporary in `dir` for the file `name`.
    Result<bool> open(const std::string &dir, const std::string &name);
    bool write(const char *data, size_t size);
    uint64_t written() const { return m_written; }
    const std::string &error() const { return m_error; }

    // Flushes and publishes under `name` (or `<stem>_1<ext>` ... if that name appeared
    // meanwhile). Returns the final path.
    Result<std::string> commit();
    // Drops the temporary.
    void discard();

private:
    std::string m_dir;
    std::string m_name;
    std::string m_tempPath;
    int m_fd = -1;
    uint64_t m_written = 0;
    std::string m_error;
};

} // namespace tracedesk::core::capture
