#pragma once

// What the bench modes share: a scratch folder for their generated inputs (a fresh temporary
// folder removed when the bench ends, or a folder the user named with --keep, which is kept),
// their clock, and the hand-back of freed heap that makes RSS figures measure live data only.

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <malloc.h>
#include <string>

namespace tracedesk::cli {

inline double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Give freed memory back to the system so RSS figures measure what is still held.
inline void releaseFreeMemory()
{
    ::malloc_trim(0);
}

class ScratchDir
{
public:
    ~ScratchDir()
    {
        std::error_code ec;
        if (!m_path.empty() && !m_keep)
            std::filesystem::remove_all(m_path, ec);
    }
    bool create()
    {
        std::error_code ec;
        std::string pattern =
            (std::filesystem::temp_directory_path(ec) / "tracedesk-bench-XXXXXX").string();
        if (ec || !::mkdtemp(pattern.data()))
            return false;
        m_path = pattern;
        return true;
    }
    bool use(const std::string &dir)
    {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        m_path = dir;
        m_keep = true;
        return !ec && std::filesystem::is_directory(dir, ec);
    }
    const std::string &path() const { return m_path; }

private:
    std::string m_path;
    bool m_keep = false;
};

} // namespace tracedesk::cli
