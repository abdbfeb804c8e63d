#pragma once

// Where captured traces land: `<logdir>/plugins/profile/<run>/<host>.xplane.pb` (FORMATS.md 4.1).
//
// reserveRunDirectory() claims a run directory with an atomic mkdir, adding a suffix when the
// name is taken, so an earlier run is never written into. PendingFile streams one file into a
// hidden temporary next to its destination and publishes it without ever replacing a file:
// with a hard link that fails when the name exists; where the file system has no hard links
// (vfat, exFAT, many network mounts), with renameat2(RENAME_NOREPLACE); where that is missing
// too, by copying into a file created exclusively (O_EXCL). The folder is synced afterwards, so
// the new name survives a crash. A file is either complete under its final name or absent, and
// a capture is never deleted before it is safely published: when every way fails, commit()
// keeps the temporary and its error names it. Destroying an uncommitted PendingFile (nothing
// written that anyone asked to keep) removes the temporary. One thread per PendingFile.

#include "core/base/result.h"

#include <cstdint>
#include <string>

namespace tracedesk::core::capture {

// Creates `<logdir>/plugins/profile/<name>` (or `<name>_1`, `<name>_2`, ... when taken),
// creating the parents as needed. Returns the new directory's path.
Result<std::string> reserveRunDirectory(const std::string &logdir, const std::string &name);

// Removes `dir` when it holds nothing (a run where no host was saved).
void removeIfEmpty(const std::string &dir);

// The calls commit() publishes with, each returning 0 or -1 with errno set like the system
// call; tests replace them to act out file systems without hard links or renameat2.
struct PublishCalls
{
    int (*link)(const char *from, const char *to) = nullptr;              // ::link
    int (*renameNoReplace)(const char *from, const char *to) = nullptr;   // renameat2
    // Returns a descriptor open for writing on a file it created, or -1.
    int (*createExclusive)(const char *path) = nullptr;                   // open(O_EXCL)
};

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

    // Null members keep the system's calls.
    void setPublishCalls(const PublishCalls &calls) { m_calls = calls; }

private:
    // Publishes the closed temporary under the first free name; the final path, or an error
    // with the temporary left in place.
    Result<std::string> publish();
    // Copies the temporary into `fd` (a new file), syncs and closes it; false on any error.
    bool copyInto(int fd);

    std::string m_dir;
    std::string m_name;
    std::string m_tempPath;
    int m_fd = -1;
    uint64_t m_written = 0;
    std::string m_error;
    PublishCalls m_calls;
};

} // namespace tracedesk::core::capture
